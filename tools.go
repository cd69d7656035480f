// This file is the tool catalogue and the interface a tool is written
// against: a tool gets its arguments as Go values, already checked, and
// returns plain text, or an error for the model to read; the server reads
// and writes the JSON.

package main

import (
	"fmt"
	"strings"
)

// tool is one entry of the catalogue: tools/list, the arguments' check
// and the help text all come from it.
type tool struct {
	name        string
	description string
	args        []arg
	// run returns the tool's text, or an error whose text the model reads
	// as a result with "isError":true. If it panics, the call gets
	// Internal error, and the session goes on.
	run func(in arguments) (string, error)
}

// arg is one argument: its name and its kind, the JSON Schema type
// "string", "number" or "boolean". Every argument is required, and no
// other is allowed.
type arg struct {
	name string
	kind string
}

// tools is the catalogue, in tools/list order.
var tools = []tool{
	{name: "add", description: "Add two numbers", args: []arg{{name: "a", kind: "number"}, {name: "b", kind: "number"}}, run: runAdd},
	{name: "echo", description: "Echo text", args: []arg{{name: "text", kind: "string"}}, run: runEcho},
}

// runAdd returns a+b as JavaScript's String(a+b) writes it.
func runAdd(in arguments) (string, error) {
	return formatNumber(in.number("a") + in.number("b")), nil
}

// runEcho returns the text as it came.
func runEcho(in arguments) (string, error) {
	return in.text("text"), nil
}

// ==== The interface ====

// arguments are a call's arguments, read as Go values, each present and
// of its kind. Asking for one the tool does not declare, or as another
// kind, panics.
type arguments struct {
	args []arg
	obj  []byte // the JSON object given, checked against args
}

// text returns a string argument's text (see text in handlers.go: a lone
// surrogate that the client sent is kept, as the three bytes WTF-8 gives
// it).
func (in arguments) text(name string) string { return text(in.value(name, "string")) }

// number returns a number argument as JavaScript's Number() reads it.
func (in arguments) number(name string) float64 { return parseNumber(in.value(name, "number")) }

// boolean returns a boolean argument.
func (in arguments) boolean(name string) bool { return in.value(name, "boolean")[0] == 't' }

// value returns the argument name, of the given kind, as the JSON given.
func (in arguments) value(name, kind string) []byte {
	for _, a := range in.args {
		if a.name == name && a.kind == kind {
			return member(in.obj, name)
		}
	}
	panic(fmt.Sprintf("the tool reads the %s argument %q, which it does not declare", kind, name))
}

// call checks args, the call's arguments (a JSON object, or nil for none),
// and runs the tool with them: its text, and whether that reports an
// error. Every fault of the arguments is told in one text, for the model.
func (t *tool) call(args []byte) (text string, isError bool) {
	var small [8][]byte // the values given, by t.args, found in one walk
	given := small[:0]  // (on the stack, for up to 8 arguments)
	for range t.args {
		given = append(given, nil)
	}
	var extra []byte // the first argument the tool does not take
	if args != nil {
		for k, v := range members(args) {
			if i := t.argIndex(nameOf(k)); i >= 0 {
				given[i] = v
			} else if extra == nil {
				extra = k
			}
		}
	}
	var b strings.Builder
	problem := func(parts ...string) {
		if b.Len() == 0 {
			b.WriteString("Invalid arguments for tool " + t.name + ": ")
		} else {
			b.WriteString("; ")
		}
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	for i, a := range t.args {
		switch v := given[i]; {
		case v == nil:
			problem(`missing required argument "`, a.name, `" (`, a.kind, ")")
		case jsonType(v) != a.kind:
			problem(`argument "`, a.name, `" must be a `, a.kind, ", got ", jsonType(v))
		}
	}
	if extra != nil {
		problem(`unexpected argument "`)
		writeText(&b, extra) // at once: it can be as long as the line
		b.WriteString(`" (allowed: ` + strings.Join(t.argNames(), ", ") + ")")
	}
	if b.Len() > 0 {
		return b.String(), true
	}
	text, err := t.run(arguments{t.args, args})
	if err != nil {
		return err.Error(), true
	}
	return text, false
}

// argIndex returns the index of the argument named name, or -1: names
// match exactly, "A" is not "a".
func (t *tool) argIndex(name []byte) int {
	for i, a := range t.args {
		if string(name) == a.name {
			return i
		}
	}
	return -1
}

// argNames returns the names of t's arguments.
func (t *tool) argNames() []string {
	var names []string
	for _, a := range t.args {
		names = append(names, a.name)
	}
	return names
}

// findTool returns the tool named name, or nil.
func findTool(tools []tool, name []byte) *tool {
	for i := range tools {
		if tools[i].name == string(name) {
			return &tools[i]
		}
	}
	return nil
}

// toolList is `"tools":[...]`, the members of a tools/list result.
func toolList(tools []tool) string {
	var list []string
	for _, t := range tools {
		var props []string
		for _, a := range t.args {
			props = append(props, quote(a.name)+`:{"type":`+quote(a.kind)+`}`)
		}
		list = append(list, `{"name":`+quote(t.name)+`,"description":`+quote(t.description)+
			`,"inputSchema":{"type":"object","properties":{`+strings.Join(props, ",")+
			`},"required":`+quoteList(t.argNames())+`,"additionalProperties":false}}`)
	}
	return `"tools":[` + strings.Join(list, ",") + "]"
}

// checkCatalogue returns the first mistake in the catalogues, which main
// reports at start: a tool name outside the specification's rule (1 to
// 128 of A-Z a-z 0-9 _ - .), a name or a URI used twice, an argument of a
// kind no tool can read, a missing run function.
func checkCatalogue(tools []tool, resources []resource) error {
	seen := map[string]bool{}
	for _, t := range tools {
		switch {
		case len(t.name) < 1 || len(t.name) > 128 || strings.Trim(t.name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.") != "":
			return fmt.Errorf("tool %q: a name is 1 to 128 of A-Z a-z 0-9 _ - .", t.name)
		case seen["tool "+t.name]:
			return fmt.Errorf("tool %q: the name is used twice", t.name)
		case t.run == nil:
			return fmt.Errorf("tool %q: no run function", t.name)
		}
		seen["tool "+t.name] = true
		for i, a := range t.args {
			switch {
			case a.kind != "string" && a.kind != "number" && a.kind != "boolean":
				return fmt.Errorf("tool %q, argument %q: the kind %q is not string, number or boolean", t.name, a.name, a.kind)
			case a.name == "" || len(a.name) > 128:
				return fmt.Errorf("tool %q: an argument's name is 1 to 128 bytes", t.name)
			case t.argIndex([]byte(a.name)) != i:
				return fmt.Errorf("tool %q, argument %q: the name is used twice", t.name, a.name)
			}
		}
	}
	for _, r := range resources {
		if seen["uri "+r.uri] {
			return fmt.Errorf("resource %q: the URI is used twice", r.uri)
		}
		seen["uri "+r.uri] = true
	}
	return nil
}
