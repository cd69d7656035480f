// This file is the tool catalogue and the interface a tool is written
// against: a tool declares its arguments, gets them checked, as Go values,
// and returns plain text, or an error for the model to read.

package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// tool is one entry of the catalogue: tools/list and each call follow it.
type tool struct {
	name        string
	title       string // for people, in a client's interface; "" for none
	description string // for the model: what the tool does, and when to use it
	args        []arg
	annotations map[string]bool // hints to clients (see annotations), written if set
	timeout     time.Duration   // how long run may take; 0 for no limit
	// run returns the tool's text, or an error whose text the model reads
	// as a result with "isError":true. A panic is an Internal error. ctx is
	// done when the client cancels the call, a signal stops mcp, or the
	// timeout passes; the reply waits for run to return all the same.
	run func(ctx context.Context, in arguments) (string, error)
}

// arg is one argument of a tool.
type arg struct {
	name        string
	kind        string   // a key of kinds
	description string   // for the model; "" for none
	choices     []string // a string's only values allowed; nil for any
	optional    bool     // it may be left out, and then reads as def
	def         any      // an optional one's value when left out, of its kind's Go type; nil: the zero value
}

// kinds are the kinds of argument: each one's JSON Schema, what a fault
// calls it, the Go type a tool reads it as, and, of a list, its items'.
var kinds = map[string]struct {
	schema             obj
	noun, goType, item string
}{
	"string":  {obj{{"type", "string"}}, "string", "string", ""},
	"number":  {obj{{"type", "number"}}, "number", "float64", ""},
	"integer": {obj{{"type", "integer"}}, "integer", "int", ""},
	"boolean": {obj{{"type", "boolean"}}, "boolean", "bool", ""},
	"strings": {obj{{"type", "array"}, {"items", obj{{"type", "string"}}}}, "list of strings", "[]string", "string"},
	"numbers": {obj{{"type", "array"}, {"items", obj{{"type", "number"}}}}, "list of numbers", "[]float64", "number"},
}

// tools is the catalogue, in tools/list order.
var tools = []tool{
	{name: "add", description: "Add two numbers", args: []arg{{name: "a", kind: "number"}, {name: "b", kind: "number"}}, run: runAdd},
	{name: "echo", description: "Echo text", args: []arg{{name: "text", kind: "string"}}, run: runEcho},
}

// runAdd returns a+b as JavaScript's String(a+b) writes it.
func runAdd(_ context.Context, in arguments) (string, error) {
	return formatNumber(in.number("a") + in.number("b")), nil
}

// runEcho returns the text as it came.
func runEcho(_ context.Context, in arguments) (string, error) {
	return in.text("text"), nil
}

// ==== The interface ====

// arguments are a call's arguments, checked, read as Go values; one left
// out reads as its default. Reading one not declared so panics.
type arguments struct {
	args   []arg
	first  [4]value // by args: the value given, checked, or none; in the
	more   []value  // struct, so that a call of up to 4 allocates nothing
	report func(progress, total float64, message string)
}

// progress reports how far the tool is: done so far, of total (0 if not
// known), and a message ("" for none). When the client asked for progress,
// it gets a notification at once; when done is not above the last, none.
func (in arguments) progress(done, total float64, message string) {
	if in.report != nil {
		in.report(done, total, message)
	}
}

// value returns the value given for t.args[i], or none.
func (in arguments) value(i int) value {
	if i < len(in.first) {
		return in.first[i]
	}
	return in.more[i-len(in.first)]
}

// text returns a string argument's text (see text in handlers.go: a lone
// surrogate is kept, as the three bytes WTF-8 gives it).
func (in arguments) text(name string) string { return read(in, name, "string", value.text) }

// number returns a number argument as JavaScript's Number() reads it.
func (in arguments) number(name string) float64 { return read(in, name, "number", value.number) }

// integer returns an integer argument, which is within ±(2^53-1).
func (in arguments) integer(name string) int {
	return read(in, name, "integer", func(v value) int { return int(v.number()) })
}

// boolean returns a boolean argument.
func (in arguments) boolean(name string) bool {
	return read(in, name, "boolean", func(v value) bool { return v.kind() == 't' })
}

// texts returns a list of strings argument, each read as text reads it.
func (in arguments) texts(name string) []string {
	return read(in, name, "strings", readList(value.text))
}

// numbers returns a list of numbers argument, each read as number does.
func (in arguments) numbers(name string) []float64 {
	return read(in, name, "numbers", readList(value.number))
}

