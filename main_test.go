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
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

var update = flag.Bool("update", false, "rewrite testdata/*.out from the binary's output")

// The mcp binary, built once for the whole test run by the first test
// that needs it (see mcpPath), in dir.
var (
	build struct {
		sync.Once
		path string
		err  error
	}
	dir string
)

func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv("MCP_TEST_FREE_DESCRIPTORS") != "" {
		os.Exit(freeDescriptorsChild())
	}
	// The process-level tests that run in parallel mostly wait (for a
	// child's idle second, a signal's deadline): at GOMAXPROCS (2 here)
	// at once, make test would take half as long again.
	if p := flag.Lookup("test.parallel"); p.Value.String() == p.DefValue {
		p.Value.Set("8")
	}
	var err error
	if dir, err = os.MkdirTemp("", "mcp-test-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// mcpPath returns the path of the mcp binary, built on first use; with go
// test -race, it is built with -race too.
func mcpPath(t testing.TB) string {
	build.Do(func() {
		build.path = filepath.Join(dir, "mcp")
		args := []string{"build", "-o", build.path}
		if raceEnabled() {
			args = append(args, "-race")
			if os.Getenv("GORACE") == "" {
				// A race-built program sleeps 1 s at exit by default; the
				// tests start hundreds.
				os.Setenv("GORACE", "atexit_sleep_ms=0")
			}
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("building mcp: %v\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.path
}

// raceEnabled reports whether this test binary was built with -race.
func raceEnabled() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" {
				return s.Value == "true"
			}
		}
	}
	return false
}

// runBinary pipes stdin through the built binary with args and returns its
// stdout and stderr; a non-zero exit fails the test.
func runBinary(t testing.TB, stdin []byte, args ...string) (stdout, stderr []byte) {
	t.Helper()
	cmd := exec.Command(mcpPath(t), args...)
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
			if len(stderr) > 0 && !slices.Contains(args, "-v") {
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

// serve answers every request read from r on w until r ends: the whole
// server without flags or signals.
func serve(r io.Reader, w io.Writer) error {
	return newServer(r, w, defaultMaxMessage).run()
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

// TestParseNumber pins parseNumber to JavaScript's Number(x) on the
// literals strconv.ParseFloat alone gets wrong (more than 800 digits
// before the point, exponents of five digits and more) and on their
// neighbours: 799 to 5,000 digits, exponents of 5 to 400 digits, the
// subnormal and overflow boundaries, and halfway cases that need every
// digit, or a digit past the 768 that are kept, to round. Each want is
// node's String(Number(lit)) (v20, checked once), and negZero is
// Object.is(Number(lit), -0).
func TestParseNumber(t *testing.T) {
	// Halfway between the largest double and 2^1024: (2^54-1) x 2^970.
	top := new(big.Int).Lsh(new(big.Int).SetUint64(1<<54-1), 970).String()
	topBelow := new(big.Int).Sub(new(big.Int).Lsh(new(big.Int).SetUint64(1<<54-1), 970), big.NewInt(1)).String()
	// Half the smallest subnormal, 2^-1075 = 5^1075 x 10^-1075, exactly.
	halfDigits := new(big.Int).Exp(big.NewInt(5), big.NewInt(1075), nil).String()
	half := halfDigits + "e-1075"
	zeros := func(n int) string { return strings.Repeat("0", n) }
	tests := []struct {
		lit, want string
		negZero   bool
	}{
		{"1" + zeros(799) + "e-799", "1", false},
		{"1" + zeros(800) + "e-800", "1", false},
		{"1" + zeros(801) + "e-801", "1", false},
		{"1" + zeros(1000) + "e-1000", "1", false},
		{"1" + zeros(5000) + "e-5000", "1", false},
		{"-1" + zeros(5000) + ".5e-5000", "-1", false},
		{"123" + zeros(797) + "e-800", "0.123", false},
		{"0." + zeros(9692) + "9e100000", "Infinity", false},
		{"0." + zeros(99692) + "1e100000", "1e+307", false},
		{"0." + zeros(99999) + "1e100000", "1", false},
		{"1e10000", "Infinity", false},
		{"1e-10000", "0", false},
		{"1e00308", "1e+308", false},
		{"1.5e00309", "Infinity", false},
		{"1e100000", "Infinity", false},
		{"-1e-100000", "0", true},
		{"1e1000000000", "Infinity", false},
		{"1e0000000001", "10", false},
		{"1e-1000000000", "0", false},
		{"1" + zeros(400) + "e-1000000000", "0", false},
		{"1e" + zeros(399) + "5", "100000", false},
		{"1e" + strings.Repeat("9", 400), "Infinity", false},
		{"-1e-" + strings.Repeat("9", 400), "0", true},
		{"123.456e" + zeros(398) + "2", "12345.6", false},
		{"0." + zeros(400) + "123e+" + zeros(396) + "403", "123", false},
		{"-0", "0", true},
		{"-0.0", "0", true},
		{"-0e5", "0", true},
		{"-0.000e-5", "0", true},
		{"-0." + zeros(1000), "0", true},
		{"-0." + zeros(1000) + "e" + strings.Repeat("9", 400), "0", true},
		{"0e-99999999999999999999", "0", false},
		{"2.4703282292062327e-324", "0", false},
		{"2.4703282292062328e-324", "5e-324", false},
		{half, "0", false},
		{halfDigits + "1e-1076", "5e-324", false},
		{halfDigits + zeros(100) + "1e-1176", "5e-324", false},
		{"-" + halfDigits + zeros(100) + "1e-1176", "-5e-324", false},
		{"4.9406564584124654e-324", "5e-324", false},
		{"2.2250738585072011e-308", "2.225073858507201e-308", false},
		{"2.2250738585072012e-308", "2.2250738585072014e-308", false},
		{"9007199254740993", "9007199254740992", false},
		{"9007199254740993.0000000001", "9007199254740994", false},
		{"9007199254740993." + zeros(900), "9007199254740992", false},
		{"9007199254740993." + zeros(900) + "1", "9007199254740994", false},
		{"9007199254740995", "9007199254740996", false},
		{"9007199254740995." + zeros(2000), "9007199254740996", false},
		{"9007199254740994." + strings.Repeat("9", 1000), "9007199254740994", false},
		{top, "Infinity", false},
		{topBelow, "1.7976931348623157e+308", false},
		{top + "." + zeros(1000) + "1", "Infinity", false},
		{topBelow + "." + strings.Repeat("9", 1000), "1.7976931348623157e+308", false},
		{"1.7976931348623158e308", "1.7976931348623157e+308", false},
		{"1.7976931348623159e308", "Infinity", false},
		{"1.7976931348623157e308", "1.7976931348623157e+308", false},
		{"-1.7976931348623159e308", "-Infinity", false},
		{"0.1", "0.1", false},
		{"0." + zeros(29) + "1", "1e-30", false},
		{"12345678901234567890123456789012", "1.2345678901234567e+31", false},
		// The edges of Clinger's fast path: exponents of ±22 are read with
		// one rounding, ±23 not (10^23 is no double), nor 2^53 and over.
		{"1e-22", "1e-22", false},
		{"1e-23", "1e-23", false},
		{"7e-23", "7e-23", false},
		{"8.5e-23", "8.5e-23", false},
		{"0.000000000000000000000001", "1e-24", false},
		{"1e22", "1e+22", false},
		{"1e23", "1e+23", false},
		{"3e23", "3e+23", false},
		{"100000000000000000000000", "1e+23", false},
		{"9007199254740991e22", "9.00719925474099e+37", false},
		{"9007199254740992e22", "9.007199254740992e+37", false},
		{"9007199254740991e-22", "9.007199254740991e-7", false},
		{"9007199254740993e-22", "9.007199254740993e-7", false},
		{"1234567890123456e-23", "1.234567890123456e-8", false},
		{"99999999999999999e22", "1e+39", false},
		{"123456789012345678901234567890123", "1.2345678901234569e+32", false},
	}
	for _, tt := range tests {
		f := parseNumber([]byte(tt.lit))
		if got := string(appendNumber(nil, f)); got != tt.want || (f == 0 && math.Signbit(f) != tt.negZero) {
			t.Errorf("parseNumber(%s) = %q (sign bit %v), want %q (negative zero %v)", clip(tt.lit, 60), got, math.Signbit(f), tt.want, tt.negZero)
		}
	}
	// The first case of the issue, through the binary: 1 and 800 zeros,
	// e-800, plus 0.
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1` + zeros(800) + `e-800,"b":0}}}`
	if got, want := serveString(t, req+"\n"), textReply("1", "1"); got != want {
		t.Errorf("add of 1e800e-800 and 0:\n got %s\nwant %s", got, want)
	}
}

// FuzzNumber compares parseNumber with exact arithmetic (see
// nearestDouble). The fuzzer picks the digits, a run of zeros to make the
// literal long (before the point or after it), the exponent and how many
// leading zeros pad it.
func FuzzNumber(f *testing.F) {
	f.Add(false, "1", "", uint16(800), false, int32(-800), uint16(0))
	f.Add(false, "0", "9", uint16(9692), true, int32(100000), uint16(0))
	f.Add(true, "0", "1", uint16(65000), true, int32(65000), uint16(400))
	f.Add(false, "9007199254740993", "1", uint16(900), true, int32(0), uint16(0))
	f.Add(false, "24703282292062327", "", uint16(0), false, int32(-340), uint16(3))
	f.Fuzz(func(t *testing.T, neg bool, intDigits, fracDigits string, pad uint16, padFrac bool, exp int32, expPad uint16) {
		digits := func(s string) string {
			b := []byte(s)
			for i, c := range b {
				b[i] = '0' + c%10
			}
			return string(b)
		}
		in, frac := strings.TrimLeft(digits(intDigits), "0"), digits(fracDigits)
		if padFrac {
			frac = strings.Repeat("0", int(pad)) + frac
		} else if in != "" {
			in += strings.Repeat("0", int(pad))
		}
		if in == "" {
			in = "0"
		}
		exp %= 200000
		lit := in
		if frac != "" {
			lit += "." + frac
		}
		e := strconv.Itoa(int(exp))
		if exp < 0 {
			e = "-" + strings.Repeat("0", int(expPad%1000)) + e[1:]
		} else {
			e = strings.Repeat("0", int(expPad%1000)) + e
		}
		lit += "e" + e
		if neg {
			lit = "-" + lit
		}
		want := nearestDouble(in+frac, int(exp)-len(frac))
		if neg {
			want = -want
		}
		if got := parseNumber([]byte(lit)); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("parseNumber(%s) = %v, want %v", clip(lit, 200), got, want)
		}
	})
}

// nearestDouble returns the double nearest to digits x 10^e, ties to even,
// by integer arithmetic: exactly when e >= 0; else by one division that
// keeps at least 66 bits beyond a double's 53, its remainder, if any,
// marking the last bit (so that it cannot make a tie where there is none),
// then one rounding by big.Float. (big.Rat, exact too, takes seconds to
// reduce a fraction of 65,000 digits over 10^199,999; a big.Float parse
// rounds twice, and can be off by one at a halfway point.)
func nearestDouble(digits string, e int) float64 {
	d, _ := new(big.Int).SetString(digits, 10)
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(e, -e))), nil)
	if e >= 0 {
		f, _ := new(big.Float).SetInt(d.Mul(d, pow)).Float64()
		return f
	}
	k := max(0, pow.BitLen()-d.BitLen()+120)
	q, r := new(big.Int).QuoRem(d.Lsh(d, uint(k)), pow, new(big.Int))
	if r.Sign() != 0 {
		q.SetBit(q, 0, 1)
	}
	f, _ := new(big.Float).SetMantExp(new(big.Float).SetInt(q), -k).Float64()
	return f
}

// TestAppendNumberShortForm shows that appendNumber, in encoding/json's
// short form, writes what the longer function it replaced wrote (whose
// output TestNumberFormat pinned to node's String(n)): for every power of
// ten from 1e-330 to 1e310 and its neighbours, where the layout changes,
// and for 200,000 random bit patterns, about 100 for each exponent.
func TestAppendNumberShortForm(t *testing.T) {
	check := func(f float64) {
		if got, want := appendNumber(nil, f), appendNumberLong(nil, f); !bytes.Equal(got, want) {
			t.Fatalf("appendNumber(%b) = %s, the long form wrote %s", math.Float64bits(f), got, want)
		}
	}
	for e := -330; e <= 310; e++ {
		f, _ := strconv.ParseFloat("1e"+strconv.Itoa(e), 64)
		for _, g := range []float64{f, -f, math.Nextafter(f, 0), math.Nextafter(f, math.Inf(1))} {
			check(g)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		check(math.Float64frombits(rng.Uint64()))
	}
}

// appendNumberLong is appendNumber as it was written before the short form,
// kept to show that the two agree. It appends f as String(f) writes it
// (ECMAScript Number::toString): the shortest digits that read back as f, in plain
// decimal from 1e-6 up to 1e21 and in exponent form outside; -0 is "0".
func appendNumberLong(dst []byte, f float64) []byte {
	switch {
	case f != f:
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// strconv gives the shortest digits d1.d2d3...e±x; JavaScript's layout
	// is decided by k, the number of digits, and n = x+1, the position of
	// the decimal point.
	var ebuf, dbuf [24]byte
	e := strconv.AppendFloat(ebuf[:0], f, 'e', -1, 64)
	ei := bytes.IndexByte(e, 'e')
	digits := append(dbuf[:0], e[0])
	if ei > 1 {
		digits = append(digits, e[2:ei]...)
	}
	x := 0
	for _, c := range e[ei+2:] {
		x = x*10 + int(c-'0')
	}
	if e[ei+1] == '-' {
		x = -x
	}
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for ; k < n; k++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for ; n < 0; n++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
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
		if got := string(encodeString([]byte(tt.lit))); got != tt.want {
			t.Errorf("appendString(%q) = %q, want %q", tt.lit, got, tt.want)
		}
	}
}

// encodeString is the writer's appendString on its own: lit, a valid JSON
// string, as JSON.stringify would write the string it denotes.
func encodeString(lit []byte) []byte {
	var out bytes.Buffer
	w := writer{out: func(p []byte) error { _, err := out.Write(p); return err }}
	w.jsonString(lit[1:len(lit)-1], fromRequest)
	w.flush()
	return out.Bytes()
}

// jsDecode is the reference for how JavaScript reads bytes as text: the
// UTF-8 decoder of the WHATWG Encoding standard, written from its
// algorithm (encoding.spec.whatwg.org, "UTF-8 decoder"), giving UTF-16
// code units. With wtf8, the standard's bound for the byte after 0xED is
// 0xBF, not 0x9F, so that the three bytes WTF-8 gives a surrogate read
// as that surrogate: how a tool's text, which carries lone surrogates
// that way, is read.
func jsDecode(b []byte, wtf8 bool) []uint16 {
	var units []uint16
	emit := func(cp rune) { units = utf16.AppendRune(units, cp) }
	needed, seen, cp, lower, upper := 0, 0, rune(0), byte(0x80), byte(0xBF)
	for i := 0; i < len(b); i++ {
		c := b[i]
		if needed == 0 {
			switch {
			case c <= 0x7F:
				units = append(units, uint16(c))
			case c >= 0xC2 && c <= 0xDF:
				needed, cp = 1, rune(c&0x1F)
			case c >= 0xE0 && c <= 0xEF:
				if c == 0xE0 {
					lower = 0xA0
				}
				if c == 0xED && !wtf8 {
					upper = 0x9F
				}
				needed, cp = 2, rune(c&0xF)
			case c >= 0xF0 && c <= 0xF4:
				if c == 0xF0 {
					lower = 0x90
				}
				if c == 0xF4 {
					upper = 0x8F
				}
				needed, cp = 3, rune(c&0x7)
			default:
				emit(0xFFFD)
			}
			continue
		}
		if c < lower || c > upper {
			needed, seen, cp, lower, upper = 0, 0, 0, 0x80, 0xBF
			emit(0xFFFD)
			i-- // the byte is read again
			continue
		}
		lower, upper = 0x80, 0xBF
		cp, seen = cp<<6|rune(c&0x3F), seen+1
		if seen == needed {
			if cp >= 0xD800 && cp < 0xE000 {
				units = append(units, uint16(cp)) // a surrogate, wtf8 only
			} else {
				emit(cp)
			}
			needed, seen, cp = 0, 0, 0
		}
	}
	if needed > 0 {
		emit(0xFFFD)
	}
	return units
}

// jsParseString is the reference for JSON.parse of a valid JSON string's
// body, in a line read as JavaScript reads it: escapes give their code
// units, one each, and runs of raw bytes are read by jsDecode.
func jsParseString(body []byte) []uint16 {
	var units []uint16
	raw := 0
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		units = append(units, jsDecode(body[raw:i], false)...)
		if c := body[i+1]; c == 'u' {
			v, _ := strconv.ParseUint(string(body[i+2:i+6]), 16, 16)
			units = append(units, uint16(v))
			i += 5
		} else {
			units = append(units, uint16(map[byte]byte{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[c]|map[byte]byte{'"': '"', '\\': '\\', '/': '/'}[c]))
			i++
		}
		raw = i + 1
	}
	return append(units, jsDecode(body[raw:], false)...)
}

// jsStringify is the reference for JSON.stringify of a string given as
// UTF-16 code units, written from ECMA-262's QuoteJSONString: the short
// escapes, other code units under 0x20 and lone surrogates as \u00xx and
// \udxxx (lowercase hex), everything else as the characters it encodes.
func jsStringify(units []uint16) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(units); i++ {
		u := rune(units[i])
		switch {
		case u == '\b':
			b.WriteString(`\b`)
		case u == '\t':
			b.WriteString(`\t`)
		case u == '\n':
			b.WriteString(`\n`)
		case u == '\f':
			b.WriteString(`\f`)
		case u == '\r':
			b.WriteString(`\r`)
		case u == '"':
			b.WriteString(`\"`)
		case u == '\\':
			b.WriteString(`\\`)
		case u < 0x20:
			fmt.Fprintf(&b, `\u%04x`, u)
		case u >= 0xD800 && u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] < 0xE000:
			b.WriteRune(utf16.DecodeRune(u, rune(units[i+1])))
			i++
		case u >= 0xD800 && u < 0xE000:
			fmt.Fprintf(&b, `\u%04x`, u)
		default:
			b.WriteRune(u)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// unquoted is a JSON string's body.
func unquoted(lit string) string { return lit[1 : len(lit)-1] }

// plainBody is appendBody on the whole of s, plain text, quoted.
func plainBody(s []byte) string {
	b, n := appendBody([]byte{'"'}, s, len(s), false)
	if n != len(s) {
		panic("appendBody stopped short")
	}
	return string(append(b, '"'))
}

// TestDecodeRune: text is written as JavaScript reads and writes it,
// plain text and a JSON string's body alike, for every sequence of up to
// three bytes, and of four with a lead byte of a multi-byte sequence and
// bytes at the standard's boundaries after it: appendBody against the
// references jsDecode, jsParseString and jsStringify.
func TestDecodeRune(t *testing.T) {
	var set []byte // every byte over 0x7F, and some under
	for _, c := range []byte{0x00, 0x0A, 0x1F, '"', 'A', '\\', 0x7F} {
		set = append(set, c)
	}
	for c := 0x80; c <= 0xFF; c++ {
		set = append(set, byte(c))
	}
	check := func(b []byte) {
		if got, want := plainBody(b), jsStringify(jsDecode(b, true)); got != want {
			t.Fatalf("plain text % x: got %s, want %s", b, got, want)
		}
		if bytes.ContainsAny(b, "\"\\") || bytes.ContainsFunc(b, func(r rune) bool { return r < 0x20 }) {
			return // not a JSON string's body
		}
		if got, want := encodeString(append(append([]byte{'"'}, b...), '"')), jsStringify(jsParseString(b)); string(got) != want {
			t.Fatalf("JSON string body % x: got %s, want %s", b, got, want)
		}
	}
	for _, a := range set {
		check([]byte{a})
		for _, b := range set {
			check([]byte{a, b})
			for _, c := range set {
				check([]byte{a, b, c})
			}
		}
	}
	edges := []byte{0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xED, 0xF4, 0xFF}
	for a := 0xC0; a <= 0xFF; a++ {
		for _, b := range edges {
			for _, c := range edges {
				for _, d := range edges {
					check([]byte{byte(a), b, c, d})
				}
			}
		}
	}
}

// FuzzToolText: whatever bytes a tool returns as its text, and whatever
// string a client sends for a tool to pass back (echo's unchanged, or
// textResult of arguments.text), the reply is one line of valid JSON
// whose text is what JSON.stringify writes for the string JavaScript
// reads (see jsDecode, jsParseString, jsStringify), and the session goes
// on. The client's string is the fuzz input as a JSON string's body, when
// it is one.
func FuzzToolText(f *testing.F) {
	for _, seed := range []string{
		"it's \"late\"\ngo home", `C:\Users\`, `\u12`, `\U`, "a\tb", "\x00\x7f\u2028\u2029",
		"\xed\xa0\x80", "\xed\xa0\xbd\xed\xb8\x80", "\xed\xb8\x80\xed\xa0\xbd", "\xed\xa0", "\xff\xe2\x82",
		`q\"uote\n\t\\ \ud800 \udc00z \ud83d\ude00 \u2028 \u007f \u0000\\`, "😀 ñ \xc0\xaf \xf4\x90\x80\x80",
	} {
		f.Add([]byte(seed))
	}
	saved := tools
	defer func() { tools = saved }()
	var fromTool []byte
	tools = append(slices.Clone(saved),
		tool{name: "raw", run: func(arguments) toolResult { return textResult(string(fromTool)) }},
		tool{name: "back", args: []arg{{"text", "string"}}, run: func(in arguments) toolResult { return textResult(in.text("text")) }})
	f.Fuzz(func(t *testing.T, b []byte) {
		fromTool = b
		in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"raw"}}` + "\n"
		want := textReply("1", unquoted(jsStringify(jsDecode(b, true))))
		lit := append(append([]byte{'"'}, b...), '"')
		if json.Valid(lit) {
			in += echoCall("2", string(lit)) + "\n" + strings.Replace(echoCall("3", string(lit)), `"echo"`, `"back"`, 1) + "\n"
			body := unquoted(jsStringify(jsParseString(b)))
			want += textReply("2", body) + textReply("3", body)
		}
		got := serveString(t, in+pingLine+"\n")
		for _, line := range strings.SplitAfter(got, "\n") {
			if line != "" && !json.Valid([]byte(line)) {
				t.Fatalf("not one line of valid JSON: %q", line)
			}
		}
		if want += pingReply; got != want {
			t.Fatalf("for % x:\ngot  %q\nwant %q", b, got, want)
		}
	})
}

// TestToolText: a tool returns the text it means, and the reply carries
// exactly that, whatever it holds: quotes and a newline, a Windows path
// with its trailing backslash, a truncated \u escape and \U (backslashes
// of its text, not escapes), a tab, NUL and DEL; after a reply already
// buffered, alone and in a batch, and the session goes on.
func TestToolText(t *testing.T) {
	saved := tools
	defer func() { tools = saved }()
	texts := []string{"it's \"late\"\ngo home", `C:\Users\`, `\u12`, `\U`, "a\tb\x00\x7f", `\`}
	for i, text := range texts {
		tools = append(tools, tool{name: "t" + strconv.Itoa(i), run: func(arguments) toolResult { return textResult(text) }})
	}
	tools = append(tools, saved...)
	for i, text := range texts {
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t` + strconv.Itoa(i) + `"}}`
		body := unquoted(jsStringify(jsDecode([]byte(text), true)))
		got := serveString(t, pingLine+"\n"+call+"\n["+pingLine+","+call+"]\n"+pingLine+"\n")
		want := pingReply + textReply("1", body) + "[" + strings.TrimSuffix(pingReply, "\n") + "," + textReply("1", body)[:len(textReply("1", body))-1] + "]\n" + pingReply
		if got != want {
			t.Errorf("tool text %q:\ngot  %q\nwant %q", text, got, want)
		}
	}
}

