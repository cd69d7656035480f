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
	// run returns the tool's text, as the body of a JSON string (escaped:
	// appendPlain makes text of the tool's own one; a string argument's
	// body is one already), and whether the text reports an error. args
	// are the raw JSON values of the arguments, in the order of t.args,
	// checked against them; dst is space it may append its text to.
	run func(dst []byte, args [][]byte) (text []byte, isError bool)
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

// runAdd returns a+b as JavaScript's String(a+b) would.
func runAdd(dst []byte, args [][]byte) ([]byte, bool) {
	return appendNumber(dst, parseNumber(args[0])+parseNumber(args[1])), false
}

// runEcho returns the text as it was sent: a slice of the request, which
// the encoder writes in pieces if it is long.
func runEcho(_ []byte, args [][]byte) ([]byte, bool) {
	return args[0][1 : len(args[0])-1], false
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

// problems appends to dst, as the body of a JSON string, what is wrong
// with the arguments, and returns it: nothing when they are valid. vals
// are the values given for t.args (nil if missing) and extra the key of
// the first argument not in the schema (nil if none), whose body is
// copied as it came.
func (t *tool) problems(dst []byte, vals [][]byte, extra []byte) []byte {
	start := len(dst)
	problem := func(parts ...string) {
		if len(dst) == start {
			dst = append(appendPlain(append(dst, "Invalid arguments for tool "...), t.name), ": "...)
		} else {
			dst = append(dst, "; "...)
		}
		for _, p := range parts {
			dst = appendPlain(dst, p)
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
		dst = append(dst, extra[1:len(extra)-1]...)
		dst = appendPlain(dst, `" (allowed: `)
		for i, a := range t.args {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendPlain(dst, a.name)
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
