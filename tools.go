// This file is the tool catalogue, literal data, and what each tool does.
// A tool's inputSchema, its argument check and tools/list are all derived
// from the one entry, so they cannot disagree.

package main

import (
	"fmt"
	"strings"
)

// tool is one entry of the catalogue. Every argument is required and no
// other is allowed, which is what its inputSchema says.
type tool struct {
	name        string
	description string
	args        []arg
	// run appends the tool's text output to w, as the body of a JSON
	// string, given the raw JSON values of its arguments, checked against
	// args.
	run func(w *writer, vals [][]byte)
}

// arg is one argument: its name and JSON Schema type, "number" or "string".
type arg struct {
	name, kind string
}

// tools is the catalogue, in tools/list order.
var tools = []tool{
	{name: "add", description: "Add two numbers", args: []arg{{"a", "number"}, {"b", "number"}}, run: runAdd},
	{name: "echo", description: "Echo text", args: []arg{{"text", "string"}}, run: runEcho},
}

// runAdd writes a+b as JavaScript's String(a+b) would.
func runAdd(w *writer, vals [][]byte) {
	w.buf = appendNumber(w.buf, parseNumber(vals[0])+parseNumber(vals[1]))
}

// runEcho writes the text back as it was sent, in pieces if it is long.
func runEcho(w *writer, vals [][]byte) {
	w.appendText(vals[0][1 : len(vals[0])-1])
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

// appendProblems appends to w, as the body of a JSON string, what is
// wrong with the arguments: vals are the values given for t.args (nil if
// missing) and extra the first argument not in the schema (nil if none).
// It appends nothing when the arguments are valid.
func (t *tool) appendProblems(w *writer, vals [][]byte, extra []byte) {
	start := w.pos()
	problem := func(parts ...string) {
		if w.pos() == start {
			w.buf = append(append(append(w.buf, "Invalid arguments for tool "...), t.name...), ": "...)
		} else {
			w.buf = append(w.buf, "; "...)
		}
		for _, p := range parts {
			w.buf = append(w.buf, p...)
		}
	}
	for i, a := range t.args {
		switch v := vals[i]; {
		case v == nil:
			problem(`missing required argument \"`, a.name, `\" (`, a.kind, ")")
		case jsonType(v) != a.kind:
			problem(`argument \"`, a.name, `\" must be a `, a.kind, ", got ", jsonType(v))
		}
	}
	if extra != nil {
		problem(`unexpected argument \"`)
		w.appendText(extra[1 : len(extra)-1])
		w.buf = append(w.buf, `\" (allowed: `...)
		for i, a := range t.args {
			if i > 0 {
				w.buf = append(w.buf, ", "...)
			}
			w.buf = append(w.buf, a.name...)
		}
		w.buf = append(w.buf, ')')
	}
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

// toolList is `"tools":[...]`, the body of a tools/list result.
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