// TestWritingPanics: a reply whose writing panics gets Internal error in
// its place, after the replies already buffered, alone and in a batch,
// and the session goes on; unless part of it was written out already,
// which only a reply longer than flushSize can be: then the session ends,
// every reply before it written whole. The tool here returns a text that
// breaks what the writer takes for granted (a request's string body,
// validated by the scan), as no tool can through the interface.
func TestWritingPanics(t *testing.T) {
	saved := tools
	defer func() { tools = saved }()
	long := strings.Repeat("x", 2*flushSize)
	tools = append(slices.Clone(saved),
		tool{name: "broken", run: func(arguments) toolResult { return toolResult{form: fromRequest, text: []byte(`C:\`)} }},
		tool{name: "longbroken", run: func(arguments) toolResult { return toolResult{form: fromRequest, text: []byte(long + `\`)} }})
	call := func(name string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `"}}`
	}
	internal := `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal error"}}`
	in := pingLine + "\n" + call("broken") + "\n[" + pingLine + "," + call("broken") + "," + pingLine + "]\n" + pingLine + "\n"
	want := pingReply + internal + "\n[" + strings.TrimSuffix(pingReply, "\n") + "," + internal + "," + strings.TrimSuffix(pingReply, "\n") + "]\n" + pingReply
	if got := serveString(t, in); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	var out bytes.Buffer
	err := serve(strings.NewReader(pingLine+"\n"+call("longbroken")+"\n"+pingLine+"\n"), &out)
	if err != errCutReply || !strings.HasPrefix(out.String(), pingReply+`{"jsonrpc":"2.0","id":7,"result":`) || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("a long reply cut by a panic: %v, output %q", err, clip(out.String(), 200))
	}
}

// TestNoResult: a tool that returns no result, or a handler no reply, gets
// Internal error, never a plausible success, and the log says why.
func TestNoResult(t *testing.T) {
	savedTools, savedMethods := tools, methods
	defer func() { tools, methods = savedTools, savedMethods }()
	tools = append(slices.Clone(savedTools), tool{name: "none", run: func(arguments) toolResult { return toolResult{} }})
	methods = append(slices.Clone(savedMethods), methods[0])
	methods[len(methods)-1].name = "none"
	methods[len(methods)-1].handle = func(*server, *request) reply { return reply{} }
	lines := serveLogged(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"none"}}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"none"}`+"\n")
	want := []string{
		`mcp: panic in "tools/call": "the tool returned no result (toolResult{})"`, ` error -32603`,
		`mcp: panic in "none": "the handler returned no reply"`, ` error -32603`,
	}
	for i, w := range want {
		if i >= len(lines) || !strings.HasSuffix(lines[i], w) {
			t.Fatalf("log:\n%s\nwant line %d to end %q", strings.Join(lines, "\n"), i+1, w)
		}
	}
}

// TestCatalogue: the catalogue is valid, and each kind of mistake in one
// is found: a tool name outside the specification's rule, a name used
// twice, an argument of a kind no tool can read, an argument name used
// twice or empty, a missing run function, a URI used twice. A binary
// built with a mistake says so at start, writes nothing to stdout and
// exits 1.
func TestCatalogue(t *testing.T) {
	if err := checkCatalogue(); err != nil {
		t.Fatalf("the catalogue: %v", err)
	}
	savedTools, savedResources := tools, resources
	defer func() { tools, resources = savedTools, savedResources }()
	ok := tool{name: "ok", args: []arg{{"a", "number"}}, run: runAdd}
	bad := func(change func(*tool)) []tool { t := ok; change(&t); return []tool{t} }
	for _, tc := range []struct {
		name  string
		tools []tool
		want  string
	}{
		{"empty name", bad(func(t *tool) { t.name = "" }), "a name is 1 to 128"},
		{"long name", bad(func(t *tool) { t.name = strings.Repeat("n", 129) }), "a name is 1 to 128"},
		{"space in name", bad(func(t *tool) { t.name = "my tool" }), "a name is 1 to 128"},
		{"slash in name", bad(func(t *tool) { t.name = "a/b" }), "a name is 1 to 128"},
		{"name used twice", []tool{ok, ok}, "used twice"},
		{"kind integer", bad(func(t *tool) { t.args = []arg{{"n", "integer"}} }), `the kind "integer" is not string, number or boolean`},
		{"kind object", bad(func(t *tool) { t.args = []arg{{"n", "object"}} }), `the kind "object"`},
		{"argument used twice", bad(func(t *tool) { t.args = []arg{{"a", "number"}, {"a", "string"}} }), `argument "a": the name is used twice`},
		{"empty argument name", bad(func(t *tool) { t.args = []arg{{"", "number"}} }), "an argument name is 1 to"},
		{"no run", bad(func(t *tool) { t.run = nil }), "no run function"},
	} {
		tools = tc.tools
		if err := checkCatalogue(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	tools, resources = savedTools, append(slices.Clone(savedResources), savedResources[0])
	if err := checkCatalogue(); err == nil || !strings.Contains(err.Error(), "used twice") {
		t.Errorf("a URI used twice: %v", err)
	}
	resources = savedResources
	cmd := exec.Command(buildChanged(t, func(tools []byte) []byte {
		return bytes.Replace(tools, []byte(`{"text", "string"}`), []byte(`{"text", "integer"}`), 1)
	}))
	cmd.Stdin = strings.NewReader(pingLine + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if cmd.ProcessState.ExitCode() != 1 || len(out) > 0 || stderr.String() != `mcp: tool "echo", argument "text": the kind "integer" is not string, number or boolean`+"\n" {
		t.Errorf("a bad kind at start: %v, stdout %q, stderr %q", err, out, stderr.String())
	}
}

// TestEncodingDiffersFromStdlib documents why the encoder is ours:
// encoding/json's defaults write these strings differently from
// JSON.stringify, and ours must not.
func TestEncodingDiffersFromStdlib(t *testing.T) {
	for _, s := range []string{"<a>&", "\u2028", "\u2029"} {
		std, _ := json.Marshal(s)
		ours := []byte(quote(s))
		if bytes.Equal(std, ours) {
			t.Errorf("%q: encoding/json now agrees (%s); the comment on the encoder is stale", s, std)
		}
		if !bytes.Equal(ours, []byte(`"`+s+`"`)) {
			t.Errorf("quote(%q) = %s, want the raw text", s, ours)
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
		`{"params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"x"}},"params":{"uri":1},"id":1,"id":2}`,
		`{"\u0069d":1,"params":{"_meta":1,"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":[]}}}`,
		`{"error":1,"result":2,"params":[{"name":1}],"method":"m"}`, `[{"id":1},{"params":{"cursor":"c"}}]`,
		`{"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"a"},"_meta":{}}}`, `{"params":{"name":"n","name":{"a":[1]}}}`,
		`{"params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"a":true},"x":1},"io.modelcontextprotocol/protocolVersion":"v"}}}`,
	} {
		f.Add([]byte(seed))
	}
	s := newServer(nil, nil, defaultMaxMessage)
	f.Fuzz(func(t *testing.T, input []byte) {
		if bytes.Count(input, []byte("["))+bytes.Count(input, []byte("{")) > 10000 {
			t.Skip("deeper than encoding/json allows")
		}
		i := skipSpace(input, 0)
		end, ours := i, false
		if i < len(input) {
			if end, ours = s.sc.scan(input, i); ours && skipSpace(input, end) < len(input) {
				end, ours = skipSpace(input, end), false
			}
		}
		err := json.Unmarshal(input, new(json.RawMessage))
		if std := err == nil; ours != std {
			t.Fatalf("valid: ours %v, encoding/json %v, for %q", ours, std, input)
		}
		// Where it fails: at the end (the line is cut short), or at a byte.
		// encoding/json reads a number cut short as one followed by ' '.
		var syntax *json.SyntaxError
		if !ours && errors.As(err, &syntax) {
			cut := err.Error() == "unexpected end of JSON input" ||
				syntax.Offset == int64(len(input)) && strings.HasPrefix(err.Error(), "invalid character ' '") && input[len(input)-1] != ' '
			if cut != (end >= len(input)) || !cut && int64(end) != syntax.Offset-1 {
				t.Fatalf("ours fails at %d of %d, encoding/json: %v at %d, for %q", end, len(input), err, syntax.Offset, input)
			}
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
		checkSlots(t, &s.sc, input)
		got := walkJSON(t, &s.sc, &walk{at: i, end: -1})
		if !equalJSON(got, want) {
			t.Fatalf("value differs for %q:\nours: %#v\nstd:  %#v", input, got, want)
		}
	})
}

// checkSlots checks what scan recorded of the valid JSON input (see
// scanner.slots) against encoding/json: for each member recorded, of the
// message, its params and their _meta when they are objects, the raw
// value of the last one of that name, or none.
func checkSlots(t *testing.T, sc *scanner, input []byte) {
	var message, params, meta map[string]json.RawMessage
	if json.Unmarshal(input, &message) != nil {
		return // not an object
	}
	json.Unmarshal(message["params"], &params)
	json.Unmarshal(params["_meta"], &meta)
	_, result := message["result"]
	_, error := message["error"]
	want := map[int]json.RawMessage{
		slotJSONRPC: message["jsonrpc"], slotID: message["id"], slotMethod: message["method"], slotParams: message["params"],
		slotTool: params["name"], slotArguments: params["arguments"], slotURI: params["uri"],
		slotProtocolVersion: params["protocolVersion"], slotCursor: params["cursor"], slotMeta: params["_meta"],
		slotVersion: meta[metaProtocolVersion], slotCapabilities: meta[metaClientCapabilities],
	}
	for k, v := range want {
		if got := sc.slot(k); !bytes.Equal(got, v) {
			t.Fatalf("slot %d of %q: %q, encoding/json %q", k, clip(string(input), 300), got, v)
		}
	}
	if (sc.slot(slotResponse) != nil) != (result || error) {
		t.Fatalf("slotResponse of %q: %q, want one if there is a result or error", clip(string(input), 300), sc.slot(slotResponse))
	}
}

// walkJSON reads the valid JSON value the walk w is at, in the line s
// last scanned, as the handlers do (walking into objects and arrays, and
// value and unquote for the rest), into encoding/json's generic form,
// checking each string's encoding on the way, and that the end a walk
// into a value finds is where skipValue, which steps over it, finds it.
func walkJSON(t *testing.T, s *scanner, w *walk) any {
	switch s.line[w.at] {
	case '{':
		m := map[string]any{}
		in := s.walk(w.at)
		for s.next(&in) {
			name := string(in.key)
			k := unquote(nil, in.keyLit[1:len(in.keyLit)-1])
			want := string(k)
			if len(in.key) > maxLookup {
				want = string(in.keyLit[1 : len(in.keyLit)-1]) // too long to match a name: not decoded
			}
			if name != want {
				t.Fatalf("next gave the key %q for %s, want %q", name, in.keyLit, want)
			}
			m[string(normalise(k))] = walkJSON(t, s, &in)
		}
		w.end = in.end
		return checkEnd(t, s, w, m)
	case '[':
		a := []any{}
		in := s.walk(w.at)
		for s.nextElement(&in) {
			a = append(a, walkJSON(t, s, &in))
		}
		w.end = in.end
		return checkEnd(t, s, w, a)
	case '"':
		v := s.value(w)
		text := unquote(nil, v[1:len(v)-1])
		if utf8.Valid(text) {
			checkStringEncoding(t, v, string(text))
		}
		return string(normalise(text))
	case 't':
		s.value(w)
		return true
	case 'f':
		s.value(w)
		return false
	case 'n':
		s.value(w)
		return nil
	}
	return json.Number(s.value(w))
}

// checkEnd checks that the end a walk into the value w is at found is
// where skipValue finds it, and returns v.
func checkEnd(t *testing.T, s *scanner, w *walk, v any) any {
	if end := s.skipValue(w.at); end != w.end {
		t.Fatalf("a walk into %q ends at %d, skipValue at %d", clip(string(s.line[w.at:]), 100), w.end, end)
	}
	return v
}

// normalise replaces each lone surrogate of text, which unquote keeps in
// WTF-8 and encoding/json reads as U+FFFD, with U+FFFD.
func normalise(text []byte) []byte {
	var norm []byte
	for i := 0; i < len(text); i++ {
		if text[i] == 0xED && text[i+1] >= 0xA0 {
			norm = append(norm, "\uFFFD"...)
			i += 2
			continue
		}
		norm = append(norm, text[i])
	}
	return norm
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
	if got := encodeString(lit); !bytes.Equal(got, want) {
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

// Replies used by the tables below.
const (
	pingLine       = `{"jsonrpc":"2.0","id":"after","method":"ping"}`
	pingReply      = `{"jsonrpc":"2.0","id":"after","result":{}}` + "\n"
	parseError     = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` + "\n"
	invalidRequest = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}` + "\n"
)

// echoCall is a tools/call of echo with the given raw JSON text value.
func echoCall(id, rawText string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"echo","arguments":{"text":` + rawText + `}}}`
}

// textReply is the reply to a successful tools/call with the given text body.
func textReply(id, body string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + body + `"}],"isError":false}}` + "\n"
}

// TestHostileInput feeds one hostile line at a time, followed by a ping,
// and checks the exact reply to each and that the session survives.
func TestHostileInput(t *testing.T) {
	deepArray := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	deepObject := strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)
	var manyKeys, manyArgs strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&manyKeys, `"k%d":%d,`, i, i)
		fmt.Fprintf(&manyArgs, `,"x%d":true`, i)
	}
	digits := "1" + strings.Repeat("0", 9999)
	longID := strings.Repeat("1234567", 65537/7) + "890" // one more digit than the writer's 64 KiB pieces hold
	tiny := "0." + strings.Repeat("0", 9998) + "1"
	mib := strings.Repeat("abcdefgh", 1<<17)
	var batch, batchReply strings.Builder
	batch.WriteString("[")
	batchReply.WriteString("[")
	for i := range 1000 {
		if i > 0 {
			batch.WriteString(",")
			batchReply.WriteString(",")
		}
		fmt.Fprintf(&batch, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)
		fmt.Fprintf(&batchReply, `{"jsonrpc":"2.0","id":%d,"result":{}}`, i)
	}
	batch.WriteString("]")
	batchReply.WriteString("]\n")

	tests := []struct{ name, in, want string }{
		{"not json", "not json", parseError},
		{"lone brace", "{", parseError},
		{"lone closing brace", "}", parseError},
		{"lone bracket", "[", parseError},
		{"lone closing bracket", "]", parseError},
		{"truncated object", `{"jsonrpc":"2.0","id":1,"method":"ping"`, parseError},
		{"truncated string", `{"jsonrpc":"2.0","id":1,"method":"pi`, parseError},
		{"unterminated key", `{"jsonrpc":"2.0","id":1,"meth`, parseError},
		{"key without colon", `{"jsonrpc":"2.0","id":1,"method"`, parseError},
		{"unterminated string", `"abc`, parseError},
		{"NUL byte", "\x00", parseError},
		{"NUL after message", `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\x00", parseError},
		{"NUL inside string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\x00ing\"}", parseError},
		{"escaped NUL in text", echoCall("1", `"a\u0000b"`), textReply("1", `a\u0000b`)},
		{"invalid UTF-8 outside strings", "\xff\xfe", parseError},
		{"invalid UTF-8 in text", echoCall("1", "\"a\xffb\xe2\x82c\""), textReply("1", "a\uFFFDb\uFFFDc")},
		{"invalid UTF-8 in method", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}` + "\n"},
		{"lone surrogates in text", echoCall("1", `"\udead \ud800\udc00 \udc00\ud800"`), textReply("1", `\udead 𐀀 \udc00\ud800`)},
		{"100000-deep array", deepArray, "[" + strings.TrimSuffix(invalidRequest, "\n") + "]\n"},
		{"100000-deep object", deepObject, invalidRequest},
		{"100000-deep unclosed array", strings.Repeat("[", 100000), parseError},
		{"10000 keys in a request", `{` + manyKeys.String() + `"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"},
		{"10000 extra arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2` + manyArgs.String() + `}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Invalid arguments for tool add: unexpected argument \"x0\" (allowed: a, b)"}],"isError":true}}` + "\n"},
		{"10000-digit number", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":` + digits + `,"b":1}}}`, textReply("1", "Infinity")},
		{"10000-digit fraction", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":` + tiny + `,"b":1}}}`, textReply("1", "1")},
		{"10000-digit id", `{"jsonrpc":"2.0","id":` + digits + `,"method":"ping"}`, `{"jsonrpc":"2.0","id":` + digits + `,"result":{}}` + "\n"},
		{"65537-digit id", `{"jsonrpc":"2.0","id":` + longID + `,"method":"ping"}`, `{"jsonrpc":"2.0","id":` + longID + `,"result":{}}` + "\n"},
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"nope","method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"},
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":"two","method":"ping"}`, `{"jsonrpc":"2.0","id":"two","result":{}}` + "\n"},
		{"duplicate argument", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":"x","b":2,"a":1}}}`, textReply("1", "3")},
		{"garbage after message", `{"jsonrpc":"2.0","id":1,"method":"ping"}garbage`, parseError},
		{"two messages on a line", `{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`, parseError},
		{"huge exponent", `1e999999999`, invalidRequest},
		{"bare minus", `-`, parseError},
		{"truncated literal", `tru`, parseError},
		{"long literal", `nulll`, parseError},
		{"leading zero", `{"a":01}`, parseError},
		{"bare fraction point", `{"a":1.}`, parseError},
		{"no integer part", `{"a":.1}`, parseError},
		{"bad unicode escape", `{"a":"\u12G4"}`, parseError},
		{"unknown escape", `{"a":"\q"}`, parseError},
		{"missing colon", `{"a" 1}`, parseError},
		{"lone comma in object", `{,}`, parseError},
		{"lone comma in array", `[,]`, parseError},
		{"trailing comma in object", `{"a":1,}`, parseError},
		{"trailing comma in array", `[1,]`, parseError},
		{"single quotes", `{'a':1}`, parseError},
		{"form feed is not JSON space", "\f{}", parseError},
		{"no-break space is not JSON space", "\u00a0{}", parseError},
		{"BOM after the first line", "\ufeff" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`, parseError},
		{"deep params", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":[[[[[[[[[{}]]]]]]]]]}}`, `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"},
		{"space, tab and CR inside", "{ \"jsonrpc\" :\t\"2.0\" ,\r\"id\":1,\"method\":\"ping\" }", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"},
		{"CR alone", "\r", ""},
		{"1 MiB text", echoCall("1", `"`+mib+`"`), textReply("1", mib)},
		{"batch of 1000", batch.String(), batchReply.String()},
		{"batch of garbage", `[1,{},[],"x",null]`, "[" + strings.Repeat(strings.TrimSuffix(invalidRequest, "\n")+",", 4) + strings.TrimSuffix(invalidRequest, "\n") + "]\n"},
		{"empty batch", `[]`, invalidRequest},
		{"response with bad id", `{"jsonrpc":"2.0","id":[],"result":1}`, ""},
		{"method of wrong type", `{"jsonrpc":"2.0","id":1,"method":{"a":1}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request"}}` + "\n"},
		// Many members, and many objects in a batch.
		{"40000 arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2` + strings.Repeat(manyArgs.String(), 4) + `,"b":3}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Invalid arguments for tool add: unexpected argument \"x0\" (allowed: a, b)"}],"isError":true}}` + "\n"},
		{"4096 notifications in a batch", `[` + strings.Repeat(`{"jsonrpc":"2.0","method":"n","params":{"a":{}}},`, 4096) + `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}]`,
			"[" + strings.TrimSuffix(textReply("1", "3"), "\n") + "]\n"},
	}
	if len(tests) < 40 {
		t.Fatalf("only %d hostile inputs", len(tests))
	}
	for _, tt := range tests {
		// The first line may carry a BOM that is ignored; the hostile
		// input is the second line, as in a session.
		got := serveString(t, pingLine+"\n"+tt.in+"\n"+pingLine+"\n")
		want := pingReply + tt.want + pingReply
		if got != want {
			t.Errorf("%s: input %q\ngot  %q\nwant %q", tt.name, clip(tt.in, 200), clip(got, 400), clip(want, 400))
		}
	}
}

// TestRawControlBytes: a raw control byte inside a string is not JSON,
// whichever of 0x00-0x1F it is and wherever it is: within the first
// eight-byte words that the string scan tests at once, or in the bytes
// after them.
func TestRawControlBytes(t *testing.T) {
	s := newServer(nil, nil, defaultMaxMessage)
	for c := byte(0); c < 0x20; c++ {
		for at := range 24 {
			text := []byte(strings.Repeat("x", 24))
			text[at] = c
			line := []byte(`{"a":"` + string(text) + `"}`)
			if _, ok := s.sc.scan(line, 0); ok {
				t.Errorf("byte %#02x at %d of a string: scanned as JSON", c, at)
			}
		}
	}
}

// TestPanicBecomesInternalError: a handler that panics costs its request
// an Internal error, and the session goes on, in a batch too.
func TestPanicBecomesInternalError(t *testing.T) {
	saved := tools
	defer func() { tools = saved }()
	tools = append([]tool{{
		name: "boom",
		args: []arg{{"text", "string"}},
		run:  func(arguments) toolResult { panic("boom") },
	}}, saved...)
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom","arguments":{"text":"x"}}}` + "\n" +
		`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"boom","arguments":{"text":"x"}}}]` + "\n" +
		pingLine + "\n"
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}` + "\n" +
		`[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}]` + "\n" +
		pingReply
	if got := serveString(t, in); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestFailureGetsItsReply: a handler decides its whole reply before
// anything of it is written, so whatever the size of the id (here
// 512 KiB, twice what is held before it is written out), a handler that
// panics, even after making 512 KiB of text, gets its whole Internal
// error reply, alone or in a batch, and the session goes on; and a reply
// that carries an error is only that error, whatever else the handler
// put in it.
func TestFailureGetsItsReply(t *testing.T) {
	savedTools, savedMethods := tools, methods
	defer func() { tools, methods = savedTools, savedMethods }()
	long := bytes.Repeat([]byte("x"), 2*flushSize)
	tools = append([]tool{
		{name: "boom", args: []arg{{"text", "string"}}, run: func(arguments) toolResult { panic("boom") }},
		{name: "half", args: []arg{{"text", "string"}}, run: func(arguments) toolResult {
			_ = textResult(string(long))
			panic("half")
		}},
	}, savedTools...)
	methods = append(slices.Clone(savedMethods), methods[0])
	methods[len(methods)-1].name = "both"
	methods[len(methods)-1].handle = func(*server, *request) reply {
		return reply{err: invalidParams("params", nil, "an object"), fixed: `{"long":"` + string(long) + `"}`}
	}
	id := `"` + strings.Repeat("i", 2*flushSize) + `"`
	call := func(name string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":{"text":"x"}}}`
	}
	internal := `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"Internal error"}}`
	invalid := `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32602,"message":"Invalid params"}}`
	echo := echoCall("2", `"`+string(long)+`"`)
	tests := []struct{ in, want string }{
		{call("boom"), internal},
		{call("half"), internal},
		{"[" + call("boom") + "," + echo + "," + call("half") + "]", "[" + internal + "," + strings.TrimSuffix(textReply("2", string(long)), "\n") + "," + internal + "]"},
		{`{"jsonrpc":"2.0","id":` + id + `,"method":"both"}`, invalid},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		err := serve(strings.NewReader(tt.in+"\n"+pingLine+"\n"), &out)
		if want := tt.want + "\n" + pingReply; err != nil || out.String() != want {
			t.Errorf("serve: %v; for %s\ngot  %q\nwant %q", err, clip(tt.in, 100), clip(out.String(), 300), clip(want, 300))
		}
	}
}