// given reports whether the call gave the argument name.
func (in arguments) given(name string) bool { return in.value(in.index(name, "")).exists() }

// read returns the argument name, of the kind, read by parse, or its default.
func read[T any](in arguments, name, kind string, parse func(value) T) T {
	i := in.index(name, kind)
	if v := in.value(i); v.exists() {
		return parse(v)
	}
	def, _ := in.args[i].def.(T)
	return def
}

// readList returns a function that reads a JSON array's items by parse.
func readList[T any](parse func(value) T) func(value) []T {
	return func(v value) []T {
		list := []T{}
		for _, item := range v.items() {
			list = append(list, parse(item))
		}
		return list
	}
}

// index returns the index of the argument name, of the given kind (any,
// if ""); a tool that reads one it does not declare panics.
func (in arguments) index(name, kind string) int {
	i := slices.IndexFunc(in.args, func(a arg) bool { return a.name == name && (a.kind == kind || kind == "") })
	if i < 0 {
		panic(fmt.Sprintf("the tool reads %q, which it does not declare as %s", name, withArticle(cmp.Or(kind, "argument"))))
	}
	return i
}

// ==== Checking a call ====

// check checks args (a JSON object, or none) against the tool's
// arguments: the arguments to run it with, or its faults, all in one text.
func (t *tool) check(args value) (in arguments, faults string) {
	in = arguments{args: t.args, more: make([]value, max(0, len(t.args)-4))}
	var extra value // the first argument the tool does not take
	for k, v := range args.items() {
		if i := slices.IndexFunc(t.args, func(a arg) bool { return k.is(a.name) }); i < 0 && !extra.exists() {
			extra = k
		} else if i >= len(in.first) {
			in.more[i-len(in.first)] = v
		} else if i >= 0 {
			in.first[i] = v
		}
	}
	var b strings.Builder // the faults, each after "; "
	for i, a := range t.args {
		if v := in.value(i); !v.exists() && !a.optional {
			b.WriteString(`; missing required argument "` + a.name + `" (` + a.what(false) + ")")
		} else if got := a.fault(v); got != "" {
			b.WriteString(`; argument "` + a.name + `" must be ` + a.what(true) + got)
		}
	}
	if extra.exists() {
		b.WriteString(`; unexpected argument "`)
		writeText(&b, extra.raw()) // at once: it can be as long as the line
		var allowed []string
		for _, a := range t.args {
			allowed = append(allowed, a.name)
		}
		if allowed != nil {
			b.WriteString(`" (allowed: ` + strings.Join(allowed, ", ") + ")")
		} else {
			b.WriteString(`" (the tool takes no arguments)`)
		}
	}
	if b.Len() > 0 {
		return in, "Invalid arguments for tool " + t.name + ": " + b.String()[2:]
	}
	return in, ""
}

// what names the values a takes: "number" ("a number" with article),
// "list of strings", or `one of "c", "f"`.
func (a arg) what(article bool) string {
	if a.choices == nil && article {
		return withArticle(kinds[a.kind].noun)
	} else if a.choices == nil {
		return kinds[a.kind].noun
	}
	var quoted []string
	for _, c := range a.choices {
		quoted = append(quoted, quote(c))
	}
	return "one of " + strings.Join(quoted, ", ")
}

// fault says what is wrong with v, given for a (or none), after "must be
// a number" or the like: ", got string", say; or "" if nothing is. An
// integer has no fraction (Number.isInteger) and is within ±(2^53-1).
func (a arg) fault(v value) string {
	if !v.exists() || v.jsonType() == a.kind && a.choices == nil {
		return "" // most often
	}
	got, item := v.jsonType(), kinds[a.kind].item
	switch {
	case a.kind == "integer" && got == "number":
		if f := v.number(); math.IsInf(f, 0) || f != math.Trunc(f) {
			return ", got " + formatNumber(f)
		} else if math.Abs(f) > 1<<53-1 {
			return " within ±9007199254740991, got " + formatNumber(f)
		}
	case item != "" && got != "array":
		return ", got " + withArticle(got)
	case item != "":
		for _, e := range v.items() {
			if e.jsonType() != item {
				return ", got a list with " + withArticle(e.jsonType())
			}
		}
	case got != a.kind:
		return ", got " + got
	case a.choices != nil && !slices.ContainsFunc(a.choices, v.is):
		return ", got " + quote(v.text())
	}
	return ""
}

