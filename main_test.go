// Tests of mcp, black-box first: every testdata/NAME.in is piped through
// the real binary and its stdout compared byte for byte with NAME.out
// (go test -update rewrites the .out files). Table tests pin the JSON
// encoder against JavaScript's rules, fuzz tests check properties of the
// serve loop and compare the hand-written JSON reader with encoding/json,
// and benchmarks measure the serve loop and the binary.

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite testdata/*.out from the binary's output")

// mcpBinary is the mcp binary built once for the whole test run.
var mcpBinary string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "mcp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mcpBinary = filepath.Join(dir, "mcp")
	build := exec.Command("go", "build", "-o", mcpBinary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building mcp:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runBinary pipes stdin through the built binary with args and returns its
// stdout and stderr; a non-zero exit fails the test.
func runBinary(t testing.TB, stdin []byte, args ...string) (stdout, stderr []byte) {
	t.Helper()
	cmd := exec.Command(mcpBinary, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcp %s: %v\nstderr: %s", strings.Join(args, " "), err, errb.Bytes())
	}
	return out.Bytes(), errb.Bytes()
}

// TestGolden pipes each testdata/NAME.in through the binary and compares
// stdout with NAME.out. NAME.flags, if present, holds the command's flags.
// Without -v the server must write nothing to stderr.
func TestGolden(t *testing.T) {
	ins, _ := filepath.Glob("testdata/*.in")
	if len(ins) == 0 {
		t.Fatal("no testdata/*.in")
	}
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".in")
		t.Run(name, func(t *testing.T) {
			input, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var args []string
			if f, err := os.ReadFile(strings.TrimSuffix(in, ".in") + ".flags"); err == nil {
				args = strings.Fields(string(f))
			}
			got, stderr := runBinary(t, input, args...)
			if len(stderr) > 0 && !contains(args, "-v") {
				t.Errorf("stderr not empty: %q", stderr)
			}
			golden := strings.TrimSuffix(in, ".in") + ".out"
			if *update {
				old, err := os.ReadFile(golden)
				if err != nil || !bytes.Equal(old, got) {
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
					t.Logf("rewrote %s", golden)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: output differs from %s\n%s", in, golden, firstDiff(input, got, want))
			}
		})
	}
}

// TestExamples checks the course's own examples, when ../shared is there.
// The same pairs are copied into testdata, so this only guards the copy.
func TestExamples(t *testing.T) {
	ins, _ := filepath.Glob("../shared/examples/*.in")
	if len(ins) == 0 {
		t.Skip("no ../shared/examples")
	}
	for _, in := range ins {
		input, _ := os.ReadFile(in)
		want, _ := os.ReadFile(strings.TrimSuffix(in, ".in") + ".out")
		got, _ := runBinary(t, input)
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n%s", in, firstDiff(input, got, want))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// firstDiff describes the first line where got and want differ.
func firstDiff(input, got, want []byte) string {
	g := strings.SplitAfter(string(got), "\n")
	w := strings.SplitAfter(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("first difference at output line %d\ngot:  %q\nwant: %q\n(input:\n%s)", i+1, gl, wl, clip(string(input), 2000))
		}
	}
	return "no difference"
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// serveString runs the serve loop in-process on input.
func serveString(t testing.TB, input string) string {
	t.Helper()
	var out bytes.Buffer
	if err := serve(strings.NewReader(input), &out); err != nil {
		t.Fatalf("serve: %v", err)
	}
	return out.String()
}

// TestNumberFormat pins appendNumber to JavaScript's String(n) (ECMAScript
// Number::toString), boundaries of the decimal and exponent forms first.
func TestNumberFormat(t *testing.T) {
	tenth := 0.1
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1, "1"},
		{-1, "-1"},
		{5, "5"},
		{6.5, "6.5"},
		{-6.5, "-6.5"},
		{tenth + 2*tenth, "0.30000000000000004"}, // in float64, not constant arithmetic
		{2000000, "2000000"},
		{123456789, "123456789"},
		{1e20, "100000000000000000000"},
		{999999999999999900000, "999999999999999900000"},
		{1e21, "1e+21"},
		{-1e21, "-1e+21"},
		{1.5e21, "1.5e+21"},
		{1e22, "1e+22"},
		{123e20, "1.23e+22"},
		{0.000001, "0.000001"},
		{0.0000015, "0.0000015"},
		{-0.000001, "-0.000001"},
		{1e-7, "1e-7"},
		{1.5e-10, "1.5e-10"},
		{-1.5e-10, "-1.5e-10"},
		{0.1, "0.1"},
		{0.5, "0.5"},
		{1.25, "1.25"},
		{100.125, "100.125"},
		{1 / 3.0, "0.3333333333333333"},
		{2 / 3.0, "0.6666666666666666"},
		{5e-324, "5e-324"},
		{-5e-324, "-5e-324"},
		{2.2250738585072014e-308, "2.2250738585072014e-308"},
		{1.7976931348623157e308, "1.7976931348623157e+308"},
		{1<<53 + 1, "9007199254740992"},
		{1 << 53, "9007199254740992"},
		{1<<53 - 1, "9007199254740991"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
		{math.NaN(), "NaN"},
		{4.35, "4.35"},
		{0.000123, "0.000123"},
		{1e-6 * 9.99, "0.00000999"},
		{12345678901234567890, "12345678901234567000"},
		{1.0000000000000002, "1.0000000000000002"},
		{100, "100"},
		{1e300 * 10, "1e+301"},
	}
	for _, tt := range tests {
		if got := string(appendNumber(nil, tt.in)); got != tt.want {
			t.Errorf("appendNumber(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestStringEncoding pins the string encoder to JSON.stringify: no HTML
// escaping, U+2028/U+2029 and U+007F raw, short escapes by name, other
// controls as lowercase \u00xx, lone surrogates kept as escapes, and bytes
// that are not UTF-8 as U+FFFD (one per maximal invalid subpart).
func TestStringEncoding(t *testing.T) {
	tests := []struct{ lit, want string }{
		{`"hola"`, `"hola"`},
		{`"<b>&amp;</b>"`, `"<b>&amp;</b>"`},
		{"\"\u2028\u2029\x7f\"", "\"\u2028\u2029\x7f\""},
		{`"\u2028\u2029"`, "\"\u2028\u2029\""},
		{`"\u003c\u003E\u0026"`, `"<>&"`},
		{`"\/"`, `"/"`},
		{`"\b\f\n\r\t"`, `"\b\f\n\r\t"`},
		{`"\u0000\u001F\u000b\u007f"`, "\"\\u0000\\u001f\\u000b\x7f\""},
		{`"\"\\"`, `"\"\\"`},
		{`"\ud800"`, `"\ud800"`},
		{`"\uDC00x"`, `"\udc00x"`},
		{`"\ud800\ud800"`, `"\ud800\ud800"`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`"\ud83d\u0041"`, `"\ud83dA"`},
		{`"\ude00\ud83d"`, `"\ude00\ud83d"`},
		{"\"\xff\"", "\"\uFFFD\""},
		{"\"a\xe2\x82b\"", "\"a\uFFFDb\""},             // truncated 3-byte sequence: one U+FFFD
		{"\"\xed\xa0\x80\"", "\"\uFFFD\uFFFD\uFFFD\""}, // encoded surrogate: not UTF-8
		{"\"\xf0\x9f\x98\"", "\"\uFFFD\""},
		{"\"\xc0\xaf\"", "\"\uFFFD\uFFFD\""},
		{"\"ñandú 中文 😀\"", "\"ñandú 中文 😀\""},
		{`"\u00f1"`, `"ñ"`},
	}
	for _, tt := range tests {
		if got := string(appendString(nil, []byte(tt.lit))); got != tt.want {
			t.Errorf("appendString(%q) = %q, want %q", tt.lit, got, tt.want)
		}
	}
}

// TestEncodingDiffersFromStdlib documents why the encoder is ours:
// encoding/json's defaults write these strings differently from
// JSON.stringify, and ours must not.
func TestEncodingDiffersFromStdlib(t *testing.T) {
	for _, s := range []string{"<a>&", "\u2028", "\u2029"} {
		std, _ := json.Marshal(s)
		ours := appendQuoted(nil, s)
		if bytes.Equal(std, ours) {
			t.Errorf("%q: encoding/json now agrees (%s); the comment on the encoder is stale", s, std)
		}
		if !bytes.Equal(ours, []byte(`"`+s+`"`)) {
			t.Errorf("appendQuoted(%q) = %s, want the raw text", s, ours)
		}
	}
}

// TestCaseSensitiveMembers: encoding/json matches struct fields without
// regard to case; JSON-RPC and JSON Schema do not.
func TestCaseSensitiveMembers(t *testing.T) {
	var v struct{ Method string }
	json.Unmarshal([]byte(`{"METHOD":"x"}`), &v)
	if v.Method != "x" {
		t.Fatal("encoding/json became case-sensitive; update the comment")
	}
	got := serveString(t, `{"jsonrpc":"2.0","id":1,"Method":"ping"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"A":1,"b":2}}}`+"\n")
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request"}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Invalid arguments for tool add: missing required argument \"a\" (number); unexpected argument \"A\" (allowed: a, b)"}],"isError":true}}` + "\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// FuzzServe checks properties of the serve loop on arbitrary input: it
// never panics; every output line is valid JSON, a reply object (or a
// batch of them) with "jsonrpc":"2.0"; and there are never more reply
// lines than input lines.
func FuzzServe(f *testing.F) {
	ins, _ := filepath.Glob("testdata/*.in")
	for _, in := range ins {
		b, _ := os.ReadFile(in)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var out bytes.Buffer
		if err := serve(bytes.NewReader(input), &out); err != nil {
			t.Fatal(err)
		}
		lines := bytes.Count(input, []byte("\n")) + 1
		replies := 0
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 1<<30)
		for sc.Scan() {
			replies++
			line := sc.Bytes()
			if !utf8.Valid(line) {
				t.Fatalf("reply is not UTF-8: %q", line)
			}
			var one map[string]json.RawMessage
			var many []map[string]json.RawMessage
			if json.Unmarshal(line, &one) == nil {
				many = append(many, one)
			} else if err := json.Unmarshal(line, &many); err != nil || len(many) == 0 {
				t.Fatalf("reply is not a JSON object or a non-empty array of them: %q", line)
			}
			for _, m := range many {
				if string(m["jsonrpc"]) != `"2.0"` {
					t.Fatalf("reply without \"jsonrpc\":\"2.0\": %q", line)
				}
			}
		}
		if replies > lines {
			t.Fatalf("%d replies to %d lines", replies, lines)
		}
	})
}

// FuzzJSON is the differential test of the hand-written JSON reader and
// string writer against encoding/json, on arbitrary input: both must agree
// on whether the input is JSON, on the value it denotes (objects keep the
// last of repeated keys), and every string must be written as
// encoding/json writes it once its HTML escaping and U+2028/U+2029
// escaping, which JSON.stringify lacks, are undone. Where the two differ
// by design, the comparison steps aside: nesting past encoding/json's
// depth limit of 10000, bytes that are not UTF-8 (we follow WHATWG, it
// replaces byte by byte), and lone surrogates (we keep them, it replaces
// them; normalised before comparing values).
func FuzzJSON(f *testing.F) {
	for _, seed := range []string{
		`{"a":1,"b":[true,false,null,"x"],"c":{"d":-1.5e+10}}`,
		`{"a":1,"a":2}`, `[]`, `{}`, `""`, `"\ud800"`, `"\ud83d\ude00"`, `"<>&\u2028\u2029"`,
		`"\b\f\n\r\t\u0000\u001f\u007f\/\\\""`, `01`, `1.`, `-`, `[1,]`, `{"a" 1}`, ` 1 `, "\"\xff\"",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
	} {
		f.Add([]byte(seed))
	}
	s := newServer(nil, nil, defaultMaxMessage)
	f.Fuzz(func(t *testing.T, input []byte) {
		if bytes.Count(input, []byte("["))+bytes.Count(input, []byte("{")) > 10000 {
			t.Skip("deeper than encoding/json allows")
		}
		i := skipSpace(input, 0)
		end := -1
		if i < len(input) {
			end = s.scan(input, i)
		}
		ours := end >= 0 && skipSpace(input, end) == len(input)
		if std := json.Valid(input); ours != std {
			t.Fatalf("valid: ours %v, encoding/json %v, for %q", ours, std, input)
		}
		if !ours || !utf8.Valid(input) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(input))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		got := walkJSON(t, s, input[i:end])
		if !equalJSON(got, want) {
			t.Fatalf("value differs for %q:\nours: %#v\nstd:  %#v", input, got, want)
		}
	})
}

// walkJSON reads a valid JSON value with nextMember, nextElement and
// unquote, the way the handlers do, into encoding/json's generic form, and
// checks each string's encoding on the way.
func walkJSON(t *testing.T, s *server, v []byte) any {
	switch v[0] {
	case '{':
		m := map[string]any{}
		for i := 1; ; {
			key, val, next := nextMember(v, i)
			if next < 0 {
				return m
			}
			i = next
			m[walkJSON(t, s, key).(string)] = walkJSON(t, s, val)
		}
	case '[':
		a := []any{}
		for i := 1; ; {
			elem, next := nextElement(v, i)
			if next < 0 {
				return a
			}
			i = next
			a = append(a, walkJSON(t, s, elem))
		}
	case '"':
		text := unquote(nil, v[1:len(v)-1])
		if !utf8.Valid(text) {
			// Lone surrogates, which encoding/json reads as U+FFFD each.
			var norm []byte
			for i := 0; i < len(text); i++ {
				if text[i] == 0xED && text[i+1] >= 0xA0 {
					norm = append(norm, "\uFFFD"...)
					i += 2
					continue
				}
				norm = append(norm, text[i])
			}
			return string(norm)
		}
		checkStringEncoding(t, v, string(text))
		return string(text)
	case 't':
		return true
	case 'f':
		return false
	case 'n':
		return nil
	}
	return json.Number(v)
}

// checkStringEncoding compares appendString(lit) with encoding/json's
// encoding of text, HTML escaping off and U+2028/U+2029 made raw.
func checkStringEncoding(t *testing.T, lit []byte, text string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(text)
	ref := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	var want []byte
	for i := 0; i < len(ref); i++ {
		if ref[i] == '\\' && i+5 < len(ref) && (string(ref[i:i+6]) == `\u2028` || string(ref[i:i+6]) == `\u2029`) {
			want = utf8.AppendRune(want, 0x2028+rune(ref[i+5]-'8'))
			i += 5
			continue
		}
		if ref[i] == '\\' {
			want = append(want, ref[i])
			i++
		}
		want = append(want, ref[i])
	}
	if got := appendString(nil, lit); !bytes.Equal(got, want) {
		t.Fatalf("appendString(%q) = %q, encoding/json (adjusted) %q", lit, got, want)
	}
}

// equalJSON compares two values in encoding/json's generic form.
func equalJSON(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			if w, ok := bm[k]; !ok || !equalJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		ba, ok := b.([]any)
		if !ok || len(a) != len(ba) {
			return false
		}
		for i := range a {
			if !equalJSON(a[i], ba[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}