// TestPanicIsLoggedAsError: with -v, a request whose handler panicked is
// logged with the error it got, -32603, after the line about the panic.
func TestPanicIsLoggedAsError(t *testing.T) {
	saved := tools
	defer func() { tools = saved }()
	tools = append([]tool{{name: "boom", args: []arg{{"text", "string"}}, run: func(arguments) toolResult { panic("boom") }}}, saved...)
	lines := serveLogged(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom","arguments":{"text":"x"}}}`+"\n")
	if len(lines) != 3 || lines[0] != `mcp: panic in "tools/call": "boom"` ||
		!strings.HasPrefix(lines[1], `mcp: "tools/call" id=1 `) || !strings.HasSuffix(lines[1], " error -32603") {
		t.Errorf("log:\n%s", strings.Join(lines, "\n"))
	}
}

// TestNamesFitLookup: every name that client text is looked up against
// (methods, tools and their arguments, resources, versions) is at most
// maxName bytes, the bound that decides which strings are decoded to be
// matched; and a name of exactly maxName bytes is found even with every
// byte escaped, as a tool's name and as an argument's.
func TestNamesFitLookup(t *testing.T) {
	names := append(methodNames(), append(legacyVersions, modernVersion, metaProtocolVersion, metaClientCapabilities)...)
	for _, tl := range tools {
		names = append(names, tl.name)
		for _, a := range tl.args {
			names = append(names, a.name)
		}
	}
	for _, r := range resources {
		names = append(names, r.uri)
	}
	for _, n := range names {
		if len(n) > maxName {
			t.Errorf("%q is %d bytes, over maxName (%d): raise maxName", n, len(n), maxName)
		}
	}
	saved := tools
	defer func() { tools = saved }()
	long := strings.Repeat("n", maxName)
	tools = append(slices.Clone(saved), tool{name: long, args: []arg{{long, "string"}}, run: func(in arguments) toolResult { return in.unchanged(long) }})
	escaped := strings.Repeat(`\u006e`, maxName)
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + escaped + `","arguments":{"` + escaped + `":"found"}}}` + "\n"
	if got, want := serveString(t, in), textReply("1", "found"); got != want {
		t.Errorf("a %d-byte name, escaped:\ngot  %s\nwant %s", maxName, got, want)
	}
}

// TestToolWithThreeArguments: a tool may take any number of arguments of
// each kind; nothing but the catalogue says how many. It reads them
// decoded (a number as Number() reads it, a string's text, a boolean) and
// reports an error through errorResult.
func TestToolWithThreeArguments(t *testing.T) {
	saved := tools
	defer func() { tools = saved }()
	tools = append(slices.Clone(saved), tool{
		name: "repeat",
		args: []arg{{"text", "string"}, {"times", "number"}, {"loud", "boolean"}},
		run: func(in arguments) toolResult {
			n := in.number("times")
			if n < 0 || n > 3 {
				return errorResult("times must be 0 to 3, not " + strconv.FormatFloat(n, 'g', -1, 64))
			}
			text := strings.Repeat(in.text("text"), int(n))
			if in.boolean("loud") {
				text = strings.ToUpper(text)
			}
			return textResult(text)
		},
	})
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"repeat","arguments":` + args + `}}` + "\n"
	}
	errorReply := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"times must be 0 to 3, not 4"}],"isError":true}}` + "\n"
	for _, tt := range []struct{ in, want string }{
		{call(`{"text":"ab\u00e9","times":2e0,"loud":true}`), textReply("1", "ABÉABÉ")},
		{call(`{"text":"ab","times":1,"loud":false}`), textReply("1", "ab")},
		{call(`{"text":"ab","times":4,"loud":false}`), errorReply},
	} {
		if got := serveString(t, tt.in); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestNoAllocations: without -v, answering a request costs no allocation,
// whether it is valid or not: the benchmark mix, parse errors (a bad \u
// escape too), invalid requests, unknown methods, tools and resources,
// invalid arguments, escapes everywhere, and numbers of every shape that
// reading them exactly makes slow (see numberShapes).
func TestNoAllocations(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(string(benchRequests(10)), "\n"), "\n")
	for _, n := range numberShapes() {
		lines = append(lines, addCall(n.lit))
	}
	for _, line := range append(lines, []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"`,
		`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
		`{"jsonrpc":"1.0","id":"a\u0062","method":"ping"}`,
		`[1,{"jsonrpc":"2.0","method":"x"}]`,
		`[]`,
		`{"jsonrpc":"2.0","id":1,"method":"n\u006fpe"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"n\/pe","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":"x","\/b":2}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1.5,"b":` + strings.Repeat("9", 32) + `}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"p\u12G4"}`,
		echoCall(`"\ud83d"`, `"q\"\\ \u00e9 \ud800 `+"\xff"+`"`),
		`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"memo:\/\/nope"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-1\u0038"}}`,
	}...) {
		// A server of its own for each line, so no line's buffers are
		// grown by another; AllocsPerRun's first call, not counted, may.
		s := newServer(nil, io.Discard, defaultMaxMessage)
		b := []byte(line)
		if n := testing.AllocsPerRun(100, func() { s.answer(b, false); s.out.flush() }); n != 0 {
			t.Errorf("%.1f allocations to answer %s", n, line)
		}
	}
	s := newServer(nil, io.Discard, defaultMaxMessage)
	if n := testing.AllocsPerRun(100, func() { s.answer(nil, true); s.out.flush() }); n != 0 {
		t.Errorf("%.1f allocations to answer a line over the limit", n)
	}
}

