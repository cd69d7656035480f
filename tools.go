// This file is the tool catalogue, literal data, and what each tool does.
// A tool's inputSchema, its argument check and tools/list are all derived
// from the one entry, so they cannot disagree.

package main

import (
	"math"
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
	// run appends the tool's text output to s.out, as the body of a JSON
	// string, given the raw JSON values of its arguments, checked against
	// args.
	run func(s *server, vals [][]byte)
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
func runAdd(s *server, vals [][]byte) {
	s.out = appendNumber(s.out, parseNumber(vals[0])+parseNumber(vals[1]))
}

// runEcho writes the text back as it was sent, in pieces if it is long.
func runEcho(s *server, vals [][]byte) {
	s.appendText(vals[0][1 : len(vals[0])-1])
}

// parseNumber reads a valid JSON number as JavaScript's Number() does: the
// double nearest to its decimal value (ties to even), whatever its length;
// out of range is ±Infinity or ±0, never an error.
//
// strconv.ParseFloat alone is not enough for long literals: its exact
// fallback keeps 800 digits and forgets the rest of the integer part, so
// 1 followed by 800 zeros and e-800 reads as 0.1, and it stops reading an
// exponent after a few digits, so 0.(9,692 zeros)9e100000 reads as 9e307
// (golang/go#42436). It is exact for any literal of at most
// shortNumber bytes, where neither can happen; longer ones are first
// normalised by shortenNumber.
func parseNumber(raw []byte) float64 {
	if len(raw) <= shortNumber {
		// Converting at most 32 bytes to a string here costs no
		// allocation: the compiler uses a buffer on the stack.
		f, _ := strconv.ParseFloat(string(raw), 64)
		return f
	}
	return parseLongNumber(raw)
}

// parseLongNumber is parseNumber for literals over shortNumber bytes.
func parseLongNumber(raw []byte) float64 {
	var buf [keptDigits + 32]byte
	short, inf := shortenNumber(buf[:0], raw)
	f := 0.0
	switch {
	case inf:
		f = math.Inf(1)
	case short != nil:
		f, _ = strconv.ParseFloat(string(short), 64)
	}
	return math.Copysign(f, boolSign(raw[0] == '-'))
}

// boolSign is -1 for true and 1 for false.
func boolSign(neg bool) float64 {
	if neg {
		return -1
	}
	return 1
}

// shortNumber is the longest literal that strconv.ParseFloat reads
// exactly as it is: 31 digits are far from its 800, and an exponent it
// stops reading at 10,000 cannot be brought back into range by a shift of
// at most 31 places.
const shortNumber = 32

// keptDigits is how many significant digits shortenNumber keeps. Every
// double, and every point halfway between two, is a decimal of at most 767
// significant digits; so the digits past 768 can only say whether the
// value is above such a point or exactly on it, and one sticky digit, 1 if
// any of them is not 0, says that. 768+1 digits fit ParseFloat's 800.
const keptDigits = 768

// shortenNumber writes the valid JSON number lit, without its sign, as
// "0.DDDe±E" with at most keptDigits+1 significant digits and an exponent
// computed exactly, to dst. It returns nil when the value is zero or
// rounds to zero, and inf when it is beyond the largest double, so that
// ParseFloat is only given exponents it reads whole.
func shortenNumber(dst, lit []byte) (short []byte, inf bool) {
	i := 0
	if lit[0] == '-' {
		i++
	}
	// point is where the decimal point falls, counted in digits from the
	// first significant one: the value is 0.DDD x 10^point.
	point, sig, sticky := int64(0), 0, false
	dst = append(dst, '0', '.')
	inInt := true
	for ; i < len(lit) && lit[i] != 'e' && lit[i] != 'E'; i++ {
		switch c := lit[i]; {
		case c == '.':
			inInt = false
		case c == '0' && sig == 0: // a leading zero
			if !inInt {
				point--
			}
		default:
			if inInt {
				point++
			}
			if sig < keptDigits {
				dst = append(dst, c)
			} else if c != '0' {
				sticky = true
			}
			sig++
		}
	}
	if sig == 0 {
		return nil, false
	}
	if sticky {
		dst = append(dst, '1')
	}
	exp := point + readExponent(lit[i:])
	// 0.1 x 10^310 is over the largest double (1.8e308); 10^-324 is under
	// half the smallest (4.9e-324), so it rounds to zero.
	switch {
	case exp > 310:
		return nil, true
	case exp < -324:
		return nil, false
	}
	dst = append(dst, 'e')
	return strconv.AppendInt(dst, exp, 10), false
}

// readExponent returns the value of the exponent part ("e-12", or empty
// for none) of a valid JSON number, saturating far beyond any exponent
// that matters so that no number of digits can overflow it.
func readExponent(e []byte) int64 {
	if len(e) == 0 {
		return 0
	}
	e = e[1:]
	neg := e[0] == '-'
	if e[0] == '-' || e[0] == '+' {
		e = e[1:]
	}
	var x int64
	for _, c := range e {
		if x < 1<<50 { // past any literal's length: the value is out of range
			x = x*10 + int64(c-'0')
		}
	}
	if neg {
		return -x
	}
	return x
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

// appendProblems appends to s.out, as the body of a JSON string, what is wrong with
// the arguments: vals are the values given for t.args (nil if missing) and
// extra the first argument not in the schema (nil if none). It appends
// nothing when the arguments are valid.
func (t *tool) appendProblems(s *server, vals [][]byte, extra []byte) {
	start := s.pos()
	sep := func() {
		if s.pos() == start {
			s.out = append(s.out, "Invalid arguments for tool "...)
			s.out = append(s.out, t.name...)
			s.out = append(s.out, ": "...)
		} else {
			s.out = append(s.out, "; "...)
		}
	}
	for i, a := range t.args {
		v := vals[i]
		switch {
		case v == nil:
			sep()
			s.out = append(s.out, `missing required argument \"`...)
			s.out = append(s.out, a.name...)
			s.out = append(s.out, `\" (`...)
			s.out = append(s.out, a.kind...)
			s.out = append(s.out, ')')
		case jsonType(v) != a.kind:
			sep()
			s.out = append(s.out, `argument \"`...)
			s.out = append(s.out, a.name...)
			s.out = append(s.out, `\" must be a `...)
			s.out = append(s.out, a.kind...)
			s.out = append(s.out, ", got "...)
			s.out = append(s.out, jsonType(v)...)
		}
	}
	if extra != nil {
		sep()
		s.out = append(s.out, `unexpected argument \"`...)
		s.appendText(extra[1 : len(extra)-1])
		s.out = append(s.out, `\" (allowed: `...)
		for i, a := range t.args {
			if i > 0 {
				s.out = append(s.out, ", "...)
			}
			s.out = append(s.out, a.name...)
		}
		s.out = append(s.out, ')')
	}
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
