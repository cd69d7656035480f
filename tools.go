// This file is the tool catalogue, literal data, and what each tool does.
// A tool's inputSchema, its argument check and tools/list are all derived
// from the one entry, so they cannot disagree.

package main

import (
	"slices"
	"strconv"
)

// maxArgs is the most arguments any tool takes.
const maxArgs = 2

// tool is one entry of the catalogue. Every argument is required and no
// other is allowed, which is what its inputSchema says.
type tool struct {
	name        string
	description string
	args        []arg
	// run appends the tool's text output, as the body of a JSON string,
	// given the raw JSON values of its arguments, checked against args.
	run func(dst []byte, vals [][]byte) []byte
}

// arg is one argument: its name and JSON Schema type, "number" or "string".
type arg struct {
	name, kind string
}

// tools is the catalogue, in tools/list order.
var tools = []tool{
	{
		name:        "add",
		description: "Add two numbers",
		args:        []arg{{"a", "number"}, {"b", "number"}},
		run:         runAdd,
	},
	{
		name:        "echo",
		description: "Echo text",
		args:        []arg{{"text", "string"}},
		run:         runEcho,
	},
}

// runAdd writes a+b as JavaScript's String(a+b) would.
func runAdd(dst []byte, vals [][]byte) []byte {
	return appendNumber(dst, parseNumber(vals[0])+parseNumber(vals[1]))
}

// runEcho writes the text back as it was sent.
func runEcho(dst []byte, vals [][]byte) []byte {
	body := vals[0][1 : len(vals[0])-1]
	// Room for the usual case, an unescaped text, in one step: a huge text
	// must not be copied again and again as the buffer grows.
	dst = slices.Grow(dst, len(body)+64)
	return appendStringBody(dst, body)
}

// parseNumber reads a valid JSON number as JavaScript's Number() does:
// out of range is ±Infinity or ±0, never an error.
func parseNumber(raw []byte) float64 {
	f, _ := strconv.ParseFloat(string(raw), 64)
	return f
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

// appendProblems appends, as the body of a JSON string, what is wrong with
// the arguments: vals are the values given for t.args (nil if missing) and
// extra the first argument not in the schema (nil if none). It appends
// nothing when the arguments are valid.
func (t *tool) appendProblems(dst []byte, vals [][]byte, extra []byte) []byte {
	start := len(dst)
	sep := func() {
		if len(dst) == start {
			dst = append(dst, "Invalid arguments for tool "...)
			dst = append(dst, t.name...)
			dst = append(dst, ": "...)
		} else {
			dst = append(dst, "; "...)
		}
	}
	for i, a := range t.args {
		v := vals[i]
		switch {
		case v == nil:
			sep()
			dst = append(dst, `missing required argument \"`...)
			dst = append(dst, a.name...)
			dst = append(dst, `\" (`...)
			dst = append(dst, a.kind...)
			dst = append(dst, ')')
		case jsonType(v) != a.kind:
			sep()
			dst = append(dst, `argument \"`...)
			dst = append(dst, a.name...)
			dst = append(dst, `\" must be a `...)
			dst = append(dst, a.kind...)
			dst = append(dst, ", got "...)
			dst = append(dst, jsonType(v)...)
		}
	}
	if extra != nil {
		sep()
		dst = append(dst, `unexpected argument \"`...)
		dst = appendStringBody(dst, extra[1:len(extra)-1])
		dst = append(dst, `\" (allowed: `...)
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
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// appendToolList appends `"tools":[...]`, the body of a tools/list result.
func appendToolList(dst []byte) []byte {
	dst = append(dst, `"tools":[`...)
	for i, t := range tools {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"name":`...)
		dst = appendQuoted(dst, t.name)
		dst = append(dst, `,"description":`...)
		dst = appendQuoted(dst, t.description)
		dst = append(dst, `,"inputSchema":{"type":"object","properties":{`...)
		for j, a := range t.args {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = appendQuoted(dst, a.name)
			dst = append(dst, `:{"type":`...)
			dst = appendQuoted(dst, a.kind)
			dst = append(dst, '}')
		}
		dst = append(dst, `},"required":[`...)
		for j, a := range t.args {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = appendQuoted(dst, a.name)
		}
		dst = append(dst, `],"additionalProperties":false}}`...)
	}
	return append(dst, ']')
}