// TestSignalAtStart: a SIGTERM at any moment after mcp is spawned, with a
// request waiting on its stdin, has one of two outcomes, and stdout holds
// nothing or the whole reply, never part of it: during the Go runtime's
// start-up, before main installs its handler, the signal kills it; after,
// it exits 0. (A signal in the window can kill it a moment late: the
// runtime marks it unhandled and raises it again, and if that thread is
// descheduled in between, main may answer first; seen once in 40,000
// spawns.) 20 spawns at each of 0 to 4.5 ms after the spawn; how many the
// signal killed at each delay is logged, as it depends on the machine and
// its load (see the README).
func TestSignalAtStart(t *testing.T) {
	var killed []string
	late := 0 // killed after the reply was written
	for us := 0; us <= 4500; us += 500 {
		n := 0
		for range 20 {
			c := startChild(t)
			fmt.Fprintf(c.stdin, "%s\n", pingLine)
			for start := time.Now(); time.Since(start) < time.Duration(us)*time.Microsecond; {
			}
			c.cmd.Process.Signal(syscall.SIGTERM)
			out, st := c.finish(t)
			ws := st.Sys().(syscall.WaitStatus)
			switch whole := len(out) == 0 || string(out) == pingReply; {
			case ws.Signaled() && ws.Signal() == syscall.SIGTERM && whole:
				n++
				late += len(out) / len(pingReply)
			case ws.Exited() && ws.ExitStatus() == 0 && whole:
			default:
				t.Fatalf("SIGTERM %d µs after the spawn: %v, stdout %q, stderr %q", us, st, out, c.stderr.Bytes())
			}
		}
		killed = append(killed, fmt.Sprintf("%.1f ms: %d", float64(us)/1000, n))
	}
	t.Logf("killed by the signal, of 20, at each delay: %s; %d of them after the reply", strings.Join(killed, ", "), late)
}

// tooLongReply is the reply to a line over a limit of max bytes.
func tooLongReply(max int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"message longer than %d bytes"}}`+"\n", max)
}

// TestLineLimit: a line over the limit is answered with Invalid Request,
// whatever its size relative to the read buffer, and the next line is
// served; a line exactly at the limit is served, and a blank line over it
// skipped, as blank lines are.
func TestLineLimit(t *testing.T) {
	for _, limit := range []int{100, readSize - 1, readSize, readSize + 1, 3*readSize + 7} {
		fits := echoCall("1", `"`+strings.Repeat("x", limit-len(echoCall("1", `""`)))+`"`)
		over := fits + " "
		blank := strings.Repeat(" \t", limit) // over the limit, and skipped
		for _, tail := range []string{"\n", "\r\n"} {
			in := fits + tail + over + tail + blank + tail + pingLine + tail + over // the last line has no newline
			var out bytes.Buffer
			if err := newServer(strings.NewReader(in), &out, limit).run(); err != nil {
				t.Fatal(err)
			}
			want := textReply("1", strings.Repeat("x", limit-len(echoCall("1", `""`)))) +
				tooLongReply(limit) + pingReply + tooLongReply(limit)
			if out.String() != want {
				t.Errorf("limit %d, tail %q: got %q, want %q", limit, tail, clip(out.String(), 300), clip(want, 300))
			}
		}
	}
}

// TestLargestLimit: a limit of the largest int serves long lines (with
// limit+1 computed, it overflowed and rejected every line over 64 KiB).
func TestLargestLimit(t *testing.T) {
	text := strings.Repeat("x", 3*readSize)
	var out bytes.Buffer
	if err := newServer(strings.NewReader(echoCall("1", `"`+text+`"`)+"\r\n"), &out, math.MaxInt).run(); err != nil {
		t.Fatal(err)
	}
	if want := textReply("1", text); out.String() != want {
		t.Errorf("got %q, want the echo", clip(out.String(), 200))
	}
}

// TestBOMOnlyFirst: a byte order mark is skipped only at the very start
// of input, even when the first line was over the limit, and only one.
func TestBOMOnlyFirst(t *testing.T) {
	over := echoCall("1", `"`+strings.Repeat("x", 200)+`"`)
	var out bytes.Buffer
	if err := newServer(strings.NewReader(over+"\n\uFEFF"+pingLine+"\n"), &out, 100).run(); err != nil {
		t.Fatal(err)
	}
	if want := tooLongReply(100) + parseError; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	out.Reset()
	if err := newServer(strings.NewReader("\uFEFF\uFEFF"+pingLine+"\n"+pingLine+"\n"), &out, 100).run(); err != nil {
		t.Fatal(err)
	}
	if want := parseError + pingReply; out.String() != want {
		t.Errorf("two byte order marks: got %q, want %q (only the first is skipped)", out.String(), want)
	}
}

// TestBOMAtLimit: the byte order mark before the first line does not
// count toward its length, however many reads the line spans: a first
// line of exactly the limit after a BOM is served, and one byte longer is
// not, ended by LF, by CRLF or by the end of input.
func TestBOMAtLimit(t *testing.T) {
	for _, limit := range []int{readSize - 4, readSize - 3, readSize - 2, 2*readSize - 4, 2*readSize - 2, 4<<20 - 2} {
		text := strings.Repeat("x", limit-len(echoCall("1", `""`)))
		fits := echoCall("1", `"`+text+`"`)
		for _, tail := range []string{"\n", "\r\n", ""} {
			for _, over := range []bool{false, true} {
				line, want := fits, textReply("1", text)
				if over {
					line, want = fits+" ", tooLongReply(limit)
				}
				var out bytes.Buffer
				if err := newServer(strings.NewReader("\uFEFF"+line+tail), &out, limit).run(); err != nil {
					t.Fatal(err)
				}
				if out.String() != want {
					t.Errorf("limit %d, tail %q, over %v: got %q, want %q", limit, tail, over, clip(out.String(), 200), clip(want, 200))
				}
			}
		}
	}
}

// child is a running mcp binary with its pipes.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr bytes.Buffer

	stdoutPipe io.ReadCloser // the read end of the child's stdout
}

// startChild starts the binary; the caller reads stdout and closes stdin.
func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	return startCommand(t, exec.Command(mcpPath(t), args...))
}

// startLogging starts the binary with -v, its stderr a pipe whose read
// end it returns, for the test to read when it chooses.
func startLogging(t *testing.T) (*child, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cmd := exec.Command(mcpPath(t), "-v")
	cmd.Stderr = w
	c := startCommand(t, cmd)
	w.Close()
	return c, r
}

// startCommand is startChild for a command that runs mcp some other way.
func startCommand(t *testing.T, cmd *exec.Cmd) *child {
	t.Helper()
	c := &child{cmd: cmd}
	if c.cmd.Stderr == nil {
		c.cmd.Stderr = &c.stderr
	}
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.stdoutPipe = out
	c.stdout = bufio.NewReaderSize(deadlineReader{out.(*os.File)}, 1<<20)
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			c.cmd.Process.Kill()
			c.cmd.Wait()
		}
	})
	return c
}

// hangAfter is how long a process-level test waits for one read of a
// child's output, or for it to exit, before it fails as hung: far longer
// than any step takes, so it is a hang, not a timing check, and far
// shorter than go test's own timeout.
const hangAfter = 20 * time.Second

// deadlineReader reads a pipe, failing a read that takes hangAfter.
type deadlineReader struct{ f *os.File }

func (r deadlineReader) Read(p []byte) (int, error) {
	r.f.SetReadDeadline(time.Now().Add(hangAfter))
	return r.f.Read(p)
}

// finish reads the rest of the child's stdout to its end, then waits for
// the child to exit, and returns what it read: Wait closes the pipe, so it
// must not run while a read may still be under way. A child that has not
// exited within hangAfter is killed and fails the test.
func (c *child) finish(t *testing.T) ([]byte, *os.ProcessState) {
	t.Helper()
	var hung atomic.Bool
	timer := time.AfterFunc(hangAfter, func() { hung.Store(true); c.cmd.Process.Kill() })
	defer timer.Stop()
	rest, err := io.ReadAll(c.stdout)
	if err != nil && !errors.Is(err, os.ErrClosed) {
		t.Errorf("reading stdout: %v", err)
	}
	c.cmd.Wait()
	if hung.Load() {
		t.Fatalf("mcp did not exit within %v", hangAfter)
	}
	return rest, c.cmd.ProcessState
}

// peakRSS returns the child's peak resident memory (VmHWM) in bytes.
func (c *child) peakRSS(t *testing.T) int { return c.procStatus(t, "VmHWM:") }

// rss returns the child's resident memory (VmRSS) in bytes.
func (c *child) rss(t *testing.T) int { return c.procStatus(t, "VmRSS:") }

// procStatus returns a size from the child's /proc status, in bytes, or
// 0 for a binary built with the race detector, whose shadow memory
// multiplies it: memory bounds are for the real binary.
func (c *child) procStatus(t *testing.T, field string) int {
	t.Helper()
	if raceEnabled() {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == field {
			kb, _ := strconv.Atoi(f[1])
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc status", field)
	return 0
}

// TestEOFAnswersEverything: 1,000 pipelined requests, then EOF: all are
// answered, in order, and the exit status is 0.
func TestEOFAnswersEverything(t *testing.T) {
	t.Parallel()
	var in bytes.Buffer
	for i := range 1000 {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":0.5}}}`+"\n", i, i)
		case 1:
			fmt.Fprintf(&in, "%s\n", echoCall(strconv.Itoa(i), `"line `+strconv.Itoa(i)+`"`))
		default:
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"memo://welcome"}}`+"\n", i)
		}
	}
	c := startChild(t)
	go func() {
		c.stdin.Write(in.Bytes())
		c.stdin.Close()
	}()
	out, st := c.finish(t)
	if st.ExitCode() != 0 {
		t.Fatalf("exit status %v, stderr %q", st, c.stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 1000 {
		t.Fatalf("%d replies to 1000 requests", len(lines))
	}
	for i, line := range lines {
		if !strings.HasPrefix(line, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":`, i)) {
			t.Fatalf("reply %d out of order or failed: %s", i, line)
		}
	}
}

