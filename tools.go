// This file is the tool catalogue and the interface a tool is written
// against: a tool gets its arguments decoded, as Go values, and returns
// plain text; the server checks the arguments before and escapes the text
// after, so a tool never sees JSON.

package main

import (
	"fmt"
	"slices"
	"strings"
)

// tool is one entry of the catalogue. Its inputSchema, its argument check
// and tools/list all come from it: every argument is required and no
// other is allowed.
type tool struct {
	name        string
	description string
	args        []arg
	// run returns the tool's result, given its arguments, which have been
	// checked against args. If it panics, the call gets Internal error.
	run func(in arguments) toolResult
}

// arg is one argument: its name and its kind, the JSON Schema type
// "string", "number" or "boolean".
type arg struct {
	name, kind string
}

// tools is the catalogue, in tools/list order.
var tools = []tool{
	{name: "add", description: "Add two numbers", args: []arg{{"a", "number"}, {"b", "number"}}, run: runAdd},
	{name: "echo", description: "Echo text", args: []arg{{"text", "string"}}, run: runEcho},
}

// runAdd returns a+b, written as JavaScript's String(a+b) writes it.
func runAdd(in arguments) toolResult {
	return numberResult(in.number("a") + in.number("b"))
}

// runEcho returns the text as it was sent, copied from the request to the
// reply without a copy of its own, however long it is.
func runEcho(in arguments) toolResult {
	return in.unchanged("text")
}

// ==== The interface ====

// arguments are a tool call's arguments, read by name. Each is present and
// of the kind its arg says; asking for one the tool does not declare, or
// as another kind, panics. They are slices of the request line: a tool
// must not keep them past its return.
type arguments struct {
	args []arg
	vals [][]byte // the raw JSON values, in the order of args
}

// number returns a number argument as JavaScript's Number() reads it: the
// nearest double, whatever its length; out of range is ±Infinity or ±0.
func (in arguments) number(name string) float64 {
	return parseNumber(in.value(name, "number"))
}

// text returns a string argument's text. It is UTF-8, but a lone
// surrogate the client sent (\ud800) is kept as the three bytes WTF-8
// gives it, so that the text comes back as it went: concatenation,
// slicing and strings.Replace keep it; a function that decodes text rune
// by rune, such as strings.ToUpper, reads those bytes as three U+FFFD.
func (in arguments) text(name string) string {
	v := in.value(name, "string")
	return string(unquote(nil, v[1:len(v)-1]))
}

// boolean returns a boolean argument.
func (in arguments) boolean(name string) bool {
	return in.value(name, "boolean")[0] == 't'
}

// unchanged returns a string argument, as it came, as the tool's text:
// the writer copies it from the request line, escapes and all, in pieces.
func (in arguments) unchanged(name string) toolResult {
	v := in.value(name, "string")
	return toolResult{form: fromRequest, text: v[1 : len(v)-1]}
}

// value returns the raw JSON value of the argument name, of the given kind.
func (in arguments) value(name, kind string) []byte {
	for i, a := range in.args {
		if a.name == name && a.kind == kind {
			return in.vals[i]
		}
	}
	panic(fmt.Sprintf("the tool asks for the %s argument %q, which it does not declare", kind, name))
}

// toolResult is what a tool returns, made by textResult, errorResult or
// numberResult, or by arguments.unchanged. The zero value is none: a tool
// that returns it gets Internal error.
type toolResult struct {
	form    textForm
	text    []byte  // plainText: the text; fromRequest: the body of a JSON string from the request
	number  float64 // numberText: the number
	isError bool    // the text reports an error
}

// textForm is how a toolResult holds its text.
type textForm int

const (
	noText      textForm = iota // no result at all
	plainText                   // text, escaped when written
	fromRequest                 // a JSON string's body from the request, validated by the scan
	numberText                  // a number, written as String(n)
)

// textResult returns text as a tool's result: any bytes, written as
// JSON.stringify writes the string JavaScript reads from them (see
// appendBody). A lone surrogate from arguments.text comes back as \udxxx.
func textResult(text string) toolResult {
	return toolResult{form: plainText, text: []byte(text)}
}

// errorResult returns text as a tool's result that reports an error
// ("isError":true), for the model to read and correct its call.
func errorResult(text string) toolResult {
	r := textResult(text)
	r.isError = true
	return r
}

// numberResult returns f, written as JavaScript's String(f), as a tool's
// result: 6.5, 1e+21, Infinity.
func numberResult(f float64) toolResult {
	return toolResult{form: numberText, number: f}
}

// ==== Checking the catalogue and the arguments ====