// findTool returns the tool whose name is the text of name, or nil: names
// match exactly, "A" is not "a".
func findTool(tools []tool, name value) *tool {
	if i := slices.IndexFunc(tools, func(t tool) bool { return name.is(t.name) }); i >= 0 {
		return &tools[i]
	}
	return nil
}

// ==== The catalogue ====

// annotations are the hints a tool may carry, in the specification's
// order.
var annotations = []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

// toolList is the entries of a tools/list result, each tool's and each
// property's members in the specification's order, those that are
// optional only when set.
func toolList(tools []tool) []any {
	list := []any{}
	for _, t := range tools {
		props, required, hints := obj{}, []string{}, obj{}
		for _, a := range t.args {
			p := slices.Clone(kinds[a.kind].schema)
			if a.choices != nil {
				p = append(p, member{"enum", a.choices})
			}
			if a.description != "" {
				p = append(p, member{"description", a.description})
			}
			if props = append(props, member{a.name, append(p, member{"default", a.def})}); !a.optional {
				required = append(required, a.name)
			}
		}
		entry := obj{{"name", t.name}}
		if t.title != "" {
			entry = append(entry, member{"title", t.title})
		}
		entry = append(entry, member{"description", t.description}, member{"inputSchema", obj{{"type", "object"},
			{"properties", props}, {"required", required}, {"additionalProperties", false}}})
		for _, h := range annotations {
			if v, ok := t.annotations[h]; ok {
				hints = append(hints, member{h, v})
			}
		}
		if len(hints) > 0 {
			entry = append(entry, member{"annotations", hints})
		}
		list = append(list, entry)
	}
	return list
}

// checkCatalogue returns the first mistake in the catalogues, which main
// reports at start: in a tool's name (the specification's rule), run,
// annotations or arguments (see check), or a URI used twice.
func checkCatalogue(tools []tool, resources []resource) error {
	for i, t := range tools {
		switch {
		case len(t.name) < 1 || len(t.name) > 128 || strings.Trim(t.name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.") != "":
			return fmt.Errorf("tool %q: a name is 1 to 128 of A-Z a-z 0-9 _ - .", t.name)
		case slices.ContainsFunc(tools[:i], func(o tool) bool { return o.name == t.name }):
			return fmt.Errorf("tool %q: the name is used twice", t.name)
		case t.run == nil:
			return fmt.Errorf("tool %q: no run function", t.name)
		case t.timeout < 0:
			return fmt.Errorf("tool %q: the timeout %v is negative", t.name, t.timeout)
		}
		for h := range t.annotations {
			if !slices.Contains(annotations, h) {
				return fmt.Errorf("tool %q: the annotation %q is not one of %s", t.name, h, strings.Join(annotations, ", "))
			}
		}
		for i, a := range t.args {
			if err := a.check(!slices.ContainsFunc(t.args[:i], func(o arg) bool { return o.name == a.name })); err != "" {
				return fmt.Errorf("tool %q, argument %q: %s", t.name, a.name, err)
			}
		}
	}
	for i, r := range resources {
		if slices.ContainsFunc(resources[:i], func(o resource) bool { return o.uri == r.uri }) {
			return fmt.Errorf("resource %q: the URI is used twice", r.uri)
		}
	}
	return nil
}

// check returns what is wrong with a, given whether its name is its own
// (not used twice), or "": its name, kind, choices or default.
func (a arg) check(own bool) string {
	_, known := kinds[a.kind]
	switch {
	case a.name == "" || len(a.name) > 128:
		return "an argument's name is 1 to 128 bytes"
	case !own:
		return "the name is used twice"
	case !known:
		return fmt.Sprintf("the kind %q is not one of string, number, integer, boolean, strings, numbers", a.kind)
	case a.choices != nil && (a.kind != "string" || len(a.choices) == 0):
		return "choices are one or more strings, of a string"
	case len(slices.Compact(slices.Sorted(slices.Values(a.choices)))) < len(a.choices):
		return "a choice is given twice"
	case a.def != nil && !a.optional:
		return "a default is for an optional argument"
	case a.def != nil && fmt.Sprintf("%T", a.def) != kinds[a.kind].goType:
		return fmt.Sprintf("the default %#v (%T) is not a %s, as a %s argument reads", a.def, a.def, kinds[a.kind].goType, a.kind)
	case a.def != nil && !json.Valid([]byte(quote(a.def))):
		return fmt.Sprintf("the default %v is not a number JSON can write", a.def)
	case a.def != nil && a.choices != nil && !slices.Contains(a.choices, a.def.(string)):
		return fmt.Sprintf("the default %q is not one of the choices", a.def)
	}
	return ""
}