// TestSignalStopsGracefully: SIGTERM or SIGINT in the middle of a
// pipelined stream (stdin still open) finishes the request in hand,
// writes every reply owed as whole lines, in order, and exits 0.
func TestSignalStopsGracefully(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		c := startChild(t)
		go func() {
			for i := 0; ; i++ {
				if _, err := fmt.Fprintf(c.stdin, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":1}}}`+"\n", i, i); err != nil {
					return
				}
			}
		}()
		var out bytes.Buffer
		for range 100 { // the stream is under way
			line, err := c.stdout.ReadString('\n')
			if err != nil {
				t.Fatalf("%v: reply %d: %v", sig, out.Len(), err)
			}
			out.WriteString(line)
		}
		c.cmd.Process.Signal(sig)
		rest, st := c.finish(t)
		out.Write(rest)
		if st.ExitCode() != 0 || c.stderr.Len() > 0 {
			t.Fatalf("%v: exit status %v, stderr %q", sig, st, c.stderr.Bytes())
		}
		if !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
			t.Fatalf("%v: output does not end with a whole line: ...%q", sig, out.Bytes()[max(0, out.Len()-200):])
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		for i, line := range lines {
			if want := textReply(strconv.Itoa(i), strconv.Itoa(i+1)); line+"\n" != want {
				t.Fatalf("%v: reply %d is %q, want %q", sig, i, line, want)
			}
		}
		t.Logf("%v: %d replies, then exit 0", sig, len(lines))
	}
}

// TestSignalWhileIdle: a signal while the server waits for input (stdin
// open, nothing owed) ends it at once with status 0; with -v it says so
// in one log line, without a trace.
func TestSignalWhileIdle(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"-v"}} {
		c := startChild(t, args...)
		fmt.Fprintf(c.stdin, "%s\n", pingLine)
		if got, err := c.stdout.ReadString('\n'); err != nil || got != pingReply {
			t.Fatalf("%v: reply %q, %v", args, got, err)
		}
		c.cmd.Process.Signal(syscall.SIGTERM)
		rest, st := c.finish(t)
		want := ""
		if len(args) > 0 {
			want = "mcp: \"ping\" id=\"after\" "
		}
		if st.ExitCode() != 0 || len(rest) > 0 || !strings.HasPrefix(c.stderr.String(), want) || strings.Contains(c.stderr.String(), "goroutine") ||
			len(args) > 0 && !strings.HasSuffix(c.stderr.String(), "\nmcp: terminated: stopping\n") {
			t.Fatalf("%v: exit status %v, stderr %q", args, st, c.stderr.Bytes())
		}
	}
}

// TestSecondSignalExitsAtOnce: when the first signal cannot finish (the
// client stopped reading in the middle of a reply, so a write is blocked
// for good), a second one ends the process, with 128+the first signal,
// within killWait: the status shows that the first did not end it. The
// two signals differ, as two SIGTERMs sent at once can arrive as one, and
// either may arrive first.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	t.Parallel() // it waits killWait
	c := startChild(t)
	fmt.Fprintf(c.stdin, "%s\n", pingLine)
	if got, err := c.stdout.ReadString('\n'); got != pingReply {
		t.Fatalf("first reply %q, %v", got, err)
	}
	// A reply far longer than a pipe holds: once its first byte is here,
	// the server is writing it, and blocks, as nothing more is read.
	go fmt.Fprintf(c.stdin, "%s\n", echoCall("2", `"`+largeText(4<<20)+`"`))
	if _, err := c.stdout.Peek(1); err != nil {
		t.Fatal(err)
	}
	c.cmd.Process.Signal(syscall.SIGINT)
	c.cmd.Process.Signal(syscall.SIGTERM)
	timer := time.AfterFunc(hangAfter, func() { c.cmd.Process.Kill() })
	defer timer.Stop()
	c.cmd.Wait() // stdout is left unread on purpose
	if st := c.cmd.ProcessState; st.ExitCode() != 128+int(syscall.SIGINT) && st.ExitCode() != 128+int(syscall.SIGTERM) || c.stderr.Len() > 0 {
		t.Fatalf("exit status %v, stderr %q; want 128+SIGINT or 128+SIGTERM, and nothing", st, c.stderr.Bytes())
	}
}

// TestClosedStdout: when the client closes our stdout, the server exits
// promptly with status 1 rather than spinning or hanging: quietly, or with
// -v, saying why in the last log line, however full the log queue was.
func TestClosedStdout(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"-v"}} {
		c := startChild(t, args...)
		c.stdoutPipe.Close()
		go func() {
			for i := 0; ; i++ {
				if _, err := fmt.Fprintf(c.stdin, "%s\n", pingLine); err != nil {
					return
				}
			}
		}()
		_, st := c.finish(t)
		if st.Success() {
			t.Fatalf("%v: exit status %v after stdout closed", args, st)
		}
		logText := c.stderr.String()
		if args == nil && logText != "" {
			t.Fatalf("not quiet: stderr %q", logText)
		}
		if args != nil && !strings.HasSuffix(logText, "broken pipe: stopping\n") {
			t.Fatalf("-v: the log does not end with the reason: ...%q", logText[max(0, len(logText)-300):])
		}
		t.Logf("%v: exit %v", args, st)
	}
}

// largeText is n bytes of varied ASCII text that needs no escaping.
func largeText(n int) string {
	const pat = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-_"
	b := make([]byte, n)
	for i := range b {
		b[i] = pat[(i*7+i/4096)%len(pat)]
	}
	return string(b)
}

// TestLargeEcho: 16 MiB and 60 MiB echoes come back byte for byte, and
// the 16 MiB one peaks under 4x its size in resident memory.
func TestLargeEcho(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("large messages: skipped with -short")
	}
	for _, mib := range []int{16, 60} {
		text := largeText(mib << 20)
		c := startChild(t)
		go func() {
			fmt.Fprintf(c.stdin, "%s\n", echoCall("7", `"`+text+`"`))
		}()
		got, err := c.stdout.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		rss := c.peakRSS(t)
		c.stdin.Close()
		if rest, st := c.finish(t); st.ExitCode() != 0 || len(rest) > 0 {
			t.Fatalf("exit status %v, %d more bytes", st, len(rest))
		}
		if want := textReply("7", text); got != want {
			t.Fatalf("%d MiB echo: reply of %d bytes differs from the %d expected", mib, len(got), len(want))
		}
		t.Logf("%d MiB echo: peak RSS %.1f MiB", mib, float64(rss)/(1<<20))
		if mib == 16 && rss >= 4*(mib<<20) {
			t.Errorf("%d MiB echo: peak RSS %.1f MiB, want under %d MiB", mib, float64(rss)/(1<<20), 4*mib)
		}
	}
}

// TestOverLimitLine: at the default limit, a line of 64 MiB + 1 byte is
// answered with Invalid Request and the next line is served.
func TestOverLimitLine(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("large messages: skipped with -short")
	}
	c := startChild(t)
	go func() {
		line := echoCall("1", `"`+largeText(defaultMaxMessage-len(echoCall("1", `""`))+1)+`"`)
		fmt.Fprintf(c.stdin, "%s\n%s\n", line, pingLine)
		c.stdin.Close()
	}()
	out, st := c.finish(t)
	if st.ExitCode() != 0 {
		t.Fatalf("exit status %v", st)
	}
	want := tooLongReply(defaultMaxMessage) + pingReply
	if string(out) != want {
		t.Fatalf("got %q, want %q", clip(string(out), 300), want)
	}
}