// checkCatalogue reports the first mistake in the catalogues of tools and
// resources, which main reports at start, before serving anything: a tool
// name outside the specification's rule, a name used twice, an argument
// of a kind a tool cannot read, a missing run function.
func checkCatalogue() error {
	names := map[string]bool{}
	for _, t := range tools {
		switch {
		case !validToolName(t.name):
			return fmt.Errorf("tool %q: a name is 1 to 128 of A-Z a-z 0-9 _ - .", t.name)
		case names[t.name]:
			return fmt.Errorf("tool %q: the name is used twice", t.name)
		case t.run == nil:
			return fmt.Errorf("tool %q: no run function", t.name)
		}
		names[t.name] = true
		argNames := map[string]bool{}
		for _, a := range t.args {
			switch {
			case a.kind != "string" && a.kind != "number" && a.kind != "boolean":
				return fmt.Errorf("tool %q, argument %q: the kind %q is not string, number or boolean", t.name, a.name, a.kind)
			case a.name == "" || len(a.name) > maxName:
				return fmt.Errorf("tool %q: an argument name is 1 to %d bytes", t.name, maxName)
			case argNames[a.name]:
				return fmt.Errorf("tool %q, argument %q: the name is used twice", t.name, a.name)
			}
			argNames[a.name] = true
		}
	}
	uris := map[string]bool{}
	for _, r := range resources {
		switch {
		case r.uri == "" || len(r.uri) > maxName:
			return fmt.Errorf("resource %q: a URI is 1 to %d bytes", r.uri, maxName)
		case uris[r.uri]:
			return fmt.Errorf("resource %q: the URI is used twice", r.uri)
		}
		uris[r.uri] = true
	}
	return nil
}

// validToolName reports whether name follows the specification's rule for
// tool names: 1 to 128 characters, each an ASCII letter or digit, '_',
// '-' or '.'.
func validToolName(name string) bool {
	if len(name) < 1 || len(name) > 128 {
		return false
	}
	for _, c := range []byte(name) {
		if !isDigit(c) && (c|0x20 < 'a' || c|0x20 > 'z') && c != '_' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// findTool returns the tool with the given name, or nil.
func findTool(name []byte) *tool {
	for i := range tools {
		if string(name) == tools[i].name {
			return &tools[i]
		}
	}
	return nil
}

// argIndex returns the index of the argument with the given name, or -1.
// Names match exactly: "A" is not "a".
func (t *tool) argIndex(name []byte) int {
	for i, a := range t.args {
		if string(name) == a.name {
			return i
		}
	}
	return -1
}

// problems appends to dst, as plain text, what is wrong with the
// arguments, and returns it: nothing when they are valid. vals are the
// values given for t.args (nil if missing) and extra the key of the first
// argument not in the schema (nil if none), which is decoded into dst.
func (t *tool) problems(dst []byte, vals [][]byte, extra []byte) []byte {
	start := len(dst)
	problem := func(parts ...string) {
		if len(dst) == start {
			dst = append(append(append(dst, "Invalid arguments for tool "...), t.name...), ": "...)
		} else {
			dst = append(dst, "; "...)
		}
		for _, p := range parts {
			dst = append(dst, p...)
		}
	}
	for i, a := range t.args {
		switch v := vals[i]; {
		case v == nil:
			problem(`missing required argument "`, a.name, `" (`, a.kind, ")")
		case jsonType(v) != a.kind:
			problem(`argument "`, a.name, `" must be a `, a.kind, ", got ", jsonType(v))
		}
	}
	if extra != nil {
		problem(`unexpected argument "`)
		dst = unquote(slices.Grow(dst, len(extra)), extra[1:len(extra)-1]) // once, for a long one
		dst = append(dst, `" (allowed: `...)
		for i, a := range t.args {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = append(dst, a.name...)
		}
		dst = append(dst, ')')
	}
	return dst
}

// jsonType names the JSON Schema type of a valid JSON value.
func jsonType(v []byte) string {
	if t := jsonTypes[v[0]]; t != "" {
		return t
	}
	return "number"
}

// jsonTypes are the types of the JSON values that start with each byte
// but numbers.
var jsonTypes = [256]string{'"': "string", '{': "object", '[': "array", 't': "boolean", 'f': "boolean", 'n': "null"}

// toolList is `"tools":[...]`, the members of a tools/list result.
func toolList() string {
	var list []string
	for _, t := range tools {
		var props, names []string
		for _, a := range t.args {
			props = append(props, quote(a.name)+`:{"type":`+quote(a.kind)+`}`)
			names = append(names, a.name)
		}
		list = append(list, fmt.Sprintf(`{"name":%s,"description":%s,"inputSchema":{"type":"object","properties":{%s},"required":%s,"additionalProperties":false}}`,
			quote(t.name), quote(t.description), strings.Join(props, ","), quoteList(names)))
	}
	return `"tools":[` + strings.Join(list, ",") + "]"
}