// TestGiBWithoutNewline: a 1 GiB line with no newline at all is dropped as
// it is read: the process stays under 100 MiB resident and answers at EOF.
func TestGiBWithoutNewline(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("large messages: skipped with -short")
	}
	c := startChild(t)
	chunk := []byte(largeText(1 << 20))
	fmt.Fprint(c.stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`)
	for range 1024 {
		if _, err := c.stdin.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	rss := c.peakRSS(t)
	c.stdin.Close()
	out, st := c.finish(t)
	if st.ExitCode() != 0 {
		t.Fatalf("exit status %v", st)
	}
	want := tooLongReply(defaultMaxMessage)
	if string(out) != want {
		t.Fatalf("got %q, want %q", out, want)
	}
	t.Logf("1 GiB without newline: peak RSS %.1f MiB", float64(rss)/(1<<20))
	if rss >= 100<<20 {
		t.Errorf("peak RSS %.1f MiB, want under 100 MiB", float64(rss)/(1<<20))
	}
}

// TestVerboseLog: -v writes one line per request to stderr and nothing
// else changes.
func TestVerboseLog(t *testing.T) {
	in, _ := os.ReadFile("testdata/handshake_then_tools.in")
	want, _ := os.ReadFile("testdata/handshake_then_tools.out")
	out, stderr := runBinary(t, in, "-v")
	if !bytes.Equal(out, want) {
		t.Errorf("stdout with -v differs:\n%s", firstDiff(in, out, want))
	}
	lines := strings.Split(strings.TrimSuffix(string(stderr), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("want 5 log lines (one per request, then why it stopped), got %d: %q", len(lines), stderr)
	}
	for i, method := range []string{`"initialize" id=0`, `"ping" id=1`, `"tools/list" id=2`, `"resources/templates/list" id=3`} {
		if !strings.HasPrefix(lines[i], "mcp: "+method+" ") || !strings.HasSuffix(lines[i], " ok") {
			t.Errorf("log line %d: %q, want method, id, duration, outcome", i, lines[i])
		}
	}
	if lines[4] != "mcp: end of input: stopping" {
		t.Errorf("last log line %q, want the reason for stopping", lines[4])
	}
}

// TestLogOutcomes: with -v, each request's line ends with its outcome: ok,
// "tool error" for a tool result with isError, or the error code, and for
// Invalid params which member was wrong and how; a line that is not JSON
// says where, and that a message must be on one line if it ends inside
// one, as the first line of a request written over several does.
func TestLogOutcomes(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":"x","b":2}}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"nope"}` + "\n" +
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":"a=1"}}` + "\n" +
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"arguments":{}}}` + "\n" +
		`{"jsonrpc":"2.0","id":6,"method":"ping","params":[]}` + "\n" +
		`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"x"}}` + "\n" +
		`{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}` + "\n" +
		"{\n" + `  "jsonrpc": "2.0",` + "\n}\n"
	lines := serveLogged(t, in)
	notJSON := "mcp: - id=null error -32700: the line is not JSON: "
	want := []string{" ok", " tool error", " error -32601",
		" error -32602: params.arguments is a string, not an object",
		" error -32602: params.name is missing",
		" error -32602: params is an array, not an object",
		" error -32602: params.cursor is a string, not absent: mcp issues no cursors",
		" error -32602: _meta.io.modelcontextprotocol/clientCapabilities is missing",
		"mcp: - id=null error -32700: the line ends inside a JSON value (each message must be on one line)",
		notJSON + `":" at byte 11`, notJSON + `"}" at byte 0`, "mcp: end of input: stopping"}
	if len(lines) != len(want) {
		t.Fatalf("log:\n%s", strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if !strings.HasSuffix(lines[i], w) {
			t.Errorf("log line %d: %q, want it to end %q", i+1, lines[i], w)
		}
	}
}

// serveLogged runs the serve loop in-process on input, logging as -v
// does, and returns the lines of the log.
func serveLogged(t *testing.T, input string) []string {
	t.Helper()
	var log bytes.Buffer
	s := newServer(strings.NewReader(input), io.Discard, defaultMaxMessage)
	s.log = newLogger(&log)
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
	s.log.close("mcp: end of input: stopping")
	return strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
}

// TestUnreadableStderr: with -v, a stderr whose reader is gone, or that
// nobody reads, never stalls or ends the session: every request is
// answered, log lines are dropped, and the exit status is 0.
func TestUnreadableStderr(t *testing.T) {
	t.Parallel()
	for _, closed := range []bool{true, false} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		if closed {
			r.Close()
		}
		cmd := exec.Command(mcpPath(t), "-v")
		cmd.Stderr = w
		var in bytes.Buffer
		const n = 20000 // far more log than a pipe holds
		for i := range n {
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
		}
		cmd.Stdin = &in
		type result struct {
			out []byte
			err error
		}
		done := make(chan result, 1) // not left blocked if the test gives up
		go func() {
			out, err := cmd.Output()
			done <- result{out, err}
		}()
		select {
		case res := <-done:
			if res.err != nil {
				t.Errorf("stderr closed %v: exit: %v", closed, res.err)
			}
			if got := bytes.Count(res.out, []byte("\n")); got != n {
				t.Errorf("stderr closed %v: %d replies to %d requests", closed, got, n)
			}
		case <-time.After(hangAfter):
			cmd.Process.Kill()
			t.Errorf("stderr closed %v: stalled", closed)
		}
		w.Close()
		if !closed {
			r.Close()
		}
	}
}

// errReader yields its data, then err.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestCtrlDOnATerminal: on a terminal, Ctrl-D ends the input as it ends
// cat's, after a line typed without Enter too: the first Ctrl-D sends
// that line, the second is end of input, and mcp answers the line and
// exits 0. It does not read again, as a terminal can be read after end of
// input (before, mcp waited for a third Ctrl-D).
func TestCtrlDOnATerminal(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the pseudo-terminal is opened the Linux way")
	}
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	const tiocsptlck, tiocgptn = 0x40045431, 0x80045430 // unlock it; its number
	var unlock int32
	var n uint32
	for _, ioctl := range []struct {
		req uintptr
		arg unsafe.Pointer
	}{{tiocsptlck, unsafe.Pointer(&unlock)}, {tiocgptn, unsafe.Pointer(&n)}} {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), ioctl.req, uintptr(ioctl.arg)); e != 0 {
			t.Fatalf("ioctl %#x: %v", ioctl.req, e)
		}
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(mcpPath(t))
	cmd.Stdin = tty
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	defer cmd.Process.Kill()
	go io.Copy(io.Discard, master) // what the terminal echoes
	io.WriteString(master, pingLine+"\x04\x04")
	got, err := io.ReadAll(deadlineReader{out.(*os.File)})
	if err != nil || string(got) != pingReply {
		t.Fatalf("after a line and two Ctrl-D: stdout %q, %v; want the reply, then the end", got, err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
}

// TestReadError: input that fails (not EOF) ends the loop with that error,
// after every whole line read before it is answered.
func TestReadError(t *testing.T) {
	broken := errors.New("broken input")
	var out bytes.Buffer
	err := newServer(&errReader{data: []byte(pingLine + "\n" + pingLine + "\n{\"partial"), err: broken}, &out, defaultMaxMessage).run()
	if err != broken {
		t.Errorf("run returned %v, want %v", err, broken)
	}
	if out.String() != pingReply+pingReply {
		t.Errorf("got %q, want two ping replies", out.String())
	}
}

// TestBuildsForEveryRelease: the package builds for each system make dist
// releases for (a syscall's types differ on Windows), not only this one.
func TestBuildsForEveryRelease(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"windows/amd64", "darwin/arm64"} {
		goos, goarch, _ := strings.Cut(target, "/")
		build := exec.Command("go", "build", "-o", os.DevNull, ".")
		build.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Errorf("go build for %s: %v\n%s", target, err, out)
		}
	}
}

// TestVersionAgrees: -version, initialize and server/discover name the same
// release version, and -version names the commit the same way whether the
// commit comes from make's -X main.commit or from the Go toolchain's own
// record of the checkout (or says "devel" when there is none).
func TestVersionAgrees(t *testing.T) {
	out, _ := runBinary(t, nil, "-version")
	var version, commit string
	if n, _ := fmt.Sscanf(string(out), "mcp %s (%s", &version, &commit); n != 2 || version != serverVersion || !strings.HasSuffix(string(out), ")\n") {
		t.Fatalf("-version printed %q, want \"mcp %s (COMMIT)\"", out, serverVersion)
	}
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	replies, _ := runBinary(t, []byte(in))
	info := `{"name":"shipcode-mcp","version":"` + version + `"}`
	if n := strings.Count(string(replies), info); n != 2 {
		t.Errorf("server info %s in %d of 2 replies:\n%s", info, n, replies)
	}
	head, err := exec.Command("git", "rev-parse", "--short=7", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: the commit in -version is not checked (%v)", err)
	}
	want := strings.TrimSpace(string(head))
	if status, _ := exec.Command("git", "status", "--porcelain").Output(); len(status) > 0 {
		want += "-dirty"
	}
	bin := filepath.Join(t.TempDir(), "mcp")
	for _, args := range [][]string{{"-buildvcs=true"}, {"-buildvcs=false", "-ldflags", "-X main.commit=" + want}} {
		build := exec.Command("go", append(append([]string{"build"}, args...), "-o", bin, ".")...)
		if b, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %v: %v\n%s", args, err, b)
		}
		if b, err := exec.Command(bin, "-version").Output(); err != nil || string(b) != "mcp "+serverVersion+" ("+want+")\n" {
			t.Errorf("built with %v, -version printed %q, %v; want commit %s", args, b, err, want)
		}
	}
}

// TestREADME keeps the README true: every test, fuzz target and benchmark
// it cites exists, as does every make target, mcp flag and golden fixture
// it names; its method table lists exactly the methods dispatch serves;
// a newcomer reaches the client registration in its first 80 lines; it
// names no commit but in -version's sample (the README tells what is, not
// what was); and its recipe for adding a tool, built into a copy of the
// package, serves the new tool.
func TestREADME(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	src, _ := os.ReadFile("main_test.go")
	for _, m := range regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark)[A-Z0-9]\w*`).FindAllString(text, -1) {
		if !strings.Contains(string(src), "\nfunc "+m+"(") {
			t.Errorf("README cites %s, which main_test.go does not define", m)
		}
	}
	makefile, _ := os.ReadFile("Makefile")
	for _, m := range regexp.MustCompile("(?m)(?:`|^    )make ([a-z]+)").FindAllStringSubmatch(text, -1) {
		if !regexp.MustCompile(`(?m)^` + m[1] + `:`).Match(makefile) {
			t.Errorf("README names make %s, which the Makefile lacks", m[1])
		}
	}
	help, _ := runBinary(t, nil, "-h")
	// -h is mcp's too: it prints the help, which does not list it.
	notOurs := []string{"-h", "-update", "-count", "-run", "-race", "-bench", "-benchmem", "-fuzz", "-fuzztime", "-short", "-trimpath", "-ldflags", "-buildvcs", "-cli", "-scope", "-debug"}
	for _, m := range regexp.MustCompile("`(-[a-z][a-z-]*)").FindAllStringSubmatch(text, -1) {
		if !slices.Contains(notOurs, m[1]) && !regexp.MustCompile(`(?m)^  `+m[1]+`\s`).Match(help) {
			t.Errorf("README names the flag %s, which mcp -h does not list", m[1])
		}
	}
	for _, m := range regexp.MustCompile("golden `([a-z0-9_]+)(\\*?)`|testdata[/\\\\]([a-z0-9_]+)\\.in").FindAllStringSubmatch(text, -1) {
		name := m[1] + m[3]
		if files, _ := filepath.Glob("testdata/" + name + m[2] + ".in"); len(files) == 0 {
			t.Errorf("README names the fixture %s%s, which testdata lacks", name, m[2])
		}
	}
	served := text[strings.Index(text, "## What it serves"):]
	served = served[:strings.Index(served, "\n\n| tool")]
	var table []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z/]+)` \\|").FindAllStringSubmatch(served, -1) {
		table = append(table, m[1])
	}
	if want := slices.Sorted(slices.Values(methodNames())); !slices.Equal(slices.Sorted(slices.Values(table)), want) {
		t.Errorf("README's method table lists %v; dispatch serves %v", table, want)
	}
	if n := strings.Count(text[:strings.Index(text, "claude mcp add")], "\n"); n >= 80 {
		t.Errorf("the first registration command is on line %d, want it in the first 80", n+1)
	}
	var tokens []string // all that could be commits: 7-40 hex digits
	for _, m := range regexp.MustCompile(`(mcp \d+\.\d+\.\d+ \()?\b([0-9a-f]{7,40})\b`).FindAllStringSubmatch(text, -1) {
		if m[1] != "" { // -version's sample
			continue
		}
		tokens = append(tokens, m[2])
		if strings.ContainsAny(m[2], "abcdef") && !regexp.MustCompile(`^\d+e\d*$`).MatchString(m[2]) {
			t.Errorf("README names %s, a commit it seems: history belongs in commit messages", m[2])
		}
	}
	check := exec.Command("git", "cat-file", "--batch-check") // and this repository's, all digits too
	check.Stdin = strings.NewReader(strings.Join(tokens, "\n") + "\n")
	if out, err := check.Output(); err == nil {
		for _, l := range strings.Split(string(out), "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[1] == "commit" {
				t.Errorf("README names %s, a commit of this repository", f[0][:7])
			}
		}
	}
	checkToolRecipe(t, text[strings.Index(text, "## Adding a tool"):])
}

// checkToolRecipe builds the README's recipe for adding a tool (its first
// Go block is the catalogue entry, the second the run function) into a
// copy of the package, adding each only if tools.go lacks it (a user who
// followed the recipe has both), pipes each testdata/recipe/NAME.in
// through the built binary and compares its stdout with NAME.out, which
// node computed (NAME.mjs); and checks that the reply the README shows is
// the first one there.
func checkToolRecipe(t *testing.T, section string) {
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(section, 2)
	if len(blocks) != 2 {
		t.Fatalf("the recipe for adding a tool has %d Go blocks, want 2", len(blocks))
	}
	entry, fn := blocks[0][1], blocks[1][1]
	bin := buildChanged(t, func(tools []byte) []byte {
		if !bytes.Contains(tools, []byte(strings.TrimSpace(entry))) {
			tools = bytes.Replace(tools, []byte("var tools = []tool{\n"), []byte("var tools = []tool{\n"+entry), 1)
		}
		if !bytes.Contains(tools, []byte(strings.TrimSpace(fn))) {
			tools = append(tools, "\n"+fn...)
		}
		return tools
	})
	ins, _ := filepath.Glob("testdata/recipe/*.in")
	if len(ins) == 0 {
		t.Fatal("no testdata/recipe/*.in")
	}
	for _, in := range ins {
		input, _ := os.ReadFile(in)
		want, err := os.ReadFile(strings.TrimSuffix(in, ".in") + ".out")
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin)
		cmd.Stdin = bytes.NewReader(input)
		got, err := cmd.Output()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("the recipe's tool on %s: %v\n%s", in, err, firstDiff(input, got, want))
		}
		if first, _, _ := strings.Cut(string(want), "\n"); strings.HasSuffix(in, "say.in") && !strings.Contains(section, "\n    "+first+"\n") {
			t.Errorf("the README does not show the reply %s", first)
		}
	}
}

// buildChanged builds the package, with tools.go changed by edit, in a
// directory of the test's, and returns the binary's path.
func buildChanged(t *testing.T, edit func(tools []byte) []byte) string {
	t.Helper()
	dir := t.TempDir()
	files, _ := filepath.Glob("*.go")
	for _, f := range append(files, "go.mod") {
		b, err := os.ReadFile(f)
		switch {
		case err != nil:
			t.Fatal(err)
		case strings.HasSuffix(f, "_test.go"):
			continue
		case f == "tools.go":
			b = edit(b)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := exec.Command("go", "build", "-o", "mcp", ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build with tools.go changed: %v\n%s", err, out)
	}
	return filepath.Join(dir, "mcp")
}

// methodNames lists the method table's names.
func methodNames() []string {
	var names []string
	for _, m := range methods {
		names = append(names, m.name)
	}
	return names
}

// TestFlags: -h lists every flag, the methods and the protocol versions;
// a stray argument is a usage error, and so is a -max-message-bytes that
// is not plain decimal digits, or under 1: 010 means 10, as a user means
// it (Go's flag.Int reads it as 8).
func TestFlags(t *testing.T) {
	help, _ := runBinary(t, nil, "-h")
	for _, want := range []string{"-max-message-bytes", "-v", "-version", "tools/call", "server/discover", "resources/templates/list", modernVersion, "2024-11-05"} {
		if !strings.Contains(string(help), want) {
			t.Errorf("-h does not mention %q:\n%s", want, help)
		}
	}
	if err := exec.Command(mcpPath(t), "stray").Run(); err == nil {
		t.Error("a stray argument was accepted")
	}
	for _, bad := range []string{"0x40", "1_000", "+100", "-1", "0", "", "1e3", "99999999999999999999"} {
		cmd := exec.Command(mcpPath(t), "-max-message-bytes", bad)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); cmd.ProcessState.ExitCode() != 2 || !strings.HasPrefix(stderr.String(), `mcp: invalid value "`+bad+`" for flag -max-message-bytes: `) {
			t.Errorf("-max-message-bytes %q: %v, stderr %q; want status 2 and the reason", bad, err, clip(stderr.String(), 200))
		}
	}
	if out, _ := runBinary(t, []byte(`{"jsonrpc":"2.0"}`+"\n"), "-max-message-bytes", "010"); string(out) != tooLongReply(10) {
		t.Errorf("-max-message-bytes 010: %q, want %q", out, tooLongReply(10))
	}
}

// gcPercent returns the process's GC percent, leaving it as it is.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// percentReader is a reader that notes the GC percent in force at each
// read past the first MiB of the line it reads.
type percentReader struct {
	r    io.Reader
	n    int
	seen []int
}

func (pr *percentReader) Read(p []byte) (int, error) {
	if pr.n > bigLine {
		pr.seen = append(pr.seen, gcPercent())
	}
	n, err := pr.r.Read(p)
	pr.n += n
	return n, err
}

// TestCollectorWhileBigLineRead: the collector is off while a big line is
// read, from its first MiB until it is joined, and the process's setting
// is in force again once it is (a tool sees it), whether the line was
// served or over the limit; and as the setting is the process's, two
// servers whose big lines are read at once (A's starts, B's starts, A's
// ends, B's ends) leave it as it was, and B's is still read with it off.
func TestCollectorWhileBigLineRead(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(77))
	saved := tools
	defer func() { tools = saved }()
	tools = append(slices.Clone(saved), tool{name: "gc", args: []arg{{"text", "string"}}, run: func(arguments) toolResult {
		return textResult(strconv.Itoa(gcPercent()))
	}})
	big := strings.Repeat("x", 2*bigLine)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gc","arguments":{"text":"` + big + `"}}}` + "\n"
	for _, limit := range []int{defaultMaxMessage, bigLine + readSize} {
		pr := &percentReader{r: strings.NewReader(call)}
		var out bytes.Buffer
		if err := newServer(pr, &out, limit).run(); err != nil {
			t.Fatal(err)
		}
		want := textReply("1", "77")
		if limit < len(call) {
			want = tooLongReply(limit)
		}
		if out.String() != want || len(pr.seen) == 0 || slices.ContainsFunc(pr.seen[:len(pr.seen)-1], func(p int) bool { return p != -1 }) {
			t.Errorf("limit %d: %q, GC percent at each read past 1 MiB %v; want -1 but for the read at the end", limit, clip(out.String(), 200), pr.seen)
		}
		if p := gcPercent(); p != 77 {
			t.Errorf("limit %d: GC percent %d after, want 77", limit, p)
		}
	}
	type session struct {
		in   *io.PipeWriter
		done chan error
	}
	start := func() session {
		inR, inW := io.Pipe()
		s := session{in: inW, done: make(chan error, 1)}
		go func() { s.done <- newServer(inR, io.Discard, defaultMaxMessage).run() }()
		return s
	}
	// open writes the first MiB and more of a big line; io.Pipe returns
	// once the server has read it all, in reads of at most readSize.
	open := func(s session) { io.WriteString(s.in, call[:bigLine+2*readSize]) }
	end := func(s session) {
		io.WriteString(s.in, call[bigLine+2*readSize:])
		s.in.Close()
		if err := <-s.done; err != nil {
			t.Fatal(err)
		}
	}
	a, b := start(), start()
	open(a)
	open(b)
	end(a)
	if p := gcPercent(); p != -1 {
		t.Errorf("GC percent %d while B's big line is read, after A's, want -1", p)
	}
	end(b)
	if p := gcPercent(); p != 77 {
		t.Errorf("GC percent %d after two servers' big lines, want 77", p)
	}
}

// TestServerLetsGo: once run returns, nothing the server started (a
// timer, a goroutine) keeps it alive: it is collected.
func TestServerLetsGo(t *testing.T) {
	collected := make(chan struct{})
	func() {
		in := echoCall("1", `"`+strings.Repeat("x", 2*bigLine)+`"`) + "\n" + pingLine + "\n"
		s := newServer(strings.NewReader(in), io.Discard, defaultMaxMessage)
		runtime.AddCleanup(s, func(c chan struct{}) { close(c) }, collected)
		if err := s.run(); err != nil {
			t.Fatal(err)
		}
	}()
	deadline := time.After(10 * time.Second)
	for {
		runtime.GC()
		select {
		case <-collected:
			return
		case <-deadline:
			t.Fatal("the server is still reachable 10 s after run returned")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// readUntil reads the child's stdout up to the first time it ends with
// suffix, keeping only the end of what it reads.
func (c *child) readUntil(t *testing.T, suffix string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	var tail []byte
	for !bytes.HasSuffix(tail, []byte(suffix)) {
		n, err := c.stdout.Read(buf)
		tail = append(tail, buf[:n]...)
		tail = tail[max(0, len(tail)-len(suffix)-1024):]
		if err != nil {
			t.Fatalf("stdout ended or stalled before %q: %v; it ended %q; stderr %q", clip(suffix, 100), err, clip(string(tail), 300), clip(c.stderr.String(), 300))
		}
	}
}

// countReplies reads r to the end, counting the lines and how often sub
// occurs in them, without holding more than a piece of the output.
func countReplies(r io.Reader, sub []byte) (lines, hits int, last []byte, err error) {
	buf := make([]byte, 1<<20)
	var tail []byte // the end of the output so far, for matches across reads
	for {
		n, err := r.Read(buf)
		chunk := append(tail, buf[:n]...)
		lines += bytes.Count(buf[:n], []byte("\n"))
		hits += bytes.Count(chunk, sub) - bytes.Count(tail, sub)
		if len(chunk) > 256 {
			chunk = chunk[len(chunk)-256:]
		}
		tail = append([]byte(nil), chunk...)
		if err == io.EOF {
			return lines, hits, tail, nil
		} else if err != nil {
			return lines, hits, tail, err
		}
	}
}

// TestFewDescriptors: the runtime's poller, which timers need, takes file
// descriptors besides stdin, stdout and stderr (two on Linux). With any
// limit from 4 to 8 (ulimit -n), mcp either says in one line at start
// that there are too few and exits 1, writing nothing to stdout, or
// serves a session that sets timers (a big line whose memory is released
// once idle, -v's wait at exit) whole: never a fatal error mid-session,
// whatever descriptors the runtime itself holds at start (a cgroup file,
// on some hosts). Both outcomes occur.
func TestFewDescriptors(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set a descriptor limit with ulimit -n")
	}
	big := echoCall("1", `"`+strings.Repeat("x", 2*bigLine)+`"`)
	var outcomes []string
	for limit := 4; limit <= 8; limit++ { // at 3, a race-built binary's loader finds none
		cmd := exec.Command("sh", "-c", fmt.Sprintf("ulimit -n %d && exec %s -v", limit, mcpPath(t)))
		cmd.Stdin = strings.NewReader(big + "\n" + pingLine + "\n")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		switch {
		case cmd.ProcessState.ExitCode() == 1 && out.Len() == 0 && strings.Count(errb.String(), "\n") == 1 &&
			strings.Contains(errb.String(), "too few file descriptors"):
			outcomes = append(outcomes, fmt.Sprintf("%d: too few", limit))
		case err == nil && out.String() == textReply("1", strings.Repeat("x", 2*bigLine))+pingReply &&
			strings.HasSuffix(errb.String(), "mcp: end of input: stopping\n"):
			outcomes = append(outcomes, fmt.Sprintf("%d: served", limit))
		default:
			t.Errorf("ulimit -n %d: %v, stdout %q, stderr %q; want status 1 and one line that says why, or the session whole", limit, err, clip(out.String(), 100), clip(errb.String(), 300))
		}
	}
	if all := strings.Join(outcomes, ", "); !strings.Contains(all, "too few") || !strings.Contains(all, "served") {
		t.Errorf("outcomes by limit: %s; want both", all)
	}
	t.Logf("by limit: %s", strings.Join(outcomes, ", "))
}

// TestFreeDescriptors: freeDescriptors(2), the check at start, fails with
// exactly one descriptor free and passes with two. The test binary checks
// it as a child of its own (see freeDescriptorsChild), whose limit it can
// set to the descriptor: at mcp's start the runtime may hold some for a
// moment (cgroup files, on some hosts), so that through ulimit -n there
// may be no limit with exactly one free.
func TestFreeDescriptors(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "MCP_TEST_FREE_DESCRIPTORS=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%v: %s", err, out)
	}
}

// freeDescriptorsChild is the test binary as TestFreeDescriptors's child:
// it sets its descriptor limit just past its lowest free descriptor, then
// its second lowest, and returns the exit status: 0 if freeDescriptors
// told both right.
func freeDescriptorsChild() int {
	var free []uint64 // the two lowest free descriptors
	for fd := 3; len(free) < 2; fd++ {
		var st syscall.Stat_t
		if syscall.Fstat(fd, &st) != nil {
			free = append(free, uint64(fd))
		}
	}
	var lim syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	for i, want := range []bool{false, true} {
		lim.Cur = free[i] + 1 // i+1 of them free
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			fmt.Println(err)
			return 1
		}
		if freeDescriptors(2) != want {
			fmt.Printf("with %d descriptor(s) free, freeDescriptors(2) = %v\n", i+1, !want)
			return 1
		}
	}
	return 0
}

// TestBatchUnderAddressLimit: a 16 MiB batch of 0s owes 8 Mi error replies
// (640 MiB); under a 1.6 GB address-space cap it is answered in full, as
// one line, and the next request is served.
func TestBatchUnderAddressLimit(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("large messages: skipped with -short")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set an address-space limit with ulimit -v")
	}
	const n = 8 << 20
	line := append(bytes.Repeat([]byte("0,"), n), '\n')
	line = append([]byte("["), line[:len(line)-2]...)
	line = append(line, "]\n"...)
	c := startCommand(t, exec.Command("sh", "-c", "ulimit -v 1600000 && exec "+mcpPath(t)))
	go func() {
		c.stdin.Write(line)
		fmt.Fprintf(c.stdin, "%s\n", pingLine)
		c.stdin.Close()
	}()
	lines, hits, last, err := countReplies(c.stdout, []byte(`"message":"Invalid Request"`))
	_, st := c.finish(t)
	if err != nil || !st.Success() || lines != 2 || hits != n || !bytes.HasSuffix(last, []byte("}]\n"+pingReply)) {
		t.Fatalf("exit %v, %v: %d lines, %d of %d replies, ending %q; stderr %q", st, err, lines, hits, n, last, clip(c.stderr.String(), 300))
	}
}

// TestBoundedMemory: whatever a line holds and makes the server write, its
// peak memory is bounded by the line, whatever came before: each case
// sends its line twice, back to back, while the replies are read at full
// speed (the second line went up to 30 MiB over the bound when the first
// one's memory was still held). Once
// idle (idleRelease) the server goes back under 16 MiB, with nothing sent
// after, so that nothing but the release can let go of the lines. The
// lines are of 20 to 24 MiB: the bounds are multiples of the line, and a
// line kept shows plainly against 16 MiB. Bounds: a batch (2 x line +
// 16 MiB), with -v too, its log lines read at full speed, and with one
// 20 MiB string id; an echo whose reply is three times as long (1.5 x
// (line + reply) + 16 MiB); a number for add (2 x line + 16 MiB); anything
// else (4 x line + 16 MiB): an echo, a numeric id, a notification, a line
// that is not JSON, an unknown tool whose name has an escape, a line of
// '[', member names with an escape each, in params or in a tool's
// arguments, which are decoded to be matched, and one unexpected argument
// whose name is most of the line, which the problems text decodes.
func TestBoundedMemory(t *testing.T) {
	if raceEnabled() || testing.Short() {
		t.Skip("memory bounds: for the binary without the race detector, and not with -short")
	}
	const mib = 1 << 20
	pings := "[" + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"},`, 500000)
	pings = pings[:len(pings)-1] + "]"
	// 65,536 members of 375 bytes, each named "\/aaa...".
	escapedNames := strings.Repeat(`"\/`+strings.Repeat("a", 367)+`":0,`, 65536)
	escapedNames = escapedNames[:len(escapedNames)-1]
	echo := echoCall("1", `"`+largeText(24*mib)+`"`)
	twice := func(l, r int) int { return 2*l + 16*mib }
	fourTimes := func(l, r int) int { return 4*l + 16*mib }
	cases := []struct {
		name  string
		args  []string
		line  string
		reply int // bytes of reply owed, for the bound
		bound func(line, reply int) int
	}{
		{"batch of pings", nil, pings, 0, twice},
		{"batch of pings, -v", []string{"-v"}, pings, 0, twice},
		{"batch with a string id", nil, `[{"jsonrpc":"2.0","id":"` + largeText(20*mib) + `","method":"ping"}]`, 0, twice},
		{"0xFF echo", nil, echoCall("1", `"`+strings.Repeat("\xff", 20*mib)+`"`), 60 * mib, func(l, r int) int { return 3*(l+r)/2 + 16*mib }},
		{"echo", nil, echo, 0, fourTimes},
		{"numeric id", nil, `{"jsonrpc":"2.0","id":` + strings.Repeat("7", 24*mib) + `,"method":"ping"}`, 0, fourTimes},
		{"notification", nil, `{"jsonrpc":"2.0","method":"notifications/x","params":{"text":"` + largeText(24*mib) + `"}}`, 0, fourTimes},
		{"not JSON", nil, echo[:len(echo)-1], 0, fourTimes},
		{"unknown tool name", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\n` + strings.Repeat("\xff\xfe", 10*mib) + `"}}`, 0, fourTimes},
		{"line of [", nil, strings.Repeat("[", 24*mib), 0, fourTimes},
		{"number", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":` + strings.Repeat("7", 20*mib) + `,"b":1}}}`, 0, twice},
		{"escaped names in params", nil, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + escapedNames + `}}`, 0, fourTimes},
		{"escaped argument names", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{` + escapedNames + `}}}`, 0, fourTimes},
		{"unexpected argument name", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2,"` + largeText(24*mib) + `":0}}}`, 0, fourTimes},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(mcpPath(t), tc.args...)
			cmd.Stderr = io.Discard // read at full speed
			c := startCommand(t, cmd)
			written := make(chan error, 1)
			go func() {
				_, err := fmt.Fprintf(c.stdin, "%s\n%s\n", tc.line, tc.line)
				written <- err
			}()
			replies := make(chan int, 1)
			go func() { lines, _, _, _ := countReplies(c.stdout, nil); replies <- lines }()
			if err := <-written; err != nil {
				t.Fatal(err)
			}
			// All but what the pipe holds is read: the line was held. Once
			// it is answered and the server idle, memory goes back.
			idle, rss := time.Now(), c.rss(t)
			for ; rss > 16*mib && time.Since(idle) < 10*time.Second; rss = c.rss(t) {
				time.Sleep(10 * time.Millisecond)
			}
			peak, bound := c.peakRSS(t), tc.bound(len(tc.line), tc.reply)
			c.stdin.Close()
			lines := <-replies
			c.finish(t)
			want := 2
			if strings.HasPrefix(tc.name, "notification") {
				want = 0
			}
			if lines != want {
				t.Errorf("%d reply lines, want %d", lines, want)
			}
			if peak > bound || peak < len(tc.line)/2 {
				t.Errorf("peak RSS %.0f MiB, want between %.0f (half the line: it was held) and %.0f", float64(peak)/mib, float64(len(tc.line))/2/mib, float64(bound)/mib)
			}
			if rss > 16*mib {
				t.Errorf("RSS still %.0f MiB after 10 s with nothing after the lines", float64(rss)/mib)
			}
			t.Logf("%s: line %.0f MiB, peak RSS %.0f MiB (bound %.0f), %.0f MiB %v after the last line was sent", tc.name, float64(len(tc.line))/mib,
				float64(peak)/mib, float64(bound)/mib, float64(rss)/mib, time.Since(idle).Round(10*time.Millisecond))
		})
	}
}

// TestOverLimitPause: a line over the limit is dropped as it is read, so
// while a client pauses in the middle of one, with nothing more sent, the
// server goes back under 16 MiB once idle; the line's end is then
// answered with Invalid Request, and the next line is served.
func TestOverLimitPause(t *testing.T) {
	if raceEnabled() {
		t.Skip("memory bounds are for the binary without the race detector")
	}
	t.Parallel()
	const mib = 1 << 20
	c := startChild(t)
	if _, err := io.WriteString(c.stdin, echoCall("1", `"`+largeText(70*mib))); err != nil {
		t.Fatal(err)
	}
	idle, rss := time.Now(), c.rss(t)
	for ; rss > 16*mib && time.Since(idle) < 10*time.Second; rss = c.rss(t) {
		time.Sleep(10 * time.Millisecond)
	}
	peak := c.peakRSS(t)
	fmt.Fprintf(c.stdin, "\"}}}\n%s\n", pingLine)
	c.stdin.Close()
	out, _ := c.finish(t)
	if want := tooLongReply(defaultMaxMessage) + pingReply; string(out) != want {
		t.Errorf("got %q, want %q", clip(string(out), 300), want)
	}
	if rss > 16*mib || peak < 32*mib {
		t.Errorf("RSS %.0f MiB after 10 s paused in a 70 MiB line (peak %.0f MiB), want under 16 MiB after a peak of the limit's size", float64(rss)/mib, float64(peak)/mib)
	}
	t.Logf("peak RSS %.0f MiB, %.0f MiB %v after the pause began", float64(peak)/mib, float64(rss)/mib, time.Since(idle).Round(10*time.Millisecond))
}

// TestLogCannotHurt: with -v and a stderr that nobody reads while the
// session runs, requests with 1 MiB method names cost no memory in the
// log queue, and a method with an escaped newline and ESC cannot forge a
// log line or reach the terminal raw. Lines that do not fit are dropped and
// counted in the log, and the reason for stopping is the last line once
// stderr is read.
func TestLogCannotHurt(t *testing.T) {
	t.Parallel()
	c, r := startLogging(t)
	long := strings.Repeat("m", 1<<20)
	forged := `x\nmcp: forged line\u001b[31m`
	go func() {
		for i := range 200 {
			fmt.Fprintf(c.stdin, `{"jsonrpc":"2.0","id":%d,"method":"%s"}`+"\n", i, long)
			fmt.Fprintf(c.stdin, `{"jsonrpc":"2.0","id":%d,"method":"%s"}`+"\n", i, forged)
		}
		for i := range 3000 { // more lines than the pipe and the queue hold
			fmt.Fprintf(c.stdin, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
		}
		fmt.Fprintf(c.stdin, "%s\n", pingLine)
	}()
	c.readUntil(t, pingReply)
	peak := c.peakRSS(t)
	c.stdin.Close()
	logText, _ := io.ReadAll(r)
	c.finish(t)
	if peak > 64<<20 {
		t.Errorf("peak RSS %.0f MiB with 200 MiB of method names and stderr unread", float64(peak)/(1<<20))
	}
	if bytes.IndexByte(logText, 0x1b) >= 0 {
		t.Errorf("raw ESC in the log: %q", clip(string(logText), 500))
	}
	logLines := strings.Split(strings.TrimSuffix(string(logText), "\n"), "\n")
	for _, l := range logLines {
		if !strings.HasPrefix(l, "mcp: ") || len(l) > 300 {
			t.Fatalf("log line not ours or too long: %q", clip(l, 300))
		}
	}
	if !regexp.MustCompile(`(?m)^mcp: [0-9]+ log lines dropped$`).MatchString(string(logText)) {
		t.Errorf("the log does not say that lines were dropped")
	}
	if got := logLines[len(logLines)-1]; got != "mcp: end of input: stopping" {
		t.Errorf("last log line %q, want the reason for stopping", got)
	}
	if !strings.Contains(string(logText), `mcp: "x\nmcp: forged line\x1b[31m" id=`) || !strings.Contains(string(logText), `mmm"...1048576 bytes id=`) {
		t.Errorf("log does not show the quoted method and the cut one:\n%s", clip(string(logText), 800))
	}
}

// TestNonblockingPipes: another process sharing our stdin, stdout or
// stderr pipe may make it non-blocking after we start (golang/go#58408);
// reads and writes then return EAGAIN, which must cost nothing: every
// reply arrives, and with -v every log line is written or counted as
// dropped, the reason for stopping last. The test sets O_NONBLOCK itself,
// on its own end of the shared pipe description, once the server has
// answered a first request (before that, the Go runtime would see the
// flag at start-up and cope by itself).
func TestNonblockingPipes(t *testing.T) {
	t.Parallel()
	for _, which := range []string{"stdin", "stdout", "stderr"} {
		inR, inW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		outR, outW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		errR, errW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(mcpPath(t), "-v")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		replies := bufio.NewReader(deadlineReader{outR})
		fmt.Fprintf(inW, "%s\n", pingLine)
		if got, err := replies.ReadString('\n'); got != pingReply {
			t.Fatalf("%s: first reply %q, %v", which, got, err)
		}
		shared := map[string]*os.File{"stdin": inR, "stdout": outW, "stderr": errW}[which]
		if err := syscall.SetNonblock(int(shared.Fd()), true); err != nil {
			t.Fatal(err)
		}
		inR.Close()
		outW.Close()
		errW.Close()
		const n = 20000
		go func() {
			defer inW.Close()
			for i := range n {
				if which == "stdin" && i%4000 == 0 {
					time.Sleep(30 * time.Millisecond) // idle: reads return EAGAIN
				}
				fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`+"\n", i)
			}
		}()
		logText := make(chan []byte)
		go func() {
			if which == "stderr" {
				time.Sleep(100 * time.Millisecond) // let the pipe fill: writes return EAGAIN
			}
			b, _ := io.ReadAll(errR)
			logText <- b
		}()
		if which == "stdout" {
			time.Sleep(100 * time.Millisecond) // likewise
		}
		lines, hits, _, err := countReplies(replies, []byte(`"result":{"tools":`))
		outR.Close()
		if werr := cmd.Wait(); werr != nil || err != nil || lines != n || hits != n {
			t.Errorf("%s made non-blocking: exit %v, read %v: %d lines, %d replies of %d", which, werr, err, lines, hits, n)
		}
		written, dropped := checkLog(t, <-logText, "mcp: end of input: stopping")
		if written+dropped != n+1 {
			t.Errorf("%s made non-blocking: %d log lines written and %d counted as dropped, want %d in all", which, written, dropped, n+1)
		}
		errR.Close()
	}
}

// TestSecondSignalEndsAtLineEnd: SIGINT then SIGTERM 1 ms later, as when
// Ctrl-C reaches the process group and then the client kills its child,
// while a 32 MiB reply is being written: the process exits promptly with
// 128+the signal it received first (or 0, if the reply was out before the
// second came), and stdout ends with a whole line.
func TestSecondSignalEndsAtLineEnd(t *testing.T) {
	// Not in parallel: the line being written must end within killWait.
	call := echoCall("1", `"`+largeText(32<<20)+`"`) + "\n"
	for run := range 6 {
		c := startChild(t)
		go func() {
			c.stdin.Write([]byte(call))
			fmt.Fprintf(c.stdin, "%s\n", pingLine)
		}()
		head := make([]byte, 1<<20)
		if _, err := io.ReadFull(c.stdout, head); err != nil {
			t.Fatal(err)
		}
		c.cmd.Process.Signal(syscall.SIGINT)
		time.Sleep(time.Millisecond)
		c.cmd.Process.Signal(syscall.SIGTERM)
		_, _, last, err := countReplies(c.stdout, []byte("\n"))
		_, st := c.finish(t)
		// Either signal may reach the process first: a thread handling the
		// first can be descheduled while another handles the second.
		if code := st.ExitCode(); err != nil || code != 128+int(syscall.SIGINT) && code != 128+int(syscall.SIGTERM) && code != 0 {
			t.Fatalf("run %d: exit %v, %v", run, st, err)
		}
		if !bytes.HasSuffix(last, []byte("\n")) {
			t.Fatalf("run %d: exit %v with stdout ending mid-line: %q", run, st, last)
		}
	}
}

// TestSIGHUP: a hang-up (the terminal or the parent's session closing)
// stops the server as SIGTERM does: every reply owed, exit 0.
func TestSIGHUP(t *testing.T) {
	t.Parallel()
	c := startChild(t)
	for i := range 100 {
		fmt.Fprintf(c.stdin, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
	}
	c.readUntil(t, `{"jsonrpc":"2.0","id":99,"result":{}}`+"\n")
	c.cmd.Process.Signal(syscall.SIGHUP)
	if rest, st := c.finish(t); st.ExitCode() != 0 || len(rest) > 0 {
		t.Fatalf("exit %v after SIGHUP", st)
	}
}

// TestStopReason: with -v, the log's last line says why mcp stopped, and
// the exit status agrees, whatever the server was doing when a signal
// came: answering a stream of requests (10 runs); writing a 16 MiB reply
// that the client reads slowly; or given a second signal 1 ms after the
// first during such a reply.
func TestStopReason(t *testing.T) {
	// Not in parallel: the line being written must end within killWait.
	lastLine := func(c *child) string {
		lines := strings.Split(strings.TrimSuffix(c.stderr.String(), "\n"), "\n")
		return lines[len(lines)-1]
	}
	for run := range 10 {
		c := startChild(t, "-v")
		go func() {
			for {
				if _, err := fmt.Fprintf(c.stdin, "%s\n", pingLine); err != nil {
					return
				}
			}
		}()
		c.readUntil(t, strings.Repeat(pingReply, 1000))
		c.cmd.Process.Signal(syscall.SIGTERM)
		if _, st := c.finish(t); st.ExitCode() != 0 || lastLine(c) != "mcp: terminated: stopping" {
			t.Fatalf("busy, run %d: exit %v, last log line %q", run, st, lastLine(c))
		}
	}
	echo := echoCall("1", `"`+largeText(16<<20)+`"`) + "\n"
	for _, second := range []bool{false, true} {
		c := startChild(t, "-v")
		go c.stdin.Write([]byte(echo))
		if _, err := io.ReadFull(c.stdout, make([]byte, 1<<20)); err != nil { // the reply is being written
			t.Fatal(err)
		}
		c.cmd.Process.Signal(syscall.SIGINT)
		if second {
			time.Sleep(time.Millisecond) // as when a client follows Ctrl-C with its own signal
			c.cmd.Process.Signal(syscall.SIGTERM)
		}
		rest, st := c.finish(t)
		// Either signal may come first; if the reply was out before the
		// second came, the first stopped the server alone.
		want := map[int][]string{0: {"mcp: interrupt: stopping"}}
		if second {
			want[0] = append(want[0], "mcp: terminated: stopping")
			want[128+int(syscall.SIGINT)] = []string{"mcp: interrupt, then terminated: stopping"}
			want[128+int(syscall.SIGTERM)] = []string{"mcp: terminated, then interrupt: stopping"}
		}
		if !slices.Contains(want[st.ExitCode()], lastLine(c)) || !bytes.HasSuffix(rest, []byte("}}\n")) {
			t.Errorf("second signal %v: exit %v, last log line %q, reply ends %q; want a whole line and one of %v",
				second, st, lastLine(c), rest[max(0, len(rest)-20):], want)
		}
	}
}

// TestLogAccounting: with -v and a stderr that is not read while the
// session runs, every log line produced is either written or counted in
// a "log lines dropped" line, and the reason for stopping comes last: of
// 100,000 requests, written + counted = 100,000. stderr is read 300 ms
// after input ends, while close still writes the queued lines, and
// 700 ms after, when it counts them instead (past half of logWait).
func TestLogAccounting(t *testing.T) {
	for _, late := range []time.Duration{300 * time.Millisecond, 700 * time.Millisecond} {
		t.Run(late.String(), func(t *testing.T) {
			t.Parallel()
			c, r := startLogging(t)
			const n = 100000
			go func() {
				in := bufio.NewWriter(c.stdin)
				for i := range n {
					fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
				}
				in.Flush()
			}()
			for i := range n {
				if _, err := c.stdout.ReadSlice('\n'); err != nil {
					t.Fatalf("reply %d: %v", i, err)
				}
			}
			c.stdin.Close()
			time.Sleep(late) // the reader is late
			logText, _ := io.ReadAll(r)
			c.finish(t)
			written, counted := checkLog(t, logText, "mcp: end of input: stopping")
			if written+counted != n {
				t.Errorf("%d log lines written and %d counted as dropped, want %d in all", written, counted, n)
			}
			t.Logf("%d log lines written, %d dropped and counted", written, counted)
		})
	}
}

// checkLog checks that every line of a -v log is one of ours and that the
// last is want, and returns how many lines it has besides the last and
// the "N log lines dropped" ones, and the sum of those N.
func checkLog(t *testing.T, log []byte, want string) (written, dropped int) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(log), "\n"), "\n")
	if last := lines[len(lines)-1]; last != want {
		t.Errorf("last log line %q, want %q", last, want)
	}
	for _, l := range lines[:len(lines)-1] {
		var d int
		switch _, err := fmt.Sscanf(l, "mcp: %d log lines dropped", &d); {
		case err == nil:
			dropped += d
		case strings.HasPrefix(l, "mcp: "):
			written++
		default:
			t.Fatalf("not a log line of ours: %q", l)
		}
	}
	return written, dropped
}

// TestMethodsDispatch: every method the usage text lists reaches its
// handler (in the era that has it), and no other method does.
func TestMethodsDispatch(t *testing.T) {
	modernMeta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, m := range append(methodNames(), "tools/cal", "nope") {
		params := `{"name":"add","arguments":{"a":1,"b":2},"uri":"memo://welcome"}`
		if m == "server/discover" {
			params = `{` + modernMeta + `}`
		}
		got := serveString(t, `{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":`+params+`}`+"\n")
		found := !strings.Contains(got, `"code":-32601`)
		if found != slices.Contains(methodNames(), m) {
			t.Errorf("%s: %s", m, got)
		}
	}
}

// addCall is a tools/call of add with a = lit and b = 1.5.
func addCall(lit string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":` + lit + `,"b":1.5}}}`
}

// numberShapes are number literals of the shapes that cost most to read
// exactly, and 1.5 to compare them with: beyond the largest double or
// below the smallest, at the subnormal and overflow boundaries, with 17
// or 33 digits, halfway between two doubles, and 778 digits a hair from
// halfway (the point between the largest subnormal and the smallest
// normal, 767 digits, then 0s and a 1).
func numberShapes() []struct{ name, lit string } {
	half := new(big.Float).SetPrec(2000).SetMantExp(big.NewFloat(float64(1<<53-1)), -1075).Text('e', 800)
	mant, exp, _ := strings.Cut(half, "e")
	mant = strings.TrimRight(mant, "0")
	near := mant + strings.Repeat("0", 778-len(mant)) + "1e" + exp // mant has a '.
	return []struct{ name, lit string }{
		{"1.5", "1.5"},
		{"1e309", "1e309"},
		{"1e400", "1e400"},
		{"5e-324", "5e-324"},
		{"2.4703282292062328e-324", "2.4703282292062328e-324"},
		{"2.2250738585072011e-308", "2.2250738585072011e-308"},
		{"1.7976931348623158e308", "1.7976931348623158e308"},
		{"0.30000000000000004", "0.30000000000000004"},
		{"9007199254740993", "9007199254740993"},
		{"33 digits", strings.Repeat("7", 33)},
		{"778 digits near halfway", near},
	}
}

// BenchmarkNumbers runs, per op, about 1 MiB of add calls through the
// in-process serve loop for each shape of numberShapes, and reports the
// cost per byte, to compare with 1.5's.
func BenchmarkNumbers(b *testing.B) {
	for _, n := range numberShapes() {
		b.Run(n.name, func(b *testing.B) {
			line := addCall(n.lit) + "\n"
			benchServe(b, []byte(strings.Repeat(line, 1<<20/len(line)+1)))
		})
	}
}

// benchRequests returns n request lines in the benchmark mix of
// ../shared/bench: 5 in 10 add (integers, or decimals), 3 in 10 echo of
// about 40 bytes (every 16th with quotes, a backslash, non-ASCII, <&> and a
// tab, escaped as encoding/json escapes them), 2 in 10 resources/read.
func benchRequests(n int) []byte {
	var buf []byte
	for i := range n {
		switch i % 10 {
		case 0, 2, 4, 6, 8:
			if i%4 == 0 {
				buf = fmt.Appendf(buf, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":%d}}}`+"\n", i, i, -(i % 1000))
			} else {
				buf = fmt.Appendf(buf, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d.%d,"b":-%d.5}}}`+"\n", i, i%10000, i%100, i%77)
			}
		case 1, 5, 9:
			text := fmt.Sprintf("msg %08d the quick brown fox jumps", i)
			if i%16 == 1 {
				text = fmt.Sprintf("q\"%d\" back\\slash é ✓ <a&b>\ttab", i)
			}
			lit, _ := json.Marshal(text)
			buf = fmt.Appendf(buf, "%s\n", echoCall(strconv.Itoa(i), string(lit)))
		default:
			buf = fmt.Appendf(buf, `{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"memo://welcome"}}`+"\n", i)
		}
	}
	return buf
}

// BenchmarkServe runs the in-process serve loop over 10,000 requests of
// the mix per op and reports the cost per request.
func BenchmarkServe(b *testing.B) {
	const n = 10000
	input := benchRequests(n)
	r := bytes.NewReader(input)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		r.Reset(input)
		if err := newServer(r, io.Discard, defaultMaxMessage).run(); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	reqs := float64(b.N * n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/reqs, "ns/req")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/reqs, "B/req")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/reqs, "allocs/req")
}

// BenchmarkBinary pipes 100,000 requests of the mix through the built
// binary per op, reading the replies as they come, and reports wall time
// and the server's CPU time per request.
func BenchmarkBinary(b *testing.B) {
	const n = 100000
	input := benchRequests(n)
	mcp := mcpPath(b) // built before the clock starts
	var cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(mcp)
		cmd.Stdin = bytes.NewReader(input)
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		replies := 0
		for sc.Scan() {
			replies++
		}
		if err := cmd.Wait(); err != nil || replies != n {
			b.Fatalf("%d replies, %v", replies, err)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	reqs := float64(b.N * n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/reqs, "ns/req")
	b.ReportMetric(float64(cpu.Nanoseconds())/reqs, "cpu-ns/req")
	b.ReportMetric(reqs/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkEcho16MiB runs one 16 MiB echo through the in-process serve loop
// per op: the cost of a huge message without the pipes.
func BenchmarkEcho16MiB(b *testing.B) {
	benchServe(b, []byte(echoCall("7", `"`+largeText(16<<20)+`"`)+"\n"))
}

// benchServe runs the in-process serve loop over input once per op.
func benchServe(b *testing.B, input []byte) {
	r := bytes.NewReader(input)
	b.SetBytes(int64(len(input)))
	for b.Loop() {
		r.Reset(input)
		if err := newServer(r, io.Discard, defaultMaxMessage).run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLongLines pipes echo lines of each size through the built
// binary per op and reports the server's CPU time per byte of input: 300
// lines just under and just over the 64 KiB read buffer and just over
// bigLine, from which the collector policy applies, and 10 of 16 MiB.
func BenchmarkLongLines(b *testing.B) {
	mcp := mcpPath(b) // built before the clock starts
	for _, size := range []int{60 << 10, 70 << 10, bigLine + 1<<10, 16 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			n := 300
			if size >= 16<<20 {
				n = 10
			}
			input := []byte(strings.Repeat(echoCall("1", `"`+largeText(size)+`"`)+"\n", n))
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command(mcp)
				cmd.Stdin, cmd.Stdout = bytes.NewReader(input), io.Discard
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.SetBytes(int64(len(input)))
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*len(input)), "cpu-ns/B")
		})
	}
}
