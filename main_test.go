// Tests of mcp, black-box first: every testdata/NAME.in is piped through
// the real binary and its stdout compared byte for byte with NAME.out
// (go test -update rewrites them). Then each promise the README makes has
// a test here: output as JavaScript writes it, input as JavaScript reads
// it, tools, limits and memory, cost, signals, pipes and the log. Fuzz
// targets check the serve loop, the JSON reader, numbers and tool text;
// benchmarks measure the serve loop and the binary.

package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
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

// The mcp binary, built once for the whole run by the first test that
// needs it (see mcpPath), in dir.
var (
	build struct {
		sync.Once
		path string
		err  error
	}
	dir string
)

// catalogueEnv names, in the environment of the test binary run as mcp
// (see runCatalogue), which of testCatalogues it serves.
const catalogueEnv = "MCP_TEST_CATALOGUE"

// testStateKey and testNow are the key and the clock of requestState in
// the test binary run as mcp (and the user's copy), which node's models
// (testdata/ask/ask.mjs) share, so that they write the same states.
const testStateKey = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

var testNow = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	if name := os.Getenv(catalogueEnv); name != "" {
		if _, set := os.LookupEnv("MCP_STATE_KEY"); !set { // set empty, none: a key made at start
			os.Setenv("MCP_STATE_KEY", testStateKey)
		}
		now = func() time.Time { return testNow }
		tools = testCatalogues[name]
		if r, ok := testResources[name]; ok {
			resources = r
		}
		main() // exits
	}
	flag.Parse()
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
		args := []string{"build", "-buildvcs=auto", "-o", build.path} // as make build, whatever GOFLAGS says
		if raceEnabled() {
			args = append(args, "-race")
			os.Setenv("GORACE", "atexit_sleep_ms=0") // not 1 s at each exit
		}
		if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
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

// runReal pipes stdin through the built binary, the package's own
// catalogue, with args and returns its stdout and stderr; a non-zero exit
// fails the test.
func runReal(t testing.TB, stdin []byte, args ...string) (stdout, stderr []byte) {
	t.Helper()
	return runCommand(t, exec.Command(mcpPath(t), args...), stdin)
}

// runBinary pipes stdin through mcp serving the demo catalogue (see
// mcpCommand) with args and returns its stdout and stderr; a non-zero
// exit fails the test.
func runBinary(t testing.TB, stdin []byte, args ...string) (stdout, stderr []byte) {
	t.Helper()
	return runCommand(t, mcpCommand(args...), stdin)
}

// mcpCommand is the test binary run as mcp with args, serving the demo
// catalogue, demoTools and demoResource: the tests that call add and echo
// keep them when a user replaces them in the package's catalogue.
func mcpCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), catalogueEnv+"=demo", "GORACE=atexit_sleep_ms=0")
	return cmd
}

// runCommand runs cmd with stdin and returns its stdout and stderr; a
// non-zero exit fails the test.
func runCommand(t testing.TB, cmd *exec.Cmd, stdin []byte) (stdout, stderr []byte) {
	t.Helper()
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstderr: %s", strings.Join(cmd.Args, " "), err, errb.Bytes())
	}
	return out.Bytes(), errb.Bytes()
}

// testCatalogues are the tests' own catalogues, which the test binary
// serves as mcp (see runCatalogue): a user's tools never meet them.
var testCatalogues = map[string][]tool{
	"escaped":  escapedCatalogue,
	"demo":     demoTools,
	"bad kind": {{name: "x", args: []arg{{name: "n", kind: "integr"}}, run: demoTools[0].run}},
	"slow":     slowCatalogue,
	"loop":     loopCatalogue,
	"kinds":    kindsCatalogue,
	"ask":      askCatalogue,
	"repeated": repeatedCatalogue,
}

// testResources are the resources the test binary serves as mcp, by
// the name of its catalogue, if not the memo alone.
var testResources = map[string][]resource{
	"demo":     {demoResource},
	"repeated": {demoResource},
	"resources": {
		demoResource,
		{uri: "notes://{topic}/today", name: "Notes", mimeType: "text/markdown", read: func(_ context.Context, vars map[string]string) (string, error) {
			if vars["topic"] == "missing" {
				return "", errors.New("no notes on missing")
			}
			return "# " + vars["topic"], nil
		}},
		{uri: "count://reads", name: "Reads", read: func(context.Context, map[string]string) (string, error) {
			return "read " + strconv.Itoa(int(resourceReads.Add(1))), nil // a read handed off may run beside the next
		}},
		{uri: "img://{id}", name: "Pixel", mimeType: "image/png", blob: true, read: func(_ context.Context, vars map[string]string) (string, error) {
			return "\x89PNG\r\n\x1a\n" + vars["id"], nil
		}},
		{uri: "file://{path}", name: "File", read: func(_ context.Context, vars map[string]string) (string, error) {
			if vars["path"] == "gone" {
				return "", &fs.PathError{Op: "open", Path: "/srv/notes/gone", Err: syscall.ENOENT}
			}
			return "path=" + vars["path"], nil
		}},
		{uri: "repo://{owner}/{name}", name: "Repository", read: func(_ context.Context, vars map[string]string) (string, error) {
			return vars["owner"] + "/" + vars["name"], nil
		}, complete: completeRepo},
	},
	"slow": {{uri: "slow://wait", name: "Slow", read: func(ctx context.Context, _ map[string]string) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}}},
}

// demoTools and demoResource are the demo catalogue, the tests' own copy
// of add, echo and memo://welcome (see mcpCommand).
var (
	demoTools = []tool{
		{name: "add", description: "Add two numbers", args: []arg{{name: "a", kind: "number"}, {name: "b", kind: "number"}},
			run: func(_ context.Context, in arguments) (string, error) {
				return formatNumber(in.number("a") + in.number("b")), nil
			}},
		{name: "echo", description: "Echo text", args: []arg{{name: "text", kind: "string"}},
			run: func(_ context.Context, in arguments) (string, error) { return in.text("text"), nil }},
	}
	demoResource = resource{uri: "memo://welcome", name: "Welcome memo", mimeType: "text/plain", text: "Welcome to Shipcode MCP."}
)

// completeRepo completes repo://{owner}/{name} as resources.mjs does:
// owners by prefix; names by prefix, of the owner given, or of 150 made
// up; "slow" waits for its time limit, "boom" fails, "panic" panics.
func completeRepo(ctx context.Context, name, value string, vars map[string]string) ([]string, error) {
	switch value {
	case "slow":
		<-ctx.Done()
		return nil, ctx.Err()
	case "boom":
		return nil, errors.New("no index")
	case "panic":
		panic("completion")
	}
	all := []string{"anna", "ann", "bob", "zoë"}
	if name == "name" && vars["owner"] == "anna" {
		all = []string{"alpha", "atlas", "beta"}
	} else if name == "name" {
		all = nil
		for i := range 150 {
			all = append(all, fmt.Sprintf("r%03d", i))
		}
	}
	var values []string
	for _, v := range all {
		if strings.HasPrefix(v, value) {
			values = append(values, v)
		}
	}
	return values, nil
}

// readNothing is a resource's read that reads nothing.
func readNothing(context.Context, map[string]string) (string, error) { return "", nil }

// resourceReads counts the reads of count://reads.
var resourceReads atomic.Int64

// TestResourceFunctions: through the test binary as mcp, resources read
// when asked, by URI or by template, as text or bytes, or failing, listed
// and read as testdata/resources/resources.mjs (node) says.
func TestResourceFunctions(t *testing.T) {
	t.Parallel()
	in, want := readFixture(t, "testdata/resources/resources")
	if got, _ := runCatalogue(t, "resources", in); !bytes.Equal(got, want) {
		t.Errorf("testdata/resources:\n%s", firstDiff(in, got, want))
	}
}

// TestSchemaShapes: the results of resources/read and tools/call, as
// the binary writes them for testdata/resources and testdata/kinds, each
// in the version its request agreed, have what the published schema of
// that version (schema/VERSION/schema.json) requires, as schemaRules
// transcribes it.
func TestSchemaShapes(t *testing.T) {
	t.Parallel()
	for _, fixture := range []string{"resources", "kinds"} {
		in, _ := readFixture(t, "testdata/"+fixture+"/"+fixture)
		out, _ := runCatalogue(t, fixture, in)
		requests, replies := strings.Split(string(in), "\n"), strings.Split(string(out), "\n")
		agreed := "2025-11-25" // without initialize, the newest legacy version
		for i, line := range replies[:len(replies)-1] {
			var req, reply struct {
				Method string
				Params struct {
					ProtocolVersion string
					Meta            map[string]any `json:"_meta"`
				}
				Result map[string]any
			}
			if json.Unmarshal([]byte(requests[i]), &req) != nil || json.Unmarshal([]byte(line), &reply) != nil {
				t.Fatalf("%s line %d: not JSON", fixture, i+1)
			}
			version, _ := req.Params.Meta[metaProtocolVersion].(string)
			switch {
			case req.Method == "initialize":
				agreed, version = req.Params.ProtocolVersion, req.Params.ProtocolVersion
			case version == "":
				version = agreed
			}
			if fault := schemaFault(version, req.Method, reply.Result); fault != "" {
				t.Errorf("%s line %d, %s on %s: %s\n%s", fixture, i+1, req.Method, version, fault, line)
			}
		}
	}
}

// schemaRules are what schema/VERSION/schema.json of the specification
// requires of the results TestSchemaShapes checks: the members of a
// ReadResourceResult, and of each content item a CallToolResult may hold,
// by type (2024-11-05 has no audio; resource_link is from 2025-06-18).
var schemaRules = map[string]struct {
	read    []string
	content map[string][]string
}{
	"2024-11-05": {[]string{"contents"}, map[string][]string{"text": {"text"}, "image": {"data", "mimeType"}, "resource": {"resource"}}},
	"2025-03-26": {[]string{"contents"}, map[string][]string{"text": {"text"}, "image": {"data", "mimeType"}, "audio": {"data", "mimeType"}, "resource": {"resource"}}},
	"2025-06-18": {[]string{"contents"}, contentRules},
	"2025-11-25": {[]string{"contents"}, contentRules},
	"2026-07-28": {[]string{"resultType", "contents", "ttlMs", "cacheScope"}, contentRules},
}

// contentRules are the content items of CallToolResult from 2025-06-18.
var contentRules = map[string][]string{"text": {"text"}, "image": {"data", "mimeType"}, "audio": {"data", "mimeType"},
	"resource_link": {"name", "uri"}, "resource": {"resource"}}

// schemaFault says what the result of method lacks by schemaRules for
// version, or "": of resources/read and tools/call, and of
// completion/complete and initialize, whose shapes it checks itself.
func schemaFault(version, method string, result map[string]any) string {
	rules, ok := schemaRules[version]
	switch {
	case !ok:
		return "no rules for the version"
	case result == nil:
		return ""
	case method == "resources/read":
		for _, m := range rules.read {
			if _, ok := result[m]; !ok {
				return "no " + m
			}
		}
		if ttl, ok := result["ttlMs"].(float64); ok && (ttl < 0 || ttl != math.Trunc(ttl)) || !slices.Contains([]any{nil, "private", "public"}, result["cacheScope"]) {
			return "ttlMs not an integer at least 0, or cacheScope not private or public"
		}
		for _, c := range result["contents"].([]any) {
			c := c.(map[string]any)
			if _, text := c["text"].(string); c["uri"] == nil || !text && c["blob"] == nil {
				return "contents without a uri, or without text or a blob"
			}
		}
	case method == "tools/call":
		for _, item := range result["content"].([]any) {
			item := item.(map[string]any)
			required, ok := rules.content[item["type"].(string)]
			if !ok {
				return fmt.Sprintf("a content item of type %q", item["type"])
			}
			for _, m := range required {
				if _, ok := item[m]; !ok {
					return fmt.Sprintf("a %s item without %s", item["type"], m)
				}
			}
		}
	case method == "completion/complete": // CompleteResult, the same in every version but 2026-07-28's resultType
		c, _ := result["completion"].(map[string]any)
		values, _ := c["values"].([]any)
		_, total := c["total"].(float64)
		_, more := c["hasMore"].(bool)
		if values == nil || len(values) > 100 || slices.ContainsFunc(values, func(v any) bool { _, ok := v.(string); return !ok }) || !total || !more ||
			len(result) != map[bool]int{false: 1, true: 2}[version == modernVersion] {
			return "not a completion of up to 100 strings, with total and hasMore"
		}
	case method == "initialize":
		caps, _ := result["capabilities"].(map[string]any)
		if _, completions := caps["completions"]; completions && version == "2024-11-05" {
			return "completions declared in 2024-11-05, which has no such capability"
		}
	}
	return ""
}

// TestReadingNeverStops: behind a call whose tool asks the person, the
// client sends 300,000 pings, whose replies wait for the call's: past the
// README's bound owed, mcp refuses them at once, out of their turn
// (Server busy), and reads on, so that the answer sent after them is
// taken, and the call replies; or, the other way, the client's cancel of
// the call acts, and its question is cancelled. Every ping is answered
// once: those refused first, in order, then the call (its reply, or its
// question's cancel), then the rest, in order.
func TestReadingNeverStops(t *testing.T) {
	t.Parallel()
	in, want := readFixture(t, "testdata/ask/legacy_signal") // its initialize, and its question of the delete tool
	lines := strings.SplitAfter(string(want), "\n")
	const n = 300000
	for _, tc := range []struct{ name, last, then string }{
		{"answered", `{"jsonrpc":"2.0","id":"ask-1","result":{"action":"accept"}}` + "\n", textReply("2", "deleted a.txt, b.txt")},
		{"cancelled", cancel("2"), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"ask-1","reason":"cancelled by the client"}}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), catalogueEnv+"=ask", "GORACE=atexit_sleep_ms=0")
			c := startCommand(t, cmd)
			io.WriteString(c.stdin, strings.SplitAfter(string(in), "\n")[0]+callLine("2", "delete", `{"paths":["a.txt","b.txt"]}`)+"\n")
			c.readUntil(t, lines[1]) // the question
			go func() {
				var b strings.Builder
				for i := range n {
					fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
				}
				io.WriteString(c.stdin, b.String()+tc.last)
				c.stdin.Close()
			}()
			out, st := c.finish(t)
			replies := strings.SplitAfter(string(out), "\n")
			replies = replies[:len(replies)-1] // after the last "\n"
			at := slices.Index(replies, tc.then)
			if st.ExitCode() != 0 || at < 1 || len(replies) != n+1 {
				t.Fatalf("exit %v; %d lines, the call's at %d; want %d, and it after those refused", st, len(replies), at, n+1)
			}
			refused := n - at // the last pings, refused, then the first, held
			for i, r := range slices.Delete(replies, at, at+1) {
				id, want := (refused+i)%n, `{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n"
				if i < at {
					want = `{"jsonrpc":"2.0","id":%d,"error":{"code":-32010,"message":"Server busy","data":"` + errBusy.data.(string) + `"}}` + "\n"
				}
				if r != fmt.Sprintf(want, id) {
					t.Fatalf("reply %d: %q, want %q (%d refused)", i, clip(r, 200), fmt.Sprintf(want, id), at)
				}
			}
		})
	}
}

// TestErrorsWhileBusy: behind a call whose tool asks the person, 300,000
// lines that are not JSON each get their Parse error; past the README's
// bound owed, those are written at once, as a refusal is, not held: so
// some come before the call's reply, which the answer sent after them
// brings, and every line gets one.
func TestErrorsWhileBusy(t *testing.T) {
	t.Parallel()
	in, want := readFixture(t, "testdata/ask/legacy_signal") // its initialize, and its question of the delete tool
	const n = 300000
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), catalogueEnv+"=ask", "GORACE=atexit_sleep_ms=0")
	c := startCommand(t, cmd)
	io.WriteString(c.stdin, strings.SplitAfter(string(in), "\n")[0]+callLine("2", "delete", `{"paths":["a.txt","b.txt"]}`)+"\n")
	c.readUntil(t, strings.SplitAfter(string(want), "\n")[1]) // the question
	go func() {
		io.WriteString(c.stdin, strings.Repeat("x\n", n)+`{"jsonrpc":"2.0","id":"ask-1","result":{"action":"accept"}}`+"\n")
		c.stdin.Close()
	}()
	out, st := c.finish(t)
	replies := strings.SplitAfter(string(out), "\n")
	at := slices.Index(replies, textReply("2", "deleted a.txt, b.txt"))
	parseError := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` + "\n"
	if st.ExitCode() != 0 || at < 1 || len(replies) != n+2 || strings.Count(string(out), parseError) != n {
		t.Fatalf("exit %v; %d lines, %d Parse errors, the call's reply at %d; want %d, %d, and it after some errors",
			st, len(replies)-1, strings.Count(string(out), parseError), at, n+1, n)
	}
}

// TestAskHugeAnswer: an answer of 12 MiB, a name far over its 20
// characters, gets its fault, and keeps mcp under the README's bound for
// its line, as every line does (TestMemoryBound).
func TestAskHugeAnswer(t *testing.T) {
	if raceEnabled() || testing.Short() {
		t.Skip("memory bounds: for the binary without the race detector, and not with -short")
	}
	t.Parallel()
	times, plus := readmeFigure(t, `under (\d+)x the longest line \+\s+\d+ MiB`), readmeFigure(t, `under \d+x the longest line \+\s+(\d+) MiB`)*(1<<20)
	in, want := readFixture(t, "testdata/ask/legacy") // its initialize, and its call 18 of the form with a 100 KB name, but the id and the length
	line := func(b []byte, has string) string {
		i := bytes.Index(b, []byte(has))
		return string(b[bytes.LastIndexByte(b[:i], '\n')+1 : i+bytes.IndexByte(b[i:], '\n')+1])
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), catalogueEnv+"=ask")
	c := startCommand(t, cmd)
	io.WriteString(c.stdin, line(in, `"id":"init"`)+strings.Replace(line(in, `"id":18,`), `"id":18,`, `"id":2,`, 1))
	c.readUntil(t, strings.Replace(line(want, `"id":"ask-16"`), "ask-16", "ask-1", 1))
	answer := `{"jsonrpc":"2.0","id":"ask-1","result":{"action":"accept","content":{"name":"` + largeText(12<<20) + `","age":1}}}` + "\n"
	io.WriteString(c.stdin, answer)
	c.readUntil(t, strings.Replace(strings.Replace(line(want, `"id":18,`), "100000", strconv.Itoa(12<<20), 1), `"id":18,`, `"id":2,`, 1))
	peak, bound := c.peakRSS(t), int(times*float64(len(answer))+plus)
	c.stdin.Close()
	c.finish(t)
	if t.Logf("peak RSS %d MiB, bound %d", peak>>20, bound>>20); peak > bound {
		t.Errorf("peak RSS %d MiB, over %d", peak>>20, bound>>20)
	}
}

// TestDroppedCallsKeepNoLine: behind 16 calls that block, sixteen calls
// of 6 MiB (each under 16 MiB held, which would pause reading) wait their
// turn, and each is cancelled before the next comes: a dropped call lets
// its line go, so that peak memory stays under the README's bound for a
// 6 MiB line, where keeping them (96 MiB) would not.
func TestDroppedCallsKeepNoLine(t *testing.T) {
	if raceEnabled() || testing.Short() {
		t.Skip("memory bounds: for the binary without the race detector, and not with -short")
	}
	t.Parallel()
	times, plus := readmeFigure(t, `under (\d+)x the longest line \+\s+\d+ MiB`), readmeFigure(t, `under \d+x the longest line \+\s+(\d+) MiB`)*(1<<20)
	cmd := exec.Command(os.Args[0], "-v")
	cmd.Env = append(os.Environ(), catalogueEnv+"=slow")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	c, log := startCommand(t, cmd), bufio.NewReader(deadlineReader{stderr.(*os.File)})
	for i := range maxCalls {
		io.WriteString(c.stdin, slowCall(strconv.Itoa(i), "block", "{}", `"b"`))
		c.readUntil(t, progressLine(`"b"`, `1,"message":"started"`))
	}
	line := echoCall(`"w"`, `"`+largeText(6<<20)+`"`) + "\n"
	for range 16 {
		io.WriteString(c.stdin, line+cancel(`"w"`))
		if got, err := log.ReadString('\n'); got != `mcp: "tools/call" id="w" cancelled before its turn`+"\n" {
			t.Fatalf("log %q (%v), want the call dropped", got, err)
		}
	}
	peak, bound := c.peakRSS(t), int(times*float64(len(line))+plus)
	for i := range maxCalls {
		io.WriteString(c.stdin, cancel(strconv.Itoa(i)))
	}
	c.stdin.Close()
	go io.Copy(io.Discard, log)
	c.finish(t)
	if t.Logf("peak RSS %d MiB, bound %d", peak>>20, bound>>20); peak > bound {
		t.Errorf("peak RSS %d MiB, over %d", peak>>20, bound>>20)
	}
}

// TestAskOnAnAnswer: a tool that asks on the arguments an answer came
// in, not on its call's, gets an error that says so.
func TestAskOnAnAnswer(t *testing.T) {
	var answer arguments // as ask returns it
	if _, err := answer.ask(context.Background(), "Again?"); err != errAskedAnswer {
		t.Errorf("ask on an answer: %v, want errAskedAnswer", err)
	}
}

// TestAskRefused: a question that no answer could end is not asked: not
// once the call's context has ended (whatever context it is asked in), a
// signal came, the input ended, or the call returned; each gets its
// error at once, and nothing is sent or waits.
func TestAskRefused(t *testing.T) {
	ended, cancel := context.WithCancelCause(context.Background())
	cancel(errClientCancelled)
	for _, tc := range []struct {
		name  string
		ctx   context.Context
		state func(s *server, c *call)
		want  error
	}{
		{"the context asked in ended", ended, func(*server, *call) {}, errClientCancelled},
		{"the call's context ended", context.Background(), func(_ *server, c *call) { c.end(errClientCancelled) }, errClientCancelled},
		{"a signal", context.Background(), func(s *server, _ *call) { s.stopNow() }, errStopped},
		{"the input ended", context.Background(), func(s *server, _ *call) { s.ended = true; close(s.eof) }, errCannotAsk},
		{"the call returned", context.Background(), func(_ *server, c *call) { c.returned = true }, errReturned},
	} {
		s := newServer(strings.NewReader(""), io.Discard, defaultMaxMessage, askCatalogue)
		c := &call{srv: s, canAsk: true}
		tc.state(s, c)
		done := make(chan error, 1)
		go func() { _, err := s.ask(tc.ctx, c, obj{{"message", "Sure?"}}); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, tc.want) || len(s.asking) > 0 || len(s.ready)+len(s.later) > 0 {
				t.Errorf("%s: %v (%d waiting, %d written), want %v at once", tc.name, err, len(s.asking), len(s.ready)+len(s.later), tc.want)
			}
		case <-time.After(hangAfter):
			t.Errorf("%s: the question waits", tc.name)
		}
	}
}

// TestAskShapes: each question in testdata/ask and testdata/recipe/ask,
// which TestAsk and TestREADME have the binary write byte for byte (a
// legacy elicitation/create request, or a 2026-07-28 input_required
// result), and each cancel of one, has the shape the published schema
// of its version (schema/VERSION/schema.json) gives it, as askFault
// transcribes it.
func TestAskShapes(t *testing.T) {
	files, _ := filepath.Glob("testdata/ask/*.out")
	n := 0
	for _, file := range append(files, "testdata/recipe/ask/delete.out") {
		version := "2025-11-25" // the session's, as initialize agreed, if it came
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var msg struct {
				ID     any
				Method string
				Params map[string]any
				Result map[string]any
			}
			if strings.HasPrefix(line, "[") { // a batch's replies, which ask nothing
				continue
			} else if json.Unmarshal([]byte(line), &msg) != nil {
				t.Fatalf("%s line %d: not JSON", file, i+1)
			}
			fault := ""
			switch _, idOK := msg.ID.(string); {
			case msg.Result["protocolVersion"] != nil:
				version = msg.Result["protocolVersion"].(string)
			case msg.Method == "elicitation/create":
				n++
				fault = cmp.Or(map[bool]string{false: "an id not a string"}[idOK], askFault(msg.Params, version))
			case msg.Method == "notifications/cancelled":
				_, id := msg.Params["requestId"].(string)
				_, reason := msg.Params["reason"].(string)
				fault = map[bool]string{false: "a cancel without a requestId and a reason"}[id && reason && len(msg.Params) == 2]
			case msg.Result["resultType"] == "input_required":
				n++
				questions, _ := msg.Result["inputRequests"].(map[string]any)
				if _, state := msg.Result["requestState"].(string); len(questions) != 1 || len(msg.Result) != 3 || !state {
					fault = "not resultType, one input request, and requestState, a string"
				}
				for _, q := range questions {
					q, _ := q.(map[string]any)
					params, _ := q["params"].(map[string]any)
					fault = cmp.Or(fault, map[bool]string{false: "an input request not elicitation/create"}[q["method"] == "elicitation/create" && len(q) == 2], askFault(params, "2026-07-28"))
				}
			}
			if fault != "" {
				t.Errorf("%s line %d: %s\n%s", file, i+1, fault, clip(line, 300))
			}
		}
	}
	if n < 20 {
		t.Errorf("%d questions in the files, want at least 20", n)
	}
}

// askFault says what params, an elicitation/create request's in a
// session of version, lack or have amiss by the schemas of 2025-06-18,
// 2025-11-25 and 2026-07-28: a message, and a requestedSchema of type
// object, whose properties are PrimitiveSchemaDefinitions (StringSchema
// with its formats, NumberSchema, BooleanSchema, an enum with or without
// enumNames; from 2025-11-25, titled choices, oneOf, and lists of choices,
// an array of an enum or of anyOf, with the members and types each
// allows), and whose required names them. Of default, 2025-06-18 lists
// only a boolean's, but allows any member.
func askFault(params map[string]any, version string) string {
	schema, _ := params["requestedSchema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]any)
	if _, ok := params["message"].(string); !ok || len(params) != 2 || schema["type"] != "object" || props == nil || required == nil || len(schema) != 3 {
		return "params not a message and a requestedSchema of type, properties and required"
	}
	for _, r := range required {
		if name, _ := r.(string); props[name] == nil {
			return fmt.Sprintf("required names %v, not a property", r)
		}
	}
	number := func(v any) bool { _, ok := v.(float64); return ok }
	text := func(v any) bool { _, ok := v.(string); return ok }
	texts := func(v any) bool {
		list, ok := v.([]any)
		return ok && !slices.ContainsFunc(list, func(e any) bool { return !text(e) })
	}
	titled := func(v any) bool { // [{"const":TEXT,"title":TEXT}...]: oneOf, anyOf
		list, ok := v.([]any)
		return ok && !slices.ContainsFunc(list, func(e any) bool {
			m, _ := e.(map[string]any)
			return len(m) != 2 || !text(m["const"]) || !text(m["title"])
		})
	}
	newer := version >= "2025-11-25" // titled and multi-select enums (SEP-1330)
	for name, p := range props {
		p, _ := p.(map[string]any)
		allowed := map[string]func(any) bool{"type": text, "title": text, "description": text}
		switch p["type"] {
		case "string":
			allowed["minLength"], allowed["maxLength"], allowed["default"], allowed["enum"] = number, number, text, texts
			allowed["format"] = func(v any) bool { return slices.Contains([]any{"email", "uri", "date", "date-time"}, v) }
			allowed["enumNames"] = func(v any) bool { e, _ := p["enum"].([]any); l, _ := v.([]any); return texts(v) && len(l) == len(e) }
			if newer && p["enum"] == nil {
				allowed["oneOf"] = titled
			}
		case "number", "integer":
			allowed["minimum"], allowed["maximum"], allowed["default"] = number, number, number
		case "boolean":
			allowed["default"] = func(v any) bool { _, ok := v.(bool); return ok }
		case "array":
			if !newer {
				return fmt.Sprintf("property %q is an array, which %s forms lack", name, version)
			}
			allowed["minItems"], allowed["maxItems"], allowed["default"] = number, number, texts
			allowed["items"] = func(v any) bool {
				items, _ := v.(map[string]any)
				return len(items) == 2 && items["type"] == "string" && texts(items["enum"]) || len(items) == 1 && titled(items["anyOf"])
			}
		default:
			return fmt.Sprintf("property %q of type %v", name, p["type"])
		}
		for k, v := range p {
			if ok := allowed[k]; ok == nil || !ok(v) {
				return fmt.Sprintf("property %q has %s %v", name, k, v)
			}
		}
	}
	return ""
}

// askCatalogue is TestAsk's: tools that ask the person, each as
// testdata/ask/ask.mjs models it.
var askCatalogue = []tool{
	{name: "delete", description: "Delete files, once the user confirms", args: []arg{{name: "paths", kind: "strings"}},
		run: func(ctx context.Context, in arguments) (string, error) {
			paths := in.texts("paths")
			if _, err := in.ask(ctx, fmt.Sprintf("Delete %d files: %s?", len(paths), strings.Join(paths, ", "))); err != nil {
				return "", err
			}
			return "deleted " + strings.Join(paths, ", "), nil
		}},
	{name: "order", description: "Ask for a size, a count, then gift wrap", args: []arg{},
		run: func(ctx context.Context, in arguments) (string, error) {
			first, err := in.ask(ctx, "What size, and how many?", arg{name: "size", kind: "string", choices: []string{"S", "M", "L"}},
				arg{name: "count", kind: "integer", min: 1, max: 10, optional: true, def: 1})
			if err != nil {
				return "", err
			}
			second, err := in.ask(ctx, "Gift wrap?", arg{name: "wrap", kind: "boolean", optional: true})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("size=%s count=%d wrap=%t", first.text("size"), first.integer("count"), second.boolean("wrap")), nil
		}},
	{name: "form", description: "Ask for one of each kind of field", args: []arg{},
		run: func(ctx context.Context, in arguments) (string, error) {
			a, err := in.ask(ctx, "Tell me about you",
				arg{name: "name", kind: "string", description: "your name", min: 1, max: 20},
				arg{name: "age", kind: "integer", min: 0, max: 150},
				arg{name: "height", kind: "number", description: "in metres", min: 0.5, optional: true},
				arg{name: "subscribe", kind: "boolean", optional: true, def: true},
				arg{name: "color", kind: "string", choices: []string{"red", "green"}, optional: true, def: "green"},
				arg{name: "note", kind: "string", optional: true})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("name=%s age=%d height=%s subscribe=%t color=%s note=%s given=%t", a.text("name"), a.integer("age"),
				formatNumber(a.number("height")), a.boolean("subscribe"), a.text("color"), a.text("note"), a.given("note")), nil
		}},
	{name: "careless", description: "Ask, then go on whatever the answer", args: []arg{},
		run: func(ctx context.Context, in arguments) (string, error) {
			_, err := in.ask(ctx, "Sure?")
			return fmt.Sprintf("went on: %v", err), nil
		}},
	{name: "timed", description: "Ask, within a time limit", args: []arg{}, timeout: 100 * time.Millisecond,
		run: func(ctx context.Context, in arguments) (string, error) {
			if _, err := in.ask(ctx, "Still there?"); err != nil {
				return "", err
			}
			return "yes", nil
		}},
	{name: "wait", description: "Wait until cancelled", args: []arg{},
		run: func(ctx context.Context, in arguments) (string, error) {
			<-ctx.Done()
			return "", context.Cause(ctx)
		}},
	{name: "detached", description: "Ask in a context of its own", args: []arg{},
		run: func(ctx context.Context, in arguments) (string, error) {
			if _, err := in.ask(context.Background(), "Sure?"); err != nil {
				return "", err
			}
			return "sure", nil
		}},
	{name: "again", description: "Ask, then ask again, whatever the answer", args: []arg{},
		run: func(ctx context.Context, in arguments) (string, error) {
			_, first := in.ask(ctx, "Sure?")
			_, second := in.ask(ctx, "Sure?")
			return fmt.Sprintf("first: %v; second: %v", first, second), nil
		}},
	{name: "twice", description: "Ask a name, then whether to greet", args: []arg{{name: "what", kind: "string"}, {name: "n", kind: "integer", optional: true}},
		run: func(ctx context.Context, in arguments) (string, error) {
			a, err := in.askNamed(ctx, "user_name", "What is your name?", arg{name: "name", kind: "string"})
			if err != nil {
				return "", err
			}
			if _, err := in.ask(ctx, "Greet "+a.text("name")+" with "+in.text("what")+"?"); err != nil {
				return "", err
			}
			return "hello " + a.text("name") + " (" + in.text("what") + ")", nil
		}},
	{name: "fickle", description: "Ask a question that changes at each run", args: []arg{},
		run: func(ctx context.Context, in arguments) (string, error) {
			if _, err := in.ask(ctx, fmt.Sprintf("Sure? (%d)", fickleRuns.Add(1))); err != nil {
				return "", err
			}
			return "sure", nil
		}},
	{name: "survey", description: "Ask with titled choices, lists of choices and formats", args: []arg{},
		run: func(ctx context.Context, in arguments) (string, error) {
			a, err := in.ask(ctx, "About your order", arg{name: "size", kind: "string", choices: []string{"s", "m", "l"}, titles: []string{"Small", "Medium", "Large"}},
				arg{name: "extras", kind: "strings", choices: []string{"ice", "lemon"}, max: 2, optional: true},
				arg{name: "toppings", kind: "strings", choices: []string{"nuts", "cream", "fudge"}, titles: []string{"Nuts", "Whipped cream", "Hot fudge"},
					min: 1, max: 2, optional: true, def: []string{"cream"}},
				arg{name: "email", kind: "string", format: "email", description: "for the receipt"}, arg{name: "site", kind: "string", format: "uri", optional: true},
				arg{name: "day", kind: "string", format: "date", optional: true}, arg{name: "at", kind: "string", format: "date-time", min: 20, optional: true})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("size=%s extras=%s toppings=%s email=%s site=%s day=%s at=%s", a.text("size"), strings.Join(a.texts("extras"), "|"),
				strings.Join(a.texts("toppings"), "|"), a.text("email"), a.text("site"), a.text("day"), a.text("at")), nil
		}},
	{name: "pick", description: "Ask for a titled choice and a date", args: []arg{},
		run: func(ctx context.Context, in arguments) (string, error) {
			a, err := in.ask(ctx, "Which size, and when?", arg{name: "size", kind: "string", choices: []string{"s", "l"}, titles: []string{"Small", "Large"}, optional: true, def: "l"},
				arg{name: "day", kind: "string", format: "date"})
			if err != nil {
				return "", err
			}
			return "size=" + a.text("size") + " day=" + a.text("day"), nil
		}},
	{name: "list", description: "Ask for a list, which a form cannot hold", args: []arg{},
		run: func(ctx context.Context, in arguments) (string, error) {
			_, err := in.ask(ctx, "Which?", arg{name: "which", kind: "strings"})
			return "", err
		}},
}

// fickleRuns counts the runs of askCatalogue's fickle.
var fickleRuns atomic.Int64

// loopCatalogue is TestServeLoop's: tools that meet other calls, say on
// stderr that they started, keep their arguments past their return, add
// to their result from many goroutines, report progress JSON cannot
// write, read standard input, and flood standard output with progress.
var loopCatalogue = []tool{
	{name: "meet", description: "Wait until n calls have come", args: []arg{{name: "n", kind: "integer"}}, timeout: 10 * time.Second,
		run: func(ctx context.Context, in arguments) (string, error) {
			meeting.Lock()
			if meeting.all == nil {
				meeting.all = make(chan struct{})
			}
			all := meeting.all
			if meeting.n++; meeting.n == in.integer("n") {
				close(all)
			}
			meeting.Unlock()
			select {
			case <-all:
				return "met", nil
			case <-ctx.Done():
				return "", context.Cause(ctx)
			}
		}},
	{name: "announce", description: "Say so on stderr, then wait for the context", args: []arg{{name: "text", kind: "string"}},
		timeout: 10 * time.Second, run: func(ctx context.Context, in arguments) (string, error) {
			fmt.Fprintln(os.Stderr, "started", in.text("text"))
			<-ctx.Done()
			fmt.Fprintln(os.Stderr, "ended:", context.Cause(ctx))
			return "", context.Cause(ctx)
		}},
	{name: "later", description: "Read the text after returning", args: []arg{{name: "text", kind: "string"}},
		run: func(_ context.Context, in arguments) (string, error) {
			go func() { <-release; kept <- in.text("text") }()
			return "later", nil
		}},
	{name: "check", description: "Return what later read", run: func(context.Context, arguments) (string, error) {
		close(release)
		return <-kept, nil
	}},
	{name: "many", description: "Attach 1,000 items from each of 16 goroutines", output: []arg{{name: "n", kind: "integer"}},
		run: func(ctx context.Context, in arguments) (string, error) {
			var wg sync.WaitGroup
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 1000 {
						in.attach([]byte{1}, "image/png")
					}
					in.output("n", 16000)
				}()
			}
			wg.Wait()
			go func() { <-ctx.Done(); in.attach([]byte{2}, "image/png"); in.output("n", 0) }() // once returned (and handed off): ignored
			return "", nil
		}},
	{name: "nan", description: "Report progress JSON cannot write", run: func(_ context.Context, in arguments) (string, error) {
		in.progress(math.NaN(), 0, "")
		in.progress(1, math.Inf(1), "")
		in.progress(math.Inf(1), 0, "")
		in.progress(2, 0, "sent")
		in.progress(3, 0, "") // 3/0: the total is left out
		return "reported", nil
	}},
	{name: "stdin", description: "Read standard input", run: func(context.Context, arguments) (string, error) {
		fmt.Fprintln(os.Stderr, "reading")
		b, err := io.ReadAll(os.Stdin)
		return fmt.Sprintf("%d bytes", len(b)), err
	}},
	{name: "flood", description: "Report progress until cancelled", run: func(ctx context.Context, in arguments) (string, error) {
		fmt.Fprintln(os.Stderr, "flooding")
		for i := 1.0; ctx.Err() == nil; i++ {
			in.progress(i, 0, strings.Repeat("f", 64<<10))
		}
		return "", ctx.Err()
	}},
	{name: "watch", description: "Say on stderr how the context ends; hold, if asked, until freed or cancelled",
		args: []arg{{name: "name", kind: "string"}, {name: "hold", kind: "boolean", optional: true}},
		run: func(ctx context.Context, in arguments) (string, error) {
			go func() { <-ctx.Done(); fmt.Fprintf(os.Stderr, "%s: %v\n", in.text("name"), context.Cause(ctx)) }()
			if in.boolean("hold") {
				select {
				case <-freed:
				case <-ctx.Done():
				}
			}
			return "watched", nil
		}},
	{name: "free", description: "Free the watch that holds", run: func(context.Context, arguments) (string, error) {
		close(freed)
		return "freed", nil
	}},
	demoTools[1],
}

// freed is closed by loopCatalogue's free.
var freed = make(chan struct{})

// meeting, release and kept are loopCatalogue's tools' state: meet's
// meeting place, and what check has later read.
var (
	meeting struct {
		sync.Mutex
		n   int
		all chan struct{}
	}
	release = make(chan struct{})
	kept    = make(chan string)
)

// slowCatalogue is TestSlowTools': tools that wait for their context,
// outlast their time limit, report progress, and print.
var slowCatalogue = []tool{
	{name: "block", description: "Wait for the context", run: func(ctx context.Context, in arguments) (string, error) {
		in.progress(1, 0, "started") // the event the test waits for
		<-ctx.Done()
		return "", context.Cause(ctx)
	}},
	{name: "limited", description: "Outlast the limit", timeout: 50 * time.Millisecond, run: func(ctx context.Context, in arguments) (string, error) {
		<-ctx.Done()
		return "late", nil
	}},
	{name: "steps", description: "Report progress", args: []arg{{name: "wait", kind: "boolean", optional: true}},
		run: func(ctx context.Context, in arguments) (string, error) {
			in.progress(1, 3, "")
			in.progress(2, 3, "halfway")
			in.progress(2, 3, "not past 2: not sent")
			in.progress(3, 0, "")
			if in.boolean("wait") {
				<-ctx.Done()
			}
			return "stepped", nil
		}},
	{name: "print", description: "Print to stdout", run: func(context.Context, arguments) (string, error) {
		fmt.Println("a tool's line")
		child := exec.Command("sh", "-c", "echo a child line")
		child.Stdout = os.Stdout
		return "printed", child.Run()
	}},
	demoTools[1],
}

// runCatalogue runs the test binary as mcp, serving the test catalogue
// name, pipes stdin through it with args, and returns its stdout and
// stderr; a non-zero exit fails the test.
func runCatalogue(t testing.TB, name string, stdin []byte, args ...string) (stdout, stderr []byte) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), catalogueEnv+"="+name)
	return runCommand(t, cmd, stdin)
}

// serveWith runs the serve loop in-process on input with the catalogue
// given and returns what it wrote.
func serveWith(t testing.TB, catalogue []tool, input string) string {
	t.Helper()
	var out bytes.Buffer
	if err := newServer(strings.NewReader(input), &out, defaultMaxMessage, catalogue).serve(); err != nil {
		t.Fatalf("serve: %v", err)
	}
	return out.String()
}

// serveString runs the serve loop in-process on input, with the demo
// catalogue.
func serveString(t testing.TB, input string) string { return serveWith(t, demoTools, input) }

// Requests and replies used throughout.
const (
	pingLine       = `{"jsonrpc":"2.0","id":"after","method":"ping"}`
	pingReply      = `{"jsonrpc":"2.0","id":"after","result":{}}` + "\n"
	parseError     = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` + "\n"
	invalidRequest = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}` + "\n"
)

// callLine is a tools/call of the tool name with the raw JSON arguments args.
func callLine(id, name, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
}

// echoCall is a tools/call of echo with the given raw JSON text value.
func echoCall(id, rawText string) string { return callLine(id, "echo", `{"text":`+rawText+`}`) }

// textReply is the reply to a tools/call whose result has the text body.
func textReply(id, body string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + body + `"}],"isError":false}}` + "\n"
}

// toolError is the reply to a tools/call whose result reports the error body.
func toolError(id, body string) string {
	return strings.Replace(textReply(id, body), `"isError":false`, `"isError":true`, 1)
}

// tooLongReply is the reply to a line over a limit of max bytes.
func tooLongReply(max int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"message longer than %d bytes"}}`+"\n", max)
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

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// ==== Golden files: the binary, byte for byte ====

// TestGolden pipes each testdata/NAME.in through the binary and compares
// stdout with NAME.out. NAME.flags, if present, holds the command's flags.
// The server must write nothing to stderr.
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
			got, stderr := runReal(t, input, args...)
			if len(stderr) > 0 {
				t.Errorf("stderr not empty: %q", stderr)
			}
			golden := strings.TrimSuffix(in, ".in") + ".out"
			if *update {
				if old, err := os.ReadFile(golden); err != nil || !bytes.Equal(old, got) {
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
func TestExamples(t *testing.T) {
	ins, _ := filepath.Glob("../shared/examples/*.in")
	if len(ins) == 0 {
		t.Skip("no ../shared/examples")
	}
	for _, in := range ins {
		input, _ := os.ReadFile(in)
		want, _ := os.ReadFile(strings.TrimSuffix(in, ".in") + ".out")
		if got, _ := runBinary(t, input); !bytes.Equal(got, want) {
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
			return fmt.Sprintf("first difference at output line %d\ngot:  %q\nwant: %q\n(input:\n%s)", i+1, clip(gl, 500), clip(wl, 500), clip(string(input), 2000))
		}
	}
	return "no difference"
}

// ==== Output: what JSON.stringify writes ====

// TestStdlibDifferences shows each way encoding/json differs from what
// JavaScript reads and writes, which is why mcp has code of its own for
// it: HTML escaping; U+2028 and U+2029; lone surrogates; bytes that are
// not UTF-8; member names matched regardless of case; numbers of more
// than 800 digits. mcp must do as JavaScript does; where the standard
// library comes to do so too, the test says which code of ours can go,
// and passes.
func TestStdlibDifferences(t *testing.T) {
	same := func(what, ours string) { t.Logf("encoding/json now agrees on %s: %s can go", what, ours) }
	for _, tc := range []struct{ text, ours string }{
		{"<a>&", `"<a>&"`},
		{"\u2028\u2029", "\"\u2028\u2029\""},
		{"\xed\xa0\x80", `"\ud800"`},                   // a lone surrogate, as text keeps it
		{"a\xe2\x82b", "\"a\uFFFDb\""},                 // one U+FFFD for the maximal subpart
		{"\xf0\x9f\x98", "\"\uFFFD\""},                 // likewise
		{"\xed\xa0\x80\xed\xb0\x80", "\"\U00010000\""}, // a pair: one character
	} {
		std, _ := json.Marshal(tc.text)
		if ours := quote(tc.text); ours != tc.ours {
			t.Errorf("%q: ours %s, want %s", tc.text, ours, tc.ours)
		} else if string(std) == ours {
			same(fmt.Sprintf("writing %q", tc.text), "writeString's handling of it")
		}
	}
	if got := serveString(t, `{"jsonrpc":"2.0","id":1,"METHOD":"ping"}`+"\n"); got != `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request"}}`+"\n" {
		t.Errorf("METHOD for method: %s", got)
	}
	var v struct{ Method string }
	if json.Unmarshal([]byte(`{"METHOD":"x"}`), &v); v.Method != "x" {
		same("matching names exactly", "value.is")
	}
	var s string
	json.Unmarshal([]byte(`"\ud800"`), &s)
	if got := text([]byte(`"\ud800"`)); got != "\xed\xa0\x80" {
		t.Errorf(`"\ud800": ours %q`, got)
	} else if s == got {
		same("lone surrogates", "text's WTF-8")
	}
	long := "1" + strings.Repeat("0", 800) + "e-800"
	if f, _ := strconv.ParseFloat(long, 64); parseNumber([]byte(long)) != 1 {
		t.Errorf("1, 800 zeros, e-800: ours %v, want 1", parseNumber([]byte(long)))
	} else if f == 1 {
		same("numbers of over 800 digits", "parseNumber's exact path (if it is quick too)")
	}
}

// TestStringEncoding pins the text of JSON strings from a request, written
// back, to JSON.stringify(JSON.parse(lit)): no HTML escaping, U+2028,
// U+2029 and U+007F raw, short escapes by name, other controls as
// lowercase \u00xx, lone surrogates as escapes, bytes that are not UTF-8
// as U+FFFD (one per maximal invalid subpart).
func TestStringEncoding(t *testing.T) {
	for _, tt := range []struct{ lit, want string }{
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
		{"\"a\xe2\x82b\"", "\"a\uFFFDb\""},
		{"\"\xed\xa0\x80\"", "\"\uFFFD\uFFFD\uFFFD\""}, // raw, it is not a surrogate but three bad bytes
		{"\"\xed\xa0\"", "\"\uFFFD\uFFFD\""},
		{"\"\xed\x9f\"", "\"\uFFFD\""},
		{"\"\\ud800\xed\xb0\x80\"", "\"\\ud800\uFFFD\uFFFD\uFFFD\""},
		{"\"\xf0\x9f\x98\"", "\"\uFFFD\""},
		{"\"\xc0\xaf\"", "\"\uFFFD\uFFFD\""},
		{"\"ñandú 中文 😀\"", "\"ñandú 中文 😀\""},
		{`"\u00f1"`, `"ñ"`},
	} {
		if got := quote(text([]byte(tt.lit))); got != tt.want {
			t.Errorf("%q written back: %q, want %q", tt.lit, got, tt.want)
		}
	}
}

// jsDecode is the reference for how JavaScript reads bytes as text: the
// UTF-8 decoder of the WHATWG Encoding standard, written from its
// algorithm (encoding.spec.whatwg.org, "UTF-8 decoder"), giving UTF-16
// code units. With wtf8, the bound for the byte after 0xED is 0xBF, not
// 0x9F, so that the three bytes WTF-8 gives a surrogate read as that
// surrogate: how a tool's text, which carries lone surrogates that way,
// is read.
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
		case strings.ContainsRune("\b\t\n\f\r\"\\", u):
			b.WriteString(strconv.Quote(string(u))[1:3])
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

// TestTextAsJavaScript: text is written as JavaScript reads and writes it,
// a tool's text and a JSON string from a request alike, for every
// sequence of up to two bytes, and of three and four with bytes at the
// standard's bounds after the first two or the lead: quote and text
// against the references jsDecode, jsParseString and jsStringify.
func TestTextAsJavaScript(t *testing.T) {
	t.Parallel()
	var set []byte // every byte over 0x7F, and some under
	set = append(set, 0x00, 0x0A, 0x1F, '"', 'A', '\\', 0x7F)
	for c := 0x80; c <= 0xFF; c++ {
		set = append(set, byte(c))
	}
	check := func(b []byte) {
		if got, want := quote(string(b)), jsStringify(jsDecode(b, true)); got != want {
			t.Fatalf("tool text % x: got %s, want %s", b, got, want)
		}
		if bytes.ContainsAny(b, "\"\\") || bytes.ContainsFunc(b, func(r rune) bool { return r < 0x20 }) {
			return // not a JSON string's body
		}
		lit := append(append([]byte{'"'}, b...), '"')
		if got, want := quote(text(lit)), jsStringify(jsParseString(b)); got != want {
			t.Fatalf("JSON string body % x: got %s, want %s", b, got, want)
		}
	}
	edges := []byte{0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xED, 0xF4, 0xFF} // UTF-8's boundaries
	for _, a := range set {
		check([]byte{a})
		for _, b := range set {
			check([]byte{a, b})
			for _, c := range edges {
				check([]byte{a, b, c})
			}
		}
	}
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

// TestNumberFormat pins formatNumber to JavaScript's String(n) (ECMAScript
// Number::toString), at the bounds of the decimal and exponent forms.
func TestNumberFormat(t *testing.T) {
	tenth := 0.1
	for _, tt := range []struct {
		in   float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-1, "-1"}, {6.5, "6.5"}, {-6.5, "-6.5"},
		{tenth + 2*tenth, "0.30000000000000004"}, {2000000, "2000000"}, {123456789, "123456789"},
		{1e20, "100000000000000000000"}, {999999999999999900000, "999999999999999900000"},
		{1e21, "1e+21"}, {-1e21, "-1e+21"}, {1.5e21, "1.5e+21"}, {1e22, "1e+22"}, {123e20, "1.23e+22"},
		{0.000001, "0.000001"}, {0.0000015, "0.0000015"}, {-0.000001, "-0.000001"}, {1e-7, "1e-7"},
		{1.5e-10, "1.5e-10"}, {-1.5e-10, "-1.5e-10"}, {0.1, "0.1"}, {1 / 3.0, "0.3333333333333333"},
		{5e-324, "5e-324"}, {-5e-324, "-5e-324"}, {2.2250738585072014e-308, "2.2250738585072014e-308"},
		{1.7976931348623157e308, "1.7976931348623157e+308"}, {1<<53 + 1, "9007199254740992"},
		{1<<53 - 1, "9007199254740991"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
		{math.NaN(), "NaN"}, {4.35, "4.35"}, {0.000123, "0.000123"}, {1e-6 * 9.99, "0.00000999"},
		{12345678901234567890, "12345678901234567000"}, {1.0000000000000002, "1.0000000000000002"},
		{100, "100"}, {1e300 * 10, "1e+301"}, {1e-100, "1e-100"},
	} {
		if got := formatNumber(tt.in); got != tt.want {
			t.Errorf("formatNumber(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestNumberFormatAgrees: formatNumber, which uses strconv's exponent
// form, agrees with ECMAScript's Number::toString written out step by
// step (numberToString), for every power of ten from 1e-330 to 1e310 and
// its neighbours, where the layout changes, and 100,000 random doubles.
func TestNumberFormatAgrees(t *testing.T) {
	check := func(f float64) {
		if got, want := formatNumber(f), numberToString(f); got != want {
			t.Fatalf("formatNumber(%b) = %s, Number::toString %s", math.Float64bits(f), got, want)
		}
	}
	for e := -330; e <= 310; e++ {
		f, _ := strconv.ParseFloat("1e"+strconv.Itoa(e), 64)
		for _, g := range []float64{f, -f, math.Nextafter(f, 0), math.Nextafter(f, math.Inf(1))} {
			if g != 0 && !math.IsInf(g, 0) {
				check(g)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		if f := math.Float64frombits(rng.Uint64()); f == f && !math.IsInf(f, 0) {
			check(f)
		}
	}
}

// numberToString is ECMA-262's Number::toString for a finite nonzero f:
// k shortest digits and n, the decimal point's position, then one of four
// layouts.
func numberToString(f float64) string {
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	s := sign + digits[:1]
	if k > 1 {
		s += "." + digits[1:]
	}
	if n-1 >= 0 {
		return s + "e+" + strconv.Itoa(n-1)
	}
	return s + "e" + strconv.Itoa(n-1)
}

// TestParseNumber pins parseNumber to JavaScript's Number(x) on literals
// strconv.ParseFloat alone gets wrong or reads slowly: more than 800
// digits, long exponents, the subnormal and overflow bounds, and halfway
// cases that need every digit, or a digit past the 768 that are kept, to
// round. Each want is node's String(Number(lit)), and negZero is
// Object.is(Number(lit), -0).
func TestParseNumber(t *testing.T) {
	top := new(big.Int).Lsh(new(big.Int).SetUint64(1<<54-1), 970).String() // halfway between the largest double and 2^1024
	topBelow := new(big.Int).Sub(new(big.Int).Lsh(new(big.Int).SetUint64(1<<54-1), 970), big.NewInt(1)).String()
	halfDigits := new(big.Int).Exp(big.NewInt(5), big.NewInt(1075), nil).String() // 2^-1075, half the smallest subnormal, x 10^1075
	zeros := func(n int) string { return strings.Repeat("0", n) }
	for _, tt := range []struct {
		lit, want string
		negZero   bool
	}{
		{"1" + zeros(799) + "e-799", "1", false},
		{"1" + zeros(800) + "e-800", "1", false},
		{"1" + zeros(5000) + "e-5000", "1", false},
		{"-1" + zeros(5000) + ".5e-5000", "-1", false},
		{"123" + zeros(797) + "e-800", "0.123", false},
		{"0." + zeros(9692) + "9e100000", "Infinity", false},
		{"0." + zeros(99692) + "1e100000", "1e+307", false},
		{"0." + zeros(99999) + "1e100000", "1", false},
		{"1e10000", "Infinity", false}, {"1e-10000", "0", false}, {"1e00308", "1e+308", false},
		{"1.5e00309", "Infinity", false}, {"-1e-100000", "0", true}, {"1e1000000000", "Infinity", false},
		{"1e0000000001", "10", false}, {"1" + zeros(400) + "e-1000000000", "0", false},
		{"1e" + zeros(399) + "5", "100000", false}, {"1e" + strings.Repeat("9", 400), "Infinity", false},
		{"-1e-" + strings.Repeat("9", 400), "0", true}, {"123.456e" + zeros(398) + "2", "12345.6", false},
		{"0." + zeros(400) + "123e+" + zeros(396) + "403", "123", false},
		{"-0", "0", true}, {"-0.0", "0", true}, {"-0e5", "0", true}, {"-0." + zeros(1000), "0", true},
		{"0e-99999999999999999999", "0", false},
		{"2.4703282292062327e-324", "0", false}, {"2.4703282292062328e-324", "5e-324", false},
		{halfDigits + "e-1075", "0", false}, {halfDigits + "1e-1076", "5e-324", false},
		{halfDigits + zeros(100) + "1e-1176", "5e-324", false}, {"-" + halfDigits + zeros(100) + "1e-1176", "-5e-324", false},
		{"4.9406564584124654e-324", "5e-324", false}, {"5e-324", "5e-324", false}, {"1e-308", "1e-308", false},
		{"2.2250738585072011e-308", "2.225073858507201e-308", false}, {"2.2250738585072012e-308", "2.2250738585072014e-308", false},
		{"9007199254740993", "9007199254740992", false}, {"9007199254740993.0000000001", "9007199254740994", false},
		{"9007199254740993." + zeros(900), "9007199254740992", false}, {"9007199254740993" + zeros(900) + "e-900", "9007199254740992", false},
		{"9007199254740993." + zeros(900) + "1", "9007199254740994", false}, {"9007199254740995", "9007199254740996", false},
		{"9007199254740994." + strings.Repeat("9", 1000), "9007199254740994", false},
		{top, "Infinity", false}, {topBelow, "1.7976931348623157e+308", false},
		{top + "." + zeros(1000) + "1", "Infinity", false}, {topBelow + "." + strings.Repeat("9", 1000), "1.7976931348623157e+308", false},
		{"1.7976931348623158e308", "1.7976931348623157e+308", false}, {"1.7976931348623159e308", "Infinity", false},
		{"-1.7976931348623159e308", "-Infinity", false}, {"1.8e308", "Infinity", false},
		{"0.1", "0.1", false}, {"0." + zeros(29) + "1", "1e-30", false},
		{"12345678901234567890123456789012", "1.2345678901234567e+31", false},
		{"1e-22", "1e-22", false}, {"1e23", "1e+23", false}, {"100000000000000000000000", "1e+23", false},
		{"99999999999999999e22", "1e+39", false}, {"123456789012345678901234567890123", "1.2345678901234569e+32", false},
	} {
		f := parseNumber([]byte(tt.lit))
		if got := formatNumber(f); got != tt.want || (f == 0 && math.Signbit(f) != tt.negZero) {
			t.Errorf("parseNumber(%s) = %q (sign bit %v), want %q (negative zero %v)", clip(tt.lit, 60), got, math.Signbit(f), tt.want, tt.negZero)
		}
	}
}

// FuzzNumber compares parseNumber with exact arithmetic (nearestDouble).
// The fuzzer picks the digits, a run of up to 1,999 zeros to make the
// literal long (before the point or after it), past the 768 digits
// parseNumber keeps, the exponent, within ±2,000 to cross both ends of
// the doubles, and zeros to pad it.
func FuzzNumber(f *testing.F) {
	f.Add(false, "1", "", uint16(800), false, int32(-800), uint16(0))
	f.Add(false, "0", "9", uint16(9692), true, int32(100000), uint16(0))
	f.Add(true, "0", "1", uint16(65000), true, int32(65000), uint16(400))
	f.Add(false, "9007199254740993", "1", uint16(900), true, int32(0), uint16(0))
	f.Add(false, "24703282292062327", "", uint16(0), false, int32(-340), uint16(3))
	f.Add(false, "17976931348623158", "", uint16(0), false, int32(292), uint16(0))
	f.Fuzz(func(t *testing.T, neg bool, intDigits, fracDigits string, pad uint16, padFrac bool, exp int32, expPad uint16) {
		if len(intDigits)+len(fracDigits) > 2000 {
			t.Skip("long enough: pad makes longer ones, and big.Rat takes the square of the length")
		}
		digits := func(s string) string {
			b := []byte(s)
			for i, c := range b {
				b[i] = '0' + c%10
			}
			return string(b)
		}
		in, frac := strings.TrimLeft(digits(intDigits), "0"), digits(fracDigits)
		pad %= 2000
		if padFrac {
			frac = strings.Repeat("0", int(pad)) + frac
		} else if in != "" {
			in += strings.Repeat("0", int(pad))
		}
		if in == "" {
			in = "0"
		}
		exp %= 2000
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
// by big.Rat: exact, and not parseNumber's method (integer division).
func nearestDouble(digits string, e int) float64 {
	r, _ := new(big.Rat).SetString(digits + "e" + strconv.Itoa(e))
	f, _ := r.Float64()
	return f
}

// ==== Input: what JSON.parse reads ====

// FuzzJSON compares the JSON reader with encoding/json, on any input:
// parse must agree on whether it is JSON (nesting past 10,000 levels is
// not), and on where it fails, at the end or at a byte; on valid UTF-8,
// items, get, text and parseNumber must read the
// value encoding/json reads, the last of repeated keys kept, lone
// surrogates aside (ours keeps them, encoding/json makes them U+FFFD;
// normalised first), numbers compared with strconv.ParseFloat up to 800
// digits; and each string is written back as encoding/json writes it
// once its HTML and U+2028/U+2029 escaping, which JSON.stringify lacks,
// is undone.
func FuzzJSON(f *testing.F) {
	for _, seed := range []string{
		`{"a":1,"b":[true,false,null,"x"],"c":{"d":-1.5e+10}}`, `{"a":1,"a":2}`, `[]`, `{}`, `""`, `"\ud800"`,
		`"\ud83d\ude00"`, `"<>&\u2028\u2029"`, `"\b\f\n\r\t\u0000\u001f\u007f\/\\\""`, ` 1 `, `"\\\"\\"`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"params":{"name":"a","_meta":{"x":"y"}},"params":{"uri":1},"id":1,"id":2}`, `[[[]],{"":{}}, -0.5e-3 ]`,
		`01`, `1.`, `-`, `[1,]`, `{"a" 1}`, "\"\xff\"", `"\u12G4"`, `"\x"`, `tru`, `nulll`, "[1,2", "{\"a\":1,}", "\"a\x01\"",
		strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth), strings.Repeat(`[{"a":`, maxDepth/2) + "[",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		v, at, ours := parseJSON(input)
		err := json.Unmarshal(input, new(json.RawMessage))
		if std := err == nil; ours != std {
			t.Fatalf("JSON: ours %v, encoding/json %v, for %q", ours, std, input)
		}
		// encoding/json reads a number cut short as one followed by ' '.
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			end := err.Error() == "unexpected end of JSON input" ||
				syntax.Offset == int64(len(input)) && strings.HasPrefix(err.Error(), "invalid character ' '") && input[len(input)-1] != ' '
			if end != (at == len(input)) || !end && int64(at) != syntax.Offset-1 {
				t.Fatalf("ours fails at %d of %d, encoding/json: %v at %d, for %q", at, len(input), err, syntax.Offset, input)
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
		if got := readJSON(t, v); !equalJSON(got, want) {
			t.Fatalf("value differs for %q:\nours: %#v\nstd:  %#v", input, got, want)
		}
	})
}

// readJSON reads a valid JSON value as the handlers do, into
// encoding/json's generic form, checking each string's encoding on the
// way, that each value of up to 1,000 bytes the walk gives is exactly
// one value: it parses alone, and that get finds the last member of each
// name of an object of up to 100.
func readJSON(t *testing.T, v value) any {
	if raw := v.raw(); len(raw) <= 1000 { // each level of a deep value would cost its depth times its length
		if _, at, ok := parseJSON(raw); !ok {
			t.Fatalf("the walk gave %q, which is not one value (at %d)", clip(string(raw), 100), at)
		}
	}
	switch v.kind() {
	case '{':
		m, last := map[string]any{}, map[string]value{}
		for k, val := range v.items() {
			m[string(normalise([]byte(k.text())))] = readJSON(t, val)
			last[k.text()] = val
		}
		for name, val := range last { // get finds the last of each name, as JSON.parse keeps it
			if got := v.get(name); len(last) <= 100 && got != val {
				t.Fatalf("get(%q) of %q is %q, not the last", name, clip(string(v.raw()), 100), clip(string(got.raw()), 100))
			}
		}
		return m
	case '[':
		a := []any{}
		for _, elem := range v.items() {
			a = append(a, readJSON(t, elem))
		}
		return a
	case '"':
		s := v.text()
		if utf8.ValidString(s) {
			checkStringEncoding(t, v.raw(), s)
		}
		return string(normalise([]byte(s)))
	case 't', 'f':
		return v.kind() == 't'
	case 'n':
		return nil
	}
	raw := v.raw()
	if f, err := strconv.ParseFloat(string(raw), 64); len(raw) <= 800 && (err == nil || f != 0) && f != v.number() {
		t.Fatalf("parseNumber(%s) = %v, strconv %v", raw, v.number(), f)
	}
	return json.Number(raw)
}

// normalise replaces each lone surrogate of text, which ours keeps in
// WTF-8 and encoding/json reads as U+FFFD, with U+FFFD.
func normalise(text []byte) []byte {
	var norm []byte
	for i := 0; i < len(text); i++ {
		if text[i] == 0xED && i+2 < len(text) && text[i+1] >= 0xA0 {
			norm = append(norm, "\uFFFD"...)
			i += 2
			continue
		}
		norm = append(norm, text[i])
	}
	return norm
}

// checkStringEncoding compares quote(text) with encoding/json's encoding
// of it, HTML escaping off and U+2028/U+2029 made raw.
func checkStringEncoding(t *testing.T, lit []byte, text string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(text)
	want := strings.NewReplacer(`\u2028`, "\u2028", `\u2029`, "\u2029", `\\`, `\\`).Replace(strings.TrimSuffix(buf.String(), "\n"))
	if got := quote(text); got != want {
		t.Fatalf("%s written back: %s, encoding/json (adjusted) %s", lit, got, want)
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

// FuzzServe checks properties of the serve loop on any input: it never
// panics; every output line is valid JSON, a reply object (or a batch of
// them) with "jsonrpc":"2.0"; and there are never more reply lines than
// input lines, leaving out the acknowledgements of subscriptions and
// their ends, which a line that opens one is owed too.
func FuzzServe(f *testing.F) {
	ins, _ := filepath.Glob("testdata/*.in")
	for _, in := range ins {
		b, _ := os.ReadFile(in)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		out := serveString(t, string(input))
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if out == "" {
			lines = nil
		}
		replies := 0 // lines that answer a line: not our notifications, nor a subscription's end
		for _, line := range lines {
			var one map[string]json.RawMessage
			var many []map[string]json.RawMessage
			if json.Unmarshal([]byte(line), &one) == nil {
				many = append(many, one)
			} else if err := json.Unmarshal([]byte(line), &many); err != nil || len(many) == 0 || !utf8.ValidString(line) {
				t.Fatalf("not a JSON reply object or a non-empty array of them: %q", line)
			}
			for _, m := range many {
				if string(m["jsonrpc"]) != `"2.0"` {
					t.Fatalf("reply without \"jsonrpc\":\"2.0\": %q", line)
				}
			}
			if one == nil || one["method"] == nil && !strings.Contains(string(one["result"]), `"_meta":{"`+metaSubscriptionID) {
				replies++
			}
		}
		if replies > bytes.Count(input, []byte("\n"))+1 {
			t.Fatalf("%d replies to %d lines", replies, bytes.Count(input, []byte("\n"))+1)
		}
	})
}

// TestHostileInput feeds one hostile line at a time between two pings and
// checks the exact reply to it, and that the session goes on.
func TestHostileInput(t *testing.T) {
	var manyKeys, manyArgs strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&manyKeys, `"k%d":%d,`, i, i)
		fmt.Fprintf(&manyArgs, `,"x%d":true`, i)
	}
	digits := "1" + strings.Repeat("0", 9999)
	mib := largeText(1 << 20)
	var batch, batchReply strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&batch, `,{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)
		fmt.Fprintf(&batchReply, `,{"jsonrpc":"2.0","id":%d,"result":{}}`, i)
	}
	one := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":{}}` + "\n" }
	unexpected := `Invalid arguments for tool add: unexpected argument \"x0\" (allowed: a, b)`
	tests := []struct{ name, in, want string }{
		{"not json", "not json", parseError},
		{"lone brace", "{", parseError},
		{"lone closing bracket", "]", parseError},
		{"truncated object", `{"jsonrpc":"2.0","id":1,"method":"ping"`, parseError},
		{"truncated string", `{"jsonrpc":"2.0","id":1,"method":"pi`, parseError},
		{"key without colon", `{"jsonrpc":"2.0","id":1,"method"`, parseError},
		{"NUL byte", "\x00", parseError},
		{"NUL inside string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\x00ing\"}", parseError},
		{"raw tab inside string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\ting\"}", parseError},
		{"escaped NUL in text", echoCall("1", `"a\u0000b"`), textReply("1", `a\u0000b`)},
		{"invalid UTF-8 outside strings", "\xff\xfe", parseError},
		{"invalid UTF-8 in text", echoCall("1", "\"a\xffb\xe2\x82c\""), textReply("1", "a\uFFFDb\uFFFDc")},
		{"invalid UTF-8 in method", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}` + "\n"},
		{"lone surrogates in text", echoCall("1", `"\udead \ud800\udc00 \udc00\ud800"`), textReply("1", `\udead 𐀀 \udc00\ud800`)},
		{"10000-deep array", strings.Repeat("[", 10000) + strings.Repeat("]", 10000), "[" + strings.TrimSuffix(invalidRequest, "\n") + "]\n"},
		{"10000-deep object", strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000), invalidRequest},
		{"10001-deep array", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), parseError},
		{"10001-deep object", strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001), parseError},
		{"100000-deep unclosed array", strings.Repeat("[", 100000), parseError},
		{"10000 keys in a request", `{` + manyKeys.String() + `"jsonrpc":"2.0","id":1,"method":"ping"}`, one("1")},
		{"10000 extra arguments", callLine("1", "add", `{"a":1,"b":2`+manyArgs.String()+`}`), toolError("1", unexpected)},
		{"10000-digit number", callLine("1", "add", `{"a":`+digits+`,"b":1}`), textReply("1", "Infinity")},
		{"10000-digit id", `{"jsonrpc":"2.0","id":` + digits + `,"method":"ping"}`, one(digits)},
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"nope","method":"ping"}`, one("1")},
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":"two","method":"ping"}`, one(`"two"`)},
		{"duplicate argument", callLine("1", "add", `{"a":"x","b":2,"a":1}`), textReply("1", "3")},
		{"garbage after message", `{"jsonrpc":"2.0","id":1,"method":"ping"}garbage`, parseError},
		{"two messages on a line", `{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`, parseError},
		{"huge exponent", `1e999999999`, invalidRequest},
		{"leading zero", `{"a":01}`, parseError},
		{"bad unicode escape", `{"a":"\u12G4"}`, parseError},
		{"unknown escape", `{"a":"\q"}`, parseError},
		{"trailing comma", `[1,]`, parseError},
		{"single quotes", `{'a':1}`, parseError},
		{"form feed is not JSON space", "\f{}", parseError},
		{"no-break space is not JSON space", "\u00a0{}", parseError},
		{"byte order mark after the first line", "\ufeff" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`, parseError},
		{"space, tab and CR inside", "{ \"jsonrpc\" :\t\"2.0\" ,\r\"id\":1,\"method\":\"ping\" }", one("1")},
		{"CR alone", "\r", ""},
		{"1 MiB text", echoCall("1", `"`+mib+`"`), textReply("1", mib)},
		{"batch of 1000", "[" + batch.String()[1:] + "]", "[" + batchReply.String()[1:] + "]\n"},
		{"batch of garbage", `[1,{},[],"x",null]`, "[" + strings.Repeat(strings.TrimSuffix(invalidRequest, "\n")+",", 4) + strings.TrimSuffix(invalidRequest, "\n") + "]\n"},
		{"response with a bad id", `{"jsonrpc":"2.0","id":[],"result":1}`, ""},
		{"method of the wrong type", `{"jsonrpc":"2.0","id":1,"method":{"a":1}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request"}}` + "\n"},
		{"4096 notifications in a batch", `[` + strings.Repeat(`{"jsonrpc":"2.0","method":"n","params":{"a":{}}},`, 4096) + callLine("1", "add", `{"a":1,"b":2}`) + `]`,
			"[" + strings.TrimSuffix(textReply("1", "3"), "\n") + "]\n"},
	}
	for _, tt := range tests {
		got := serveString(t, pingLine+"\n"+tt.in+"\n"+pingLine+"\n")
		if want := pingReply + tt.want + pingReply; got != want {
			t.Errorf("%s: input %q\ngot  %q\nwant %q", tt.name, clip(tt.in, 200), clip(got, 400), clip(want, 400))
		}
	}
}

// TestControlBytesInStrings: a raw control byte inside a string is a
// Parse error wherever it falls: each of 0x00 to 0x1F (but 0x0A, which
// ends the line) at each offset 0 to 16 of a member's name and of a
// value, against a scan that reads strings eight bytes at a time.
func TestControlBytesInStrings(t *testing.T) {
	t.Parallel()
	const pad = "abcdefghijklmnop"
	var in, want strings.Builder
	for c := range byte(0x20) {
		if c == '\n' {
			continue
		}
		for off := range 17 {
			s := pad[:off] + string(c)
			in.WriteString(callLine("1", "echo", `{"`+s+`x":"v"}`) + "\n" + echoCall("2", `"`+s+`h"`) + "\n")
			want.WriteString(parseError + parseError)
		}
	}
	if got, _ := runBinary(t, []byte(in.String())); string(got) != want.String() {
		t.Errorf("%s", firstDiff([]byte(in.String()), got, []byte(want.String())))
	}
}

// TestLimits: through the binary, with -max-message-bytes from 1 to the
// largest the flag takes, a first line of a byte order mark and exactly
// the limit, ended by CRLF, is served, as is one of the limit after it;
// a line a byte over is refused. Limits around the reader's readSize put
// the line's end, its CR and the mark's bytes around the reads' ends
// (where a pipe splits them is not ours to say: TestLineReader splits
// them everywhere).
func TestLimits(t *testing.T) {
	t.Parallel()
	limits := []int{1, 2, 39, 40, 41, 1 << 20, math.MaxInt32, math.MaxInt}
	for n := readSize - 6; n <= readSize+2; n++ {
		limits = append(limits, n)
	}
	for _, limit := range limits {
		line := func(n int) (line, reply string) { // of n bytes, that fits a limit of n
			if n < len(pingLine) {
				return "1" + strings.Repeat(" ", n-1), invalidRequest
			}
			return pingLine + strings.Repeat(" ", n-len(pingLine)), pingReply
		}
		at, atReply := line(min(limit, 1<<21))
		in := "\uFEFF" + at + "\r\n"
		want := atReply
		if limit <= 1<<21 {
			over, _ := line(limit + 1)
			in, want = in+over+"\n"+at+"\r\n", want+tooLongReply(limit)+atReply
		}
		if got, _ := runBinary(t, []byte(in), "-max-message-bytes", strconv.Itoa(limit)); string(got) != want {
			t.Errorf("limit %d: got %q, want %q", limit, clip(string(got), 300), clip(want, 300))
		}
	}
}

// TestLineReader: the line reader, fed by reads that end where a pipe's
// may (a pipe cannot be made to), returns each line of up to the limit
// without its "\n" or "\r\n", and without the byte order mark that may
// lead the input, and reports each longer one as too long; at limits
// around one and two reads of readSize, small ones and the largest,
// whichever byte a read ends at: in the mark, around the limit, the "\r"
// or the "\n".
func TestLineReader(t *testing.T) {
	limits := []int{1, 2, 3, 4, 5, 2*readSize - 1, 2 * readSize, 2*readSize + 1, math.MaxInt}
	for n := readSize - 5; n <= readSize+4; n++ {
		limits = append(limits, n)
	}
	for _, limit := range limits {
		for _, n := range []int{limit - 1, limit, limit + 1, 7} {
			if n < 1 || n > 3*readSize {
				continue
			}
			for _, head := range []string{"", "\uFEFF"} {
				for _, tail := range []string{"\n", "\r\n"} {
					first, second := strings.Repeat("a", n), "b"
					in := head + first + tail + second + tail
					end := len(head) + n // the first line's "\r" or "\n"
					cuts := []int{1, 2, 3}
					for k := -3; k <= 3; k++ {
						cuts = append(cuts, end+k, len(head)+limit+k)
					}
					for _, cut := range cuts {
						if cut <= 0 || cut >= len(in) {
							continue
						}
						got := readLines(t, in, cut, limit)
						want := []string{first, second}
						if n > limit {
							want[0] = "too long"
						}
						if !slices.Equal(got, want) {
							t.Fatalf("limit %d, %q + %d bytes + %q twice, a read ending at %d: got %q, want %q",
								limit, head, n, tail, cut, clip(strings.Join(got, ","), 100), clip(strings.Join(want, ","), 100))
						}
					}
				}
			}
		}
	}
}

// readLines reads the lines of in with a lineReader of the limit whose
// reads end at cut and then at each readSize, and returns them, "too
// long" for each over the limit.
func readLines(t *testing.T, in string, cut, limit int) []string {
	at := 0
	lr := newLineReader(func(p []byte) (int, error) {
		if at == len(in) {
			return 0, io.EOF
		}
		end := len(in)
		if at < cut {
			end = cut
		}
		n := copy(p, in[at:end])
		at += n
		return n, nil
	}, limit)
	var lines []string
	for {
		line, tooLong, err := lr.next()
		switch {
		case err == io.EOF:
			return lines
		case err != nil:
			t.Fatal(err)
		case tooLong:
			lines = append(lines, "too long")
		default:
			lines = append(lines, string(line))
		}
	}
}

// TestOverTheLimit: with -max-message-bytes of any size, not a multiple of
// the reader's, a line of the limit + 1 or of three times the limit is
// refused, never answered, and the next line is served.
func TestOverTheLimit(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{1, 4095, 65537, 2000000} {
		next, nextReply := pingLine, pingReply
		if len(pingLine) > limit {
			next, nextReply = "1", invalidRequest // a line that fits, and is owed a reply
		}
		var in, want string
		for _, n := range []int{limit + 1, 3 * limit} {
			over := strings.Repeat("1", n) // a number, Invalid Request if it were read
			if shell := len(echoCall("1", `""`)); n >= shell {
				over = echoCall("1", `"`+largeText(n-shell)+`"`)
			}
			in += over + "\n" + next + "\n"
			want += tooLongReply(limit) + nextReply
		}
		if got, _ := runBinary(t, []byte(in), "-max-message-bytes", strconv.Itoa(limit)); string(got) != want {
			t.Errorf("limit %d: got %q, want %q", limit, clip(string(got), 300), clip(want, 300))
		}
	}
}

// TestLineLimit: a line over the limit gets Invalid Request, whatever its
// size against the read buffer or what it holds, ended by LF, CRLF or the
// end of input, and the next line is served; a line exactly at the limit
// is served.
func TestLineLimit(t *testing.T) {
	for _, limit := range []int{100, 64<<10 - 1, 64 << 10, 64<<10 + 1, 3<<16 + 7} {
		text := strings.Repeat("x", limit-len(echoCall("1", `""`)))
		fits := echoCall("1", `"`+text+`"`)
		over := fits + " "
		blank := strings.Repeat(" \t", limit)
		for _, tail := range []string{"\n", "\r\n"} {
			in := fits + tail + over + tail + blank + tail + pingLine + tail + over
			var out bytes.Buffer
			if err := newServer(strings.NewReader(in), &out, limit, demoTools).serve(); err != nil {
				t.Fatal(err)
			}
			if want := textReply("1", text) + tooLongReply(limit) + tooLongReply(limit) + pingReply + tooLongReply(limit); out.String() != want {
				t.Errorf("limit %d, tail %q: got %q, want %q", limit, tail, clip(out.String(), 300), clip(want, 300))
			}
		}
	}
}

// TestByteOrderMark: a byte order mark is skipped at the very start of
// input only, and does not count toward the first line's length.
func TestByteOrderMark(t *testing.T) {
	text := strings.Repeat("x", 64<<10)
	fits := echoCall("1", `"`+text+`"`)
	for _, tc := range []struct{ in, want string }{
		{"\uFEFF" + fits + "\n", textReply("1", text)},
		{"\uFEFF" + fits + " \n", tooLongReply(len(fits))},
		{"\uFEFF\uFEFF" + pingLine + "\n" + pingLine + "\n", parseError + pingReply},
		{fits + " \n\uFEFF" + pingLine + "\n", tooLongReply(len(fits)) + parseError},
	} {
		var out bytes.Buffer
		if err := newServer(strings.NewReader(tc.in), &out, len(fits), demoTools).serve(); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("input %q: got %q, want %q", clip(tc.in, 100), clip(out.String(), 200), clip(tc.want, 200))
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

// TestReadError: input that fails (not EOF) ends the loop with that error,
// after every whole line before it is answered.
func TestReadError(t *testing.T) {
	broken := errors.New("broken input")
	var out bytes.Buffer
	err := newServer(&errReader{data: []byte(pingLine + "\n" + pingLine + "\n{\"partial"), err: broken}, &out, defaultMaxMessage, demoTools).serve()
	if err != broken || out.String() != pingReply+pingReply {
		t.Errorf("serve returned %v and %q, want %v and two ping replies", err, out.String(), broken)
	}
}

// ==== Tools ====

// TestToolText: a tool returns the text it means and the reply carries
// exactly that, whatever it holds: quotes and a newline, a Windows path
// with its trailing backslash, a \u12 and a \U that are text, not
// escapes, a tab, NUL and DEL, after a reply already buffered, alone and
// in a batch; and an error's text as a result with "isError":true.
func TestToolText(t *testing.T) {
	texts := []string{"it's \"late\"\ngo home", `C:\Users\`, `\u12`, `\U`, "a\tb\x00\x7f", `\`}
	var catalogue []tool
	for i, text := range texts {
		catalogue = append(catalogue, tool{name: "t" + strconv.Itoa(i), run: func(context.Context, arguments) (string, error) { return text, nil }})
	}
	catalogue = append(catalogue, tool{name: "fails", run: func(context.Context, arguments) (string, error) { return "", errors.New(texts[0]) }})
	for i, text := range append(texts, texts[0]) {
		name, want := "t"+strconv.Itoa(i), textReply("1", unquoted(jsStringify(jsDecode([]byte(text), true))))
		if i == len(texts) {
			name, want = "fails", toolError("1", unquoted(quote(text)))
		}
		c := callLine("1", name, "{}")
		got := serveWith(t, catalogue, pingLine+"\n"+c+"\n["+pingLine+","+c+"]\n")
		if w := pingReply + want + "[" + strings.TrimSuffix(pingReply, "\n") + "," + want[:len(want)-1] + "]\n"; got != w {
			t.Errorf("tool text %q:\ngot  %q\nwant %q", text, got, w)
		}
	}
}

// TestToolOutputGoTypes: an output set to a value of another Go type than
// its kind reads as is an error result saying so; setting an output not
// declared, or attaching what is neither an image nor audio, panics.
func TestToolOutputGoTypes(t *testing.T) {
	catalogue := []tool{
		{name: "typo", output: []arg{{name: "n", kind: "integer"}}, run: func(_ context.Context, in arguments) (string, error) {
			in.output("n", 2.0)
			return "", nil
		}},
		{name: "undeclared", run: func(_ context.Context, in arguments) (string, error) { in.output("n", 1); return "", nil }},
		{name: "text", run: func(_ context.Context, in arguments) (string, error) { in.attach(nil, "text/plain"); return "", nil }},
	}
	got := serveWith(t, catalogue, callLine("1", "typo", "{}")+"\n"+callLine("2", "undeclared", "{}")+"\n"+callLine("3", "text", "{}")+"\n")
	want := toolError("1", `tool typo set its output \"n\" to a float64; an integer output is set as an int`) +
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error"}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}` + "\n"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestToolPanics: a tool that panics, or reads an argument it does not
// declare, costs its request an Internal error, alone or in a batch, and
// the session goes on; with -v the log says why.
func TestToolPanics(t *testing.T) {
	catalogue := []tool{
		{name: "boom", run: func(context.Context, arguments) (string, error) { panic("boom") }},
		{name: "misread", args: []arg{{name: "n", kind: "number"}}, run: func(_ context.Context, in arguments) (string, error) { return in.text("n"), nil }},
		{name: "misasks", run: func(_ context.Context, in arguments) (string, error) { return fmt.Sprint(in.given("n")), nil }},
	}
	internal := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"Internal error"}}`
	}
	in := callLine("1", "boom", "{}") + "\n[" + pingLine + "," + callLine("2", "misread", `{"n":1}`) + "]\n" + callLine("3", "misasks", "{}") + "\n" + pingLine + "\n"
	want := internal("1") + "\n[" + strings.TrimSuffix(pingReply, "\n") + "," + internal("2") + "]\n" + internal("3") + "\n" + pingReply
	var out, log bytes.Buffer
	s := newServer(strings.NewReader(in), &out, defaultMaxMessage, catalogue)
	s.log = newLogger(&log)
	if err := s.serve(); err != nil || out.String() != want {
		t.Errorf("serve: %v\ngot  %q\nwant %q", err, out.String(), want)
	}
	s.log.close("mcp: end of input: stopping")
	for _, w := range []string{`mcp: panic in "tools/call": "boom"`, `mcp: panic in "tools/call": "the tool reads \"n\", which it does not declare as a string"`,
		`mcp: panic in "tools/call": "the tool reads \"n\", which it does not declare as an argument"`} {
		if !strings.Contains(log.String(), w+"\n") {
			t.Errorf("the log lacks %s:\n%s", w, log.String())
		}
	}
}

// TestToolArguments: a tool reads its arguments as Go values, whatever
// their number and kinds: a number as Number() reads it, a string's text,
// a boolean.
func TestToolArguments(t *testing.T) {
	catalogue := []tool{{
		name: "repeat",
		args: []arg{{name: "text", kind: "string"}, {name: "times", kind: "number"}, {name: "loud", kind: "boolean"}},
		run: func(_ context.Context, in arguments) (string, error) {
			if n := in.number("times"); n < 0 || n > 3 {
				return "", fmt.Errorf("times must be 0 to 3, not %v", n)
			}
			text := strings.Repeat(in.text("text"), int(in.number("times")))
			if in.boolean("loud") {
				text = strings.ToUpper(text)
			}
			return text, nil
		},
	}}
	for _, tt := range []struct{ args, want string }{
		{`{"text":"ab\u00e9","times":2e0,"loud":true}`, textReply("1", "ABÉABÉ")},
		{`{"text":"ab","times":1,"loud":false}`, textReply("1", "ab")},
		{`{"text":"ab","times":4,"loud":false}`, toolError("1", "times must be 0 to 3, not 4")},
	} {
		if got := serveWith(t, catalogue, callLine("1", "repeat", tt.args)+"\n"); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.args, got, tt.want)
		}
	}
}

// kindsCatalogue is testdata/kinds' catalogue (see kinds.mjs there):
// "all" takes every kind of argument and says how it read each, "none"
// takes none.
var kindsCatalogue = []tool{{
	name: "all", title: "Every kind", description: "Show each kind of argument as read",
	annotations: map[string]bool{"openWorldHint": false, "readOnlyHint": true},
	args: []arg{
		{name: "s", kind: "string", description: "any text"}, {name: "n", kind: "number"},
		{name: "i", kind: "integer", description: "a whole number", optional: true, def: 3},
		{name: "b", kind: "boolean", optional: true},
		{name: "c", kind: "string", choices: []string{"c", "f"}, optional: true, def: "c"},
		{name: "ss", kind: "strings", optional: true, def: []string{"x", "y"}}, {name: "ns", kind: "numbers", optional: true},
	},
	run: func(_ context.Context, in arguments) (string, error) {
		var ns, given []string
		for _, f := range in.numbers("ns") {
			ns = append(ns, formatNumber(f))
		}
		for _, a := range []string{"s", "n", "i", "b", "c", "ss", "ns"} {
			if in.given(a) {
				given = append(given, a)
			}
		}
		return fmt.Sprintf("s=%s n=%s i=%d b=%t c=%s ss=%s ns=%s given=%s", in.text("s"), formatNumber(in.number("n")), in.integer("i"),
			in.boolean("b"), in.text("c"), strings.Join(in.texts("ss"), "|"), strings.Join(ns, "|"), strings.Join(given, ",")), nil
	},
}, {name: "none", description: "Take nothing", run: func(context.Context, arguments) (string, error) { return "nothing", nil }},
	{name: "limits", description: "Show bounded arguments as read", args: []arg{
		{name: "limit", kind: "integer", min: 1, max: 100, optional: true, def: 10}, {name: "ratio", kind: "number", min: -0.5, max: 2.5, optional: true},
		{name: "q", kind: "string", min: 1, max: 3, optional: true}, {name: "ns", kind: "numbers", max: 1, optional: true},
		{name: "tags", kind: "strings", choices: []string{"red", "green", "blue"}, min: 1, max: 2, optional: true},
	}, run: func(_ context.Context, in arguments) (string, error) {
		return fmt.Sprintf("limit=%d ratio=%s q=%s tags=%s ns=%d", in.integer("limit"), formatNumber(in.number("ratio")), in.text("q"),
			strings.Join(in.texts("tags"), "|"), len(in.numbers("ns"))), nil
	}},
	{name: "weather", description: "Report the weather", args: []arg{{name: "city", kind: "string"}},
		output: []arg{{name: "city", kind: "string"}, {name: "tempC", kind: "number", min: -90, max: 60, description: "in degrees Celsius"},
			{name: "conditions", kind: "strings", optional: true}},
		run: func(_ context.Context, in arguments) (string, error) {
			switch city := in.text("city"); city {
			case "Mars":
				in.output("city", city)
				in.output("tempC", -120.0)
			case "Nowhere":
				in.output("city", city)
			case "Fail":
				return "", errors.New("no weather today")
			case "NaN", "Infinity", "-Infinity": // JSON cannot write them
				in.output("city", city)
				in.output("tempC", map[string]float64{"NaN": math.NaN(), "Infinity": math.Inf(1), "-Infinity": math.Inf(-1)}[city])
			default:
				in.output("conditions", []string{"sunny", "dry"})
				in.output("city", city)
				in.output("tempC", 21.5)
				if city == "Oslo" {
					return "cold", nil
				}
			}
			return "", nil
		}},
	{name: "search", description: "Show nested arguments as read", args: []arg{
		{name: "query", kind: "string"},
		{name: "options", kind: "object", optional: true, description: "how to search", args: []arg{
			{name: "depth", kind: "integer", min: 1, max: 5, optional: true, def: 2}, {name: "exact", kind: "boolean", optional: true}}},
		{name: "headers", kind: "map", optional: true},
		{name: "filters", kind: "objects", optional: true, max: 2, args: []arg{{name: "field", kind: "string"}, {name: "value", kind: "string", choices: []string{"a", "b"}}}},
	}, run: func(_ context.Context, in arguments) (string, error) {
		var headers, filters []string
		for k, v := range in.textMap("headers") {
			headers = append(headers, k+":"+v)
		}
		for _, f := range in.objects("filters") {
			filters = append(filters, f.text("field")+"="+f.text("value"))
		}
		slices.Sort(headers)
		o := in.object("options")
		return fmt.Sprintf("query=%s depth=%d exact=%t headers=%s filters=%s", in.text("query"), o.integer("depth"), o.boolean("exact"),
			strings.Join(headers, ","), strings.Join(filters, "|")), nil
	}},
	{name: "floors", description: "Show arguments bounded below, and nested two deep, as read", args: []arg{
		{name: "n", kind: "number", min: 0.5, optional: true}, {name: "s", kind: "string", min: 2, optional: true},
		{name: "ns", kind: "numbers", min: 1, optional: true},
		{name: "o", kind: "object", optional: true, args: []arg{{name: "p", kind: "object", args: []arg{{name: "field", kind: "string"}}}}},
	}, run: func(_ context.Context, in arguments) (string, error) {
		return fmt.Sprintf("n=%s s=%s ns=%d field=%s", formatNumber(in.number("n")), in.text("s"), len(in.numbers("ns")),
			in.object("o").object("p").text("field")), nil
	}},
	{name: "pixel", description: "Return a pixel and a sound", run: func(_ context.Context, in arguments) (string, error) {
		in.attach([]byte("\x89PNG\r\n\x1a\n\x00\xff"), "image/png")
		in.attach([]byte("RIFF"), "audio/wav")
		return "a pixel", nil
	}},
	{name: "files", description: "Link two files, embed one, and attach a sound", run: func(_ context.Context, in arguments) (string, error) {
		in.link("file:///notes/a.md", "a.md", "text/markdown")
		in.link("notes://b", "b", "")
		in.embed("notes://b", "text/markdown", "# B\n\u2028\xed\xa0\x80")
		in.embedBytes("file:///x.bin", "", []byte{0, 0xff})
		in.attach([]byte("RIFF"), "audio/wav")
		return "found 2", nil
	}},
	{name: "bare", description: "Return an embedded resource and no text", run: func(_ context.Context, in arguments) (string, error) {
		in.dropText()
		in.embed("test://embedded-resource", "text/plain", "This is an embedded resource content.")
		return "", nil
	}},
	{name: "empty", description: "Return no content at all", run: func(_ context.Context, in arguments) (string, error) {
		in.dropText()
		return "ignored", nil
	}},
	{name: "titled", description: "Show titled choices as read", args: []arg{
		{name: "mode", kind: "string", choices: []string{"r", "w"}, titles: []string{"Read", "Write"}, description: "how to open"},
		{name: "tags", kind: "strings", choices: []string{"a", "b", "c"}, titles: []string{"Alpha", "Beta", "Gamma"}, max: 2, optional: true, def: []string{"a"}},
	}, run: func(_ context.Context, in arguments) (string, error) {
		return "mode=" + in.text("mode") + " tags=" + strings.Join(in.texts("tags"), "|"), nil
	}}}

// escapedCatalogue is testdata/escaped's catalogue (see escaped.mjs).
var escapedCatalogue = []tool{
	{name: "long", description: "Return the long-named argument", args: []arg{{name: strings.Repeat("abcdefgh", 16), kind: "string"}},
		run: func(_ context.Context, in arguments) (string, error) {
			return in.text(strings.Repeat("abcdefgh", 16)), nil
		}},
	{name: "tone", description: "Return the tone", args: []arg{{name: "tone", kind: "string", choices: []string{"warm", "formal"}}},
		run: func(_ context.Context, in arguments) (string, error) { return in.text("tone"), nil }},
}

// repeatedCatalogue is TestRepeatedMembers': echo, a tool that reports
// progress, and one that waits for its context, a second at most.
var repeatedCatalogue = []tool{
	demoTools[1],
	{name: "report", description: "Report progress once", run: func(_ context.Context, in arguments) (string, error) {
		in.progress(1, 0, "")
		return "reported", nil
	}},
	{name: "wait", description: "Wait for the context", timeout: time.Second, run: func(ctx context.Context, _ arguments) (string, error) {
		<-ctx.Done()
		return "", context.Cause(ctx)
	}},
}

// TestRepeatedMembers: of a member written twice, mcp reads the last, as
// JSON.parse keeps it, for each member the loop or a handler reads: the
// replies to lines with both are those to the lines with the last alone,
// and differ from those to the lines with the first alone. Through the
// test binary as mcp; testdata/ask pins the members a tool's question
// reads (a client's capabilities and its answers), as node reads them.
func TestRepeatedMembers(t *testing.T) {
	t.Parallel()
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, tc := range []struct {
		lines       string // @ is the member, written as first, last or both
		name        string
		first, last string
	}{
		{`{@,"id":1,"method":"ping"}`, "jsonrpc", `"1.0"`, `"2.0"`},
		{`{"jsonrpc":"2.0",@,"method":"ping"}`, "id", `1`, `2`},
		{`{"jsonrpc":"2.0","id":1,@}`, "method", `"tools/list"`, `"ping"`},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read",@}`, "params", `{"uri":"x://a"}`, `{"uri":"memo://welcome"}`},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{@}}`, "uri", `"x://a"`, `"memo://welcome"`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{@,"arguments":{"text":"t"}}}`, "name", `"nope"`, `"echo"`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",@}}`, "arguments", `{"text":"a"}`, `{"text":"b"}`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{@}}}`, "text", `"a"`, `"b"`},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{@,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
			"protocolVersion", `"2024-11-05"`, `"2025-06-18"`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{@}}`, "_meta", strings.TrimPrefix(meta, `"_meta":`), `{}`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{@,"io.modelcontextprotocol/clientCapabilities":{}}}}`,
			metaProtocolVersion, `"2026-07-28"`, `"2025-06-18"`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",@}}}`,
			metaClientCapabilities, `{}`, `1`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"report","_meta":{@}}}`, "progressToken", `"a"`, `"b"`},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"wait"}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{@}}`, "requestId", `"a"`, `"none"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			member := func(v string) string { return strconv.Quote(tc.name) + ":" + v }
			var got [3]string
			for i, m := range []string{member(tc.first) + "," + member(tc.last), member(tc.last), member(tc.first)} {
				out, _ := runCatalogue(t, "repeated", []byte(strings.Replace(tc.lines, "@", m, 1)+"\n"))
				got[i] = string(out)
			}
			if got[0] != got[1] || got[1] == got[2] {
				t.Errorf("%s twice: got %q\nthe last alone: %q\nthe first alone: %q", tc.name, got[0], got[1], got[2])
			}
		})
	}
}

// TestEscapedNames: an argument's name and a choice are their text,
// however the line writes them: a name of 128 bytes, the longest a
// catalogue allows, written wholly in \u escapes (768 bytes), is that
// argument, and "\u0066ormal" is the choice "formal"; a near miss is not.
// Through the test binary as mcp; node computed escaped.out.
func TestEscapedNames(t *testing.T) {
	t.Parallel()
	if err := checkCatalogue(escapedCatalogue, nil); err != nil {
		t.Fatal(err)
	}
	in, want := readFixture(t, "testdata/escaped/escaped")
	if got, _ := runCatalogue(t, "escaped", in); !bytes.Equal(got, want) {
		t.Errorf("testdata/escaped:\n%s", firstDiff(in, got, want))
	}
}

// readFixture returns NAME.in and NAME.out.
func readFixture(t *testing.T, name string) (in, want []byte) {
	t.Helper()
	in, err := os.ReadFile(name + ".in")
	if err == nil {
		want, err = os.ReadFile(name + ".out")
	}
	if err != nil {
		t.Fatal(err)
	}
	return in, want
}

// TestToolKinds: a catalogue with every kind of argument, descriptions,
// defaults, a choice, a title and annotations is listed, checked and read
// as testdata/kinds/kinds.out says, which node computed from kinds.in.
func TestToolKinds(t *testing.T) {
	if err := checkCatalogue(kindsCatalogue, nil); err != nil {
		t.Fatal(err)
	}
	in, want := readFixture(t, "testdata/kinds/kinds")
	// kinds.mjs's initialize names the demo server: a renamed one is itself.
	want = bytes.ReplaceAll(want, []byte(`{"name":"shipcode-mcp","version":"0.1.0"}`), []byte(quote(serverInfo)))
	if got := serveWith(t, kindsCatalogue, string(in)); got != string(want) {
		t.Errorf("testdata/kinds:\n%s", firstDiff(in, []byte(got), want))
	}
}

// FuzzToolText: whatever bytes a tool returns, and whatever string a
// client sends for a tool to pass back (echo, a tool that returns its
// text argument, and one that joins a list of strings), the reply is one
// line of valid JSON whose text is what JSON.stringify writes for the
// string JavaScript reads (see jsDecode, jsParseString, jsStringify), and
// the session goes on.
func FuzzToolText(f *testing.F) {
	for _, seed := range []string{
		"it's \"late\"\ngo home", `C:\Users\`, `\u12`, `\U`, "a\tb", "\x00\x7f\u2028\u2029",
		"\xed\xa0\x80", "\xed\xa0\xbd\xed\xb8\x80", "\xed\xb8\x80\xed\xa0\xbd", "\xed\xa0", "\xff\xe2\x82",
		`q\"uote\n\t\\ \ud800 \udc00z \ud83d\ude00 \u2028 \u007f \u0000\\`, "😀 ñ \xc0\xaf \xf4\x90\x80\x80",
	} {
		f.Add([]byte(seed))
	}
	var fromTool []byte
	catalogue := append([]tool{
		{name: "raw", run: func(context.Context, arguments) (string, error) { return string(fromTool), nil }},
		{name: "back", args: []arg{{name: "text", kind: "string"}}, run: func(_ context.Context, in arguments) (string, error) { return in.text("text"), nil }},
		{name: "join", args: []arg{{name: "texts", kind: "strings"}}, run: func(_ context.Context, in arguments) (string, error) {
			return strings.Join(in.texts("texts"), "|"), nil
		}},
		{name: "structured", output: []arg{{name: "s", kind: "string"}}, run: func(_ context.Context, in arguments) (string, error) {
			in.output("s", string(fromTool))
			return "", nil
		}},
	}, demoTools...)
	f.Fuzz(func(t *testing.T, b []byte) {
		fromTool = b
		in := callLine("1", "raw", "{}") + "\n" + callLine("5", "structured", "{}") + "\n"
		structured := `{"s":` + jsStringify(jsDecode(b, true)) + `}` // as structuredContent, and as the text
		want := textReply("1", unquoted(jsStringify(jsDecode(b, true)))) + `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":` +
			jsStringify(jsDecode([]byte(structured), true)) + `}],"structuredContent":` + structured + `,"isError":false}}` + "\n"
		if lit := `"` + string(b) + `"`; json.Valid([]byte(lit)) {
			in += echoCall("2", lit) + "\n" + callLine("3", "back", `{"text":`+lit+`}`) + "\n" + callLine("4", "join", `{"texts":[`+lit+`,"",`+lit+`]}`) + "\n"
			units := jsParseString(b)
			body, joined := unquoted(jsStringify(units)), unquoted(jsStringify(slices.Concat(units, []uint16{'|', '|'}, units)))
			want += textReply("2", body) + textReply("3", body) + textReply("4", joined)
		}
		if got := serveWith(t, catalogue, in+pingLine+"\n"); got != want+pingReply {
			t.Fatalf("for % x:\ngot  %q\nwant %q", b, got, want+pingReply)
		}
	})
}

// TestFormFields: what a question's fields may be, which ask checks
// before it asks (a mistake panics, as TestAsk's "list" shows), and the
// formats' rules, as the README states them, on texts each side of them.
func TestFormFields(t *testing.T) {
	for _, tc := range []struct {
		field arg
		want  string
	}{
		{arg{name: "d", kind: "string", format: "phone"}, "a format (email, uri, date or date-time)"},
		{arg{name: "d", kind: "number", format: "date"}, "a format (email, uri, date or date-time)"},
		{arg{name: "d", kind: "string", format: "date", choices: []string{"2026-12-06"}}, "a format (email, uri, date or date-time)"},
		{arg{name: "o", kind: "object"}, "a form holds strings, numbers, integers, booleans and lists of choices"},
		{arg{name: "l", kind: "strings"}, "a form holds strings, numbers, integers, booleans and lists of choices"},
		{arg{name: "d", kind: "string", format: "date", optional: true, def: "2026-02-30"}, `the default "2026-02-30" must be a date (YYYY-MM-DD)`},
		{arg{name: "l", kind: "strings", choices: []string{"a"}, titles: []string{"A"}, max: 1}, ""},
	} {
		if _, fault := checkArgs([]arg{tc.field}, true); !strings.Contains(fault, tc.want) || (tc.want == "") != (fault == "") {
			t.Errorf("%+v: %q, want %q", tc.field, fault, tc.want)
		}
	}
	for format, texts := range map[string]struct{ valid, invalid []string }{
		"email": {[]string{"a@b.c", "zoë@exämple.org", "a.b+c@d-e.f.g", "\xff@b.c"},
			[]string{"", "a", "@b.c", "a@b", "a@.b", "a@b.", "a@b..c", "a@b@c.d", "a b@c.d", "a@b.c\n", "a@b.c\x00"}},
		"uri": {[]string{"a:", "urn:isbn:1", "http://x/é", "A+b-c.d:x"},
			[]string{"", ":x", "1a:x", "+a:x", "a_b:x", "a", "http://x y", "a:\t"}},
		"date": {[]string{"2024-02-29", "0000-01-01", "9999-12-31"},
			[]string{"2023-02-29", "2026-13-01", "2026-00-10", "2026-1-05", "26-01-05", "+2026-01-05", "-001-01-05", "2026-01-05 ", "2026/01/05"}},
		"date-time": {[]string{"2026-12-06T09:30:00Z", "2026-12-06T23:59:59.123456789-23:59", "2026-12-06T00:00:00.5+01:00"},
			[]string{"2026-12-06t09:30:00z", "2026-12-06T24:00:00Z", "2026-12-06T09:60:00Z", "2026-12-06T09:30:60Z", "2026-12-06T09:30:00",
				"2026-12-06T09:30:00.Z", "2026-12-06T09:30:00+24:00", "2026-12-06T09:30:00+01:60", "2026-12-06T09:30Z", "2026-02-30T09:30:00Z", "2026-12-06 09:30:00Z"}},
	} {
		for _, s := range texts.valid {
			if !formats[format].valid(s) {
				t.Errorf("%s %q: invalid, want valid", format, s)
			}
		}
		for _, s := range texts.invalid {
			if formats[format].valid(s) {
				t.Errorf("%s %q: valid, want invalid", format, s)
			}
		}
	}
}

// TestCatalogue: the catalogue is valid, and each kind of mistake in one
// is found; a binary built with one says so at start, writes nothing to
// stdout and exits 1.
func TestCatalogue(t *testing.T) {
	if err := checkCatalogue(tools, resources); err != nil {
		t.Fatalf("the catalogue: %v", err)
	}
	ok := tool{name: "ok", args: []arg{{name: "a", kind: "number"}}, run: demoTools[0].run}
	bad := func(change func(*tool)) []tool { t := ok; change(&t); return []tool{t} }
	for _, tc := range []struct {
		name      string
		tools     []tool
		resources []resource
		want      string
	}{
		{"empty name", bad(func(t *tool) { t.name = "" }), nil, "a name is 1 to 128"},
		{"long name", bad(func(t *tool) { t.name = strings.Repeat("n", 129) }), nil, "a name is 1 to 128"},
		{"space in name", bad(func(t *tool) { t.name = "my tool" }), nil, "a name is 1 to 128"},
		{"name used twice", []tool{ok, ok}, nil, `tool "ok": the name is used twice`},
		{"name used twice, apart", []tool{ok, {name: "other", run: ok.run}, ok}, nil, `tool "ok": the name is used twice`},
		{"unknown kind", bad(func(t *tool) { t.args = []arg{{name: "n", kind: "obj"}} }), nil, `the kind "obj" is not one of string, number, integer`},
		{"args of a string", bad(func(t *tool) { t.args = []arg{{name: "s", kind: "string", args: []arg{{name: "x", kind: "string"}}}} }), nil, "args are for an object"},
		{"a nested mistake", bad(func(t *tool) {
			t.args = []arg{{name: "o", kind: "objects", args: []arg{{name: "x", kind: "number", min: 2, max: 1}}}}
		}), nil, `argument "o": argument "x": the minimum 2 is over the maximum 1`},
		{"default of an object", bad(func(t *tool) { t.args = []arg{{name: "o", kind: "object", optional: true, def: arguments{}}} }), nil, "an object has no default"},
		{"default of a map", bad(func(t *tool) { t.args = []arg{{name: "m", kind: "map", optional: true, def: map[string]string{}}} }), nil, "a map of strings has no default"},
		{"bounds of a map", bad(func(t *tool) { t.args = []arg{{name: "m", kind: "map", max: 3}} }), nil, "a map of strings has no bounds"},
		{"an object output", bad(func(t *tool) { t.output = []arg{{name: "o", kind: "object"}} }), nil, "is not an object or a map"},
		{"argument used twice", bad(func(t *tool) { t.args = []arg{{name: "a", kind: "number"}, {name: "a", kind: "string"}} }), nil, `argument "a": the name is used twice`},
		{"argument without a name", bad(func(t *tool) { t.args = []arg{{kind: "number"}} }), nil, "an argument's name is 1 to 128 bytes"},
		{"long argument name", bad(func(t *tool) { t.args = []arg{{name: strings.Repeat("n", 129), kind: "number"}} }), nil, "an argument's name is 1 to 128 bytes"},
		{"no run", bad(func(t *tool) { t.run = nil }), nil, "no run function"},
		{"negative timeout", bad(func(t *tool) { t.timeout = -time.Second }), nil, "the timeout -1s is negative"},
		{"unknown annotation", bad(func(t *tool) { t.annotations = map[string]bool{"readonlyHint": true} }), nil, `the annotation "readonlyHint" is not one of`},
		{"default of another kind", bad(func(t *tool) { t.args = []arg{{name: "n", kind: "number", optional: true, def: 3}} }), nil, `the default 3 (int) is not a float64, as a number argument reads`},
		{"default of a list", bad(func(t *tool) { t.args = []arg{{name: "n", kind: "numbers", optional: true, def: []int{1}}} }), nil, `is not a []float64`},
		{"default not a number", bad(func(t *tool) { t.args = []arg{{name: "n", kind: "number", optional: true, def: math.NaN()}} }), nil, `the default NaN is not a number JSON can write`},
		{"default, a list with Infinity", bad(func(t *tool) {
			t.args = []arg{{name: "n", kind: "numbers", optional: true, def: []float64{1, math.Inf(1)}}}
		}), nil, `the default [1 +Inf] is not a number JSON can write`},
		{"default, required", bad(func(t *tool) { t.args = []arg{{name: "n", kind: "integer", def: 3}} }), nil, "a default is for an optional argument"},
		{"no choices", bad(func(t *tool) { t.args = []arg{{name: "c", kind: "string", choices: []string{}}} }), nil, "choices are one or more strings"},
		{"choices of a number", bad(func(t *tool) { t.args = []arg{{name: "c", kind: "number", choices: []string{"1"}}} }), nil, "choices are one or more strings"},
		{"a choice twice", bad(func(t *tool) { t.args = []arg{{name: "c", kind: "string", choices: []string{"c", "f", "c"}}} }), nil, "a choice is given twice"},
		{"default not a choice", bad(func(t *tool) {
			t.args = []arg{{name: "c", kind: "string", choices: []string{"c", "f"}, optional: true, def: "k"}}
		}), nil, `the default "k" must be one of "c", "f", got "k"`},
		{"default -0", bad(func(t *tool) { t.args = []arg{{name: "n", kind: "number", optional: true, def: math.Copysign(0, -1)}} }), nil, "the default -0 is not a number JSON can write"},
		{"default past 2^53", bad(func(t *tool) { t.args = []arg{{name: "i", kind: "integer", optional: true, def: 1 << 53}} }), nil, "the default 9007199254740992 must be at most 9007199254740991"},
		{"default out of bounds", bad(func(t *tool) { t.args = []arg{{name: "i", kind: "integer", min: 1, max: 10, optional: true, def: 0}} }), nil, "the default 0 must be at least 1, got 0"},
		{"default too long", bad(func(t *tool) { t.args = []arg{{name: "s", kind: "string", max: 2, optional: true, def: "abc"}} }), nil, `the default "abc" must be at most 2 characters, got 3`},
		{"default not a choice of a list", bad(func(t *tool) {
			t.args = []arg{{name: "s", kind: "strings", choices: []string{"a"}, optional: true, def: []string{"b"}}}
		}), nil, `got a list with "b"`},
		{"minimum over maximum", bad(func(t *tool) { t.args = []arg{{name: "n", kind: "number", min: 2, max: 1.5}} }), nil, "the minimum 2 is over the maximum 1.5"},
		{"bound -0", bad(func(t *tool) { t.args = []arg{{name: "n", kind: "number", min: math.Copysign(0, -1)}} }), nil, "the bounds"},
		{"bound past 2^53", bad(func(t *tool) { t.args = []arg{{name: "n", kind: "number", max: 1<<53 + 1}} }), nil, "the bounds"},
		{"bound a string", bad(func(t *tool) { t.args = []arg{{name: "n", kind: "number", max: "9"}} }), nil, "the bounds"},
		{"fractional integer bound", bad(func(t *tool) { t.args = []arg{{name: "i", kind: "integer", min: 0.5}} }), nil, "the bounds"},
		{"negative length", bad(func(t *tool) { t.args = []arg{{name: "s", kind: "string", min: -1}} }), nil, "the bounds"},
		{"infinite bound", bad(func(t *tool) { t.args = []arg{{name: "n", kind: "number", max: math.Inf(1)}} }), nil, "the bounds"},
		{"bounds of a boolean", bad(func(t *tool) { t.args = []arg{{name: "b", kind: "boolean", max: 1}} }), nil, "a boolean has no bounds"},
		{"name an array index", bad(func(t *tool) { t.args = []arg{{name: "0", kind: "number"}} }), nil, "a name of digits is put first by JavaScript"},
		{"name U+FFFD", bad(func(t *tool) { t.args = []arg{{name: "a\uFFFD", kind: "number"}} }), nil, "without U+FFFD"},
		{"choice not UTF-8", bad(func(t *tool) { t.args = []arg{{name: "c", kind: "string", choices: []string{"\xff"}}} }), nil, "valid UTF-8"},
		{"titles not one a choice", bad(func(t *tool) {
			t.args = []arg{{name: "c", kind: "string", choices: []string{"c", "f"}, titles: []string{"C"}}}
		}), nil, "titles are one for each choice"},
		{"titles without choices", bad(func(t *tool) { t.args = []arg{{name: "c", kind: "string", titles: []string{"C"}}} }), nil, "titles are one for each choice"},
		{"title not UTF-8", bad(func(t *tool) {
			t.args = []arg{{name: "c", kind: "string", choices: []string{"c"}, titles: []string{"\xff"}}}
		}), nil, "valid UTF-8"},
		{"a format of an argument", bad(func(t *tool) { t.args = []arg{{name: "e", kind: "string", format: "email"}} }), nil, "a format (email, uri, date or date-time) is a question's"},
		{"a format of an output", bad(func(t *tool) { t.output = []arg{{name: "e", kind: "string", format: "date"}} }), nil, "a format (email, uri, date or date-time) is a question's"},
		{"URI used twice", nil, []resource{demoResource, demoResource}, "the URI is used twice"},
		{"a variable twice", nil, []resource{{uri: "x://{a}/{a}", name: "x", read: readNothing}}, "the variable a twice"},
		{"a variable not a name", nil, []resource{{uri: "x://{a-b}", name: "x", read: readNothing}}, "a variable that is not {name}"},
		{"an empty variable", nil, []resource{{uri: "x://{}", name: "x", read: readNothing}}, "a variable that is not {name}"},
		{"an unclosed variable", nil, []resource{{uri: "x://{a", name: "x", read: readNothing}}, "a variable that is not {name}"},
		{"a variable then a value's character", nil, []resource{{uri: "x://{a}.txt", name: "x", read: readNothing}}, `followed by "."`},
		{"two variables together", nil, []resource{{uri: "x://{a}{b}", name: "x", read: readNothing}}, `followed by "{"`},
		{"a template of text", nil, []resource{{uri: "x://{a}", name: "x", text: "t"}}, "is read by a read function"},
		{"bytes of text", nil, []resource{{uri: "x://a", name: "x", text: "t", blob: true}}, "is read by a read function"},
		{"text and read", nil, []resource{{uri: "x://a", name: "x", text: "t", read: readNothing}}, "either text or a read function"},
		{"no name", nil, []resource{{uri: "x://a", text: "t"}}, "a resource has a URI and a name"},
	} {
		if err := checkCatalogue(tc.tools, tc.resources); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	// The test binary as mcp, with a catalogue of the test's own.
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), catalogueEnv+"=bad kind")
	cmd.Stdin = strings.NewReader(pingLine + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if cmd.ProcessState.ExitCode() != 1 || len(out) > 0 || !strings.HasPrefix(stderr.String(), `mcp: tool "x", argument "n": the kind "integr" is not`) {
		t.Errorf("a bad kind at start: %v, stdout %q, stderr %q", err, out, stderr.String())
	}
}

// The user's copy of the package (see userCopy), made once per run.
var userBuild struct {
	sync.Once
	dir string
	err error
}

// userCopy returns the directory of a copy of the package, with its tests,
// testdata, README and Makefile, whose catalogue has, before echo (or
// last), the
// README's recipe and a tool named like each tool the tests name: the
// package as a user who follows the README has it, built as mcp in it.
// The first test that needs it makes it; the run makes no other copy.
func userCopy(t *testing.T) string {
	t.Helper()
	userBuild.Do(func() {
		entry, name, fn := readmeRecipe(t, 0)
		askEntry, askName, askFn := readmeRecipe(t, 2)
		src, _ := os.ReadFile("main_test.go")
		names := []string{"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"} // TestToolText's, made in a loop
		for _, m := range regexp.MustCompile(`name: "([A-Za-z0-9_.-]{1,128})"`).FindAllStringSubmatch(string(src), -1) {
			names = append(names, m[1])
		}
		extra := fmt.Sprintf(`
func init() {
	added := []tool{}
	has := func(tools []tool, name string) bool { return slices.ContainsFunc(tools, func(t tool) bool { return t.name == name }) }
	if !has(tools, %q) {
		added = append(added, tool%s)
	}
	if !has(tools, %q) {
		added = append(added, tool%s)
	}
	for _, name := range %#v {
		if !has(tools, name) && !has(added, name) {
			added = append(added, tool{name: name, description: "a user's", args: []arg{{name: "text", kind: "string"}},
				run: func(_ context.Context, in arguments) (string, error) { return in.text("text"), nil }})
		}
	}
	i := slices.IndexFunc(tools, func(t tool) bool { return t.name == "echo" })
	if i < 0 {
		i = len(tools)
	}
	tools = slices.Insert(tools, i, added...)
	stateKey = make([]byte, 32) // TestMain's key and clock, for the states node wrote
	for i := range stateKey {
		stateKey[i] = byte(i)
	}
	now = func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }
}
`, name, entry, askName, askEntry, slices.Compact(slices.Sorted(slices.Values(names))))
		userBuild.dir, userBuild.err = makeCopy(recipeImports + fn + askFn + extra)
	})
	if userBuild.err != nil {
		t.Fatal(userBuild.err)
	}
	return userBuild.dir
}

// makeCopy copies the package with its tests, testdata, README.md and
// Makefile to a directory of the run's, adds extra (Go declarations) in a
// file of its own, builds it as mcp there, and returns the directory.
func makeCopy(extra string) (string, error) {
	copyDir, err := os.MkdirTemp(dir, "copy-")
	if err != nil {
		return "", err
	}
	files, _ := filepath.Glob("*.go")
	for _, f := range append(files, "go.mod", "README.md", "Makefile") {
		if b, err := os.ReadFile(f); err != nil {
			return "", err
		} else if err := os.WriteFile(filepath.Join(copyDir, f), b, 0o644); err != nil {
			return "", err
		}
	}
	if err := os.CopyFS(filepath.Join(copyDir, "testdata"), os.DirFS("testdata")); err != nil {
		return "", err
	}
	// A name of its own: a copy made in a copy keeps the first's.
	if err := os.WriteFile(filepath.Join(copyDir, "zz_user_"+filepath.Base(copyDir)+".go"), []byte("package main\n\n"+extra), 0o644); err != nil {
		return "", err
	}
	build := exec.Command("go", "build", "-o", "mcp", ".")
	build.Dir = copyDir
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build with %q: %v\n%s", clip(extra, 200), err, out)
	}
	return copyDir, nil
}

// TestUserTools: the README's steps after adding a tool work: in the
// user's copy (see userCopy), make golden's command rewrites the golden
// files, and then they pass, as do the tests of tools, of the catalogue
// and of the README.
func TestUserTools(t *testing.T) {
	if os.Getenv("MCP_TEST_IN_COPY") != "" {
		t.Skip("in such a copy already")
	}
	t.Parallel()
	for _, args := range [][]string{{"-run", "TestGolden", "-update"}, {"-run", "Golden|Tool|Catalogue|README"}} {
		cmd := exec.Command("go", append([]string{"test", "-count=1"}, append(args, ".")...)...)
		cmd.Dir, cmd.Env = userCopy(t), append(os.Environ(), "MCP_TEST_IN_COPY=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go test %v in a copy with the user's tools: %v\n%s", args, err, out)
		}
	}
}

// TestMethodsDispatch: every method of the methods table reaches its
// handler, and no other does (a near miss, a case change).
func TestMethodsDispatch(t *testing.T) {
	defer func(r []resource) { resources = r }(resources)
	resources = testResources["resources"] // with a template that completes, for completion/complete
	var names []string
	for _, m := range methods {
		names = append(names, m.name)
	}
	for _, m := range append(names, "tools/cal", "nope", "Ping") {
		meta := `{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}`
		if m == "subscriptions/listen" { // 2026-07-28's only
			meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		}
		params := `{"name":"add","arguments":{"a":1,"b":2},"uri":"memo://welcome","ref":{"type":"ref/resource","uri":"repo://{owner}/{name}"},` +
			`"argument":{"name":"owner","value":"a"},"_meta":` + meta + `}`
		got := serveString(t, `{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":`+params+`}`+"\n")
		if found := !strings.Contains(got, `"code":-32601`); found != slices.Contains(names, m) {
			t.Errorf("%s: %s", m, got)
		}
	}
}

// TestResourceURIText: a resource is found by its URI's text, however
// long it is and however the client escapes it.
func TestResourceURIText(t *testing.T) {
	uri := "memo://" + strings.Repeat("a/", 500)
	defer func(r []resource) { resources = r }(resources)
	resources = []resource{{uri: uri, name: "long", text: "found"}}
	got := serveString(t, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"`+strings.ReplaceAll(uri, "/", `\/`)+`"}}`+"\n")
	if want := `{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"` + uri + `","text":"found"}]}}` + "\n"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// ==== The process: limits, memory, cost ====

// child is a running mcp binary with its pipes.
type child struct {
	cmd        *exec.Cmd
	stdin      io.WriteCloser
	stdout     *bufio.Reader
	stdoutPipe io.ReadCloser
	stderr     bytes.Buffer
}

// startChild starts the binary with args; the caller writes to stdin.
func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	return startCommand(t, mcpCommand(args...))
}

// startCommand starts cmd, which runs mcp.
func startCommand(t *testing.T, cmd *exec.Cmd) *child {
	t.Helper()
	c := &child{cmd: cmd}
	if cmd.Stderr == nil {
		cmd.Stderr = &c.stderr
	}
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if c.stdoutPipe, err = cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	c.stdout = bufio.NewReaderSize(deadlineReader{c.stdoutPipe.(*os.File)}, 1<<20)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return c
}

// hangAfter is how long a process-level test waits for one read, or for
// the child to exit, before it fails as hung: far longer than any step
// takes, so it is a hang, never a timing check.
const hangAfter = 30 * time.Second

// deadlineReader reads a pipe, failing a read that takes hangAfter.
type deadlineReader struct{ f *os.File }

func (r deadlineReader) Read(p []byte) (int, error) {
	r.f.SetReadDeadline(time.Now().Add(hangAfter))
	return r.f.Read(p)
}

// finish reads the child's stdout to its end, then waits for it to exit,
// and returns what it read: Wait closes the pipe, so it must not run
// while a read may still be under way.
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

// readUntil reads the child's stdout up to and including the line want,
// dropping what comes before it, however long.
func (c *child) readUntil(t *testing.T, want string) {
	t.Helper()
	for whole := true; ; {
		line, err := c.stdout.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull {
			t.Fatalf("waiting for %q: %v", clip(want, 100), err)
		}
		if whole && string(line) == want {
			return
		}
		whole = err == nil
	}
}

// peakRSS returns the child's peak resident memory (VmHWM) in bytes, or 0
// for a binary built with the race detector, whose shadow memory
// multiplies it: memory bounds are for the real binary.
func (c *child) peakRSS(t *testing.T) int {
	t.Helper()
	if raceEnabled() {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.Atoi(f[1])
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

// TestOverLimitLine: at the default limit, a line of 64 MiB + 1 byte gets
// Invalid Request and the next line is served; a 256 MiB line with no
// newline at all is dropped as it is read, the process staying under
// 100 MiB resident, and is answered at the end of input.
func TestOverLimitLine(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("large messages: skipped with -short")
	}
	c := startChild(t)
	go func() {
		fmt.Fprintf(c.stdin, "%s\n%s\n", echoCall("1", `"`+largeText(defaultMaxMessage-len(echoCall("1", `""`))+1)+`"`), pingLine)
		c.stdin.Close()
	}()
	if out, st := c.finish(t); st.ExitCode() != 0 || string(out) != tooLongReply(defaultMaxMessage)+pingReply {
		t.Errorf("64 MiB + 1: exit %v, got %q", st, clip(string(out), 300))
	}
	c = startChild(t)
	chunk := []byte(largeText(1 << 20))
	fmt.Fprint(c.stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`)
	for range 256 {
		if _, err := c.stdin.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	rss := c.peakRSS(t)
	c.stdin.Close()
	if out, st := c.finish(t); st.ExitCode() != 0 || string(out) != tooLongReply(defaultMaxMessage) {
		t.Errorf("256 MiB without newline: exit %v, got %q", st, out)
	}
	bound := readmeFigure(t, `no newline keeps\s+mcp under (\d+) MiB\s+resident`)
	if t.Logf("256 MiB without newline: peak RSS %.1f MiB", float64(rss)/(1<<20)); float64(rss) >= bound*(1<<20) {
		t.Errorf("peak RSS %.1f MiB, want under %v MiB", float64(rss)/(1<<20), bound)
	}
}

// TestMemoryBound: whatever a line holds and makes the server write,
// alone or back to back (each case is sent twice), peak resident memory
// stays under 5x the longest line + 32 MiB; a batch's replies are written
// as they are made, so a 2 MiB batch of 0s, which owes 80 MB of replies,
// stays within it too, and subscriptions opened and cancelled leave
// nothing behind. Lines of up to 12 MiB, so that a line held once too
// often shows plainly.
func TestMemoryBound(t *testing.T) {
	if raceEnabled() || testing.Short() {
		t.Skip("memory bounds: for the binary without the race detector, and not with -short")
	}
	const mib = 1 << 20
	times, plus := readmeFigure(t, `under (\d+)x the longest line \+\s+\d+ MiB`), readmeFigure(t, `under \d+x the longest line \+\s+(\d+) MiB`)*mib
	// A batch's replies are many times the bound, so that holding them is
	// seen: 125,000 pings, 10 MB of replies; 1M 0s, 80 MB.
	pings := "[" + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"},`, 125000)
	escapedNames := strings.Repeat(`"\/`+strings.Repeat("a", 367)+`":0,`, 32768)
	surrogates := strings.Repeat(`\ud800`, 2*mib)
	// Subscriptions opened and cancelled, 600,000 of them: short lines
	// that, answered, owe nothing, so that what each leaves is seen.
	var session strings.Builder
	for i := range 300000 {
		fmt.Fprintf(&session, `{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"_meta":%s}}`+"\n", i, modernMeta)
		session.WriteString(cancel(strconv.Itoa(i)))
	}
	cases := []struct {
		name string
		args []string
		line string
	}{
		{"batch of pings", nil, pings[:len(pings)-1] + "]"},
		{"batch of pings, -v", []string{"-v"}, pings[:len(pings)-1] + "]"},
		{"batch of 0s", nil, "[" + strings.Repeat("0,", mib) + "0]"},
		{"batch of notifications", nil, "[" + strings.Repeat(`{"jsonrpc":"2.0","method":"nnn"},`, 3*mib/8) + "0]"},
		{"batch with a string id", nil, `[{"jsonrpc":"2.0","id":"` + largeText(10*mib) + `","method":"ping"}]`},
		{"echo", nil, echoCall("1", `"`+largeText(12*mib)+`"`)},
		{"0xFF echo", nil, echoCall("1", `"`+strings.Repeat("\xff", 10*mib)+`"`)},
		{"lone surrogates echo", nil, echoCall("1", `"`+surrogates+`"`)},
		{"escapes echo", nil, echoCall("1", `"`+strings.Repeat(`\u0001\n`, 3*mib/2)+`"`)},
		{"numeric id", nil, `{"jsonrpc":"2.0","id":` + strings.Repeat("7", 12*mib) + `,"method":"ping"}`},
		{"notification", nil, `{"jsonrpc":"2.0","method":"notifications/x","params":{"text":"` + largeText(12*mib) + `"}}`},
		{"notifications, 40 lines", nil, strings.Repeat(`{"jsonrpc":"2.0","method":"notifications/x","params":{"text":"`+largeText(2*mib)+`"}}`+"\n", 39) +
			`{"jsonrpc":"2.0","method":"notifications/x"}`},
		{"not JSON", nil, echoCall("1", `"`+largeText(12*mib)+`"`+"}}")},
		{"line of [", nil, strings.Repeat("[", 12*mib)},
		{"unknown tool name", nil, callLine("1", "\\n"+strings.Repeat("\xff\xfe", 5*mib), "{}")},
		{"number", nil, callLine("1", "add", `{"a":`+strings.Repeat("7", 10*mib)+`,"b":1}`)},
		{"escaped names in params", nil, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + escapedNames[:len(escapedNames)-1] + `}}`},
		{"unexpected argument name", nil, callLine("1", "add", `{"a":1,"b":2,"`+strings.Repeat("\xff", 10*mib)+`":0}`)},
		{"unknown URI", nil, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"` + surrogates + `"}}`},
		{"subscriptions opened and cancelled", nil, strings.TrimSuffix(session.String(), "\n")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := mcpCommand(tc.args...)
			cmd.Stderr = io.Discard // read at full speed
			c := startCommand(t, cmd)
			go func() { // back to back, written as it is: the line is not copied
				for _, s := range []string{tc.line, "\n", tc.line, "\n", pingLine + "\n"} {
					io.WriteString(c.stdin, s)
				}
			}()
			c.readUntil(t, pingReply)
			longest := 0
			for line := range strings.Lines(tc.line) {
				longest = max(longest, len(line))
			}
			peak, bound := c.peakRSS(t), int(times*float64(longest)+plus)
			c.stdin.Close()
			c.finish(t)
			t.Logf("longest line %.0f MiB: peak RSS %.0f MiB, bound %.0f", float64(longest)/mib, float64(peak)/mib, float64(bound)/mib)
			if peak > bound || peak < longest/2 {
				t.Errorf("peak RSS %.0f MiB, want between %.0f (half the longest line: it was read) and %.0f", float64(peak)/mib, float64(longest)/2/mib, float64(bound)/mib)
			}
		})
	}
}

// costShapes are lines of about n bytes of each shape whose cost could
// grow faster than its size if the code that reads or writes it looked
// back or ahead: runs of lone surrogates and of bytes that are not UTF-8
// through every text path, escapes, numbers and keys; the first is an
// ASCII echo, to compare with. The catalogue is tools and "back", which
// returns its text.
func costShapes(n int) []struct{ name, line string } {
	sur, ff := strings.Repeat(`\ud800`, n/6), strings.Repeat("\xff", n)
	var adds, keys, listens, cancels strings.Builder
	for adds.Len() < n {
		adds.WriteString("," + callLine("1", "add", `{"a":5e-324,"b":4e-320}`))
		fmt.Fprintf(&keys, `,"k%d":0`, keys.Len())
	}
	for i := 0; listens.Len()+cancels.Len() < n; i++ {
		fmt.Fprintf(&listens, `,{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"_meta":%s}}`, i, modernMeta)
		cancels.WriteString(strings.TrimSuffix(","+cancel(strconv.Itoa(i)), "\n"))
	}
	return []struct{ name, line string }{
		{"ASCII echo", echoCall("1", `"`+largeText(n)+`"`)},
		{"surrogates echo", echoCall("1", `"`+sur+`"`)},
		{"surrogates, a tool's text", callLine("1", "back", `{"text":"`+sur+`"}`)},
		{"surrogates, unexpected argument", callLine("1", "add", `{"a":1,"b":2,"`+sur+`":0}`)},
		{"surrogates, unknown tool", callLine("1", sur, "{}")},
		{"surrogates, string id", `{"jsonrpc":"2.0","id":"` + sur + `","method":"ping"}`},
		{"surrogates, URI", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"` + sur + `"}}`},
		{"surrogates, method in the log", `{"jsonrpc":"2.0","id":1,"method":"` + sur + `"}`},
		{"0xFF echo", echoCall("1", `"`+ff+`"`)},
		{"0xFF, unexpected argument", callLine("1", "add", `{"a":1,"b":2,"`+ff+`":0}`)},
		{"0xED 0xA0 echo", echoCall("1", `"`+strings.Repeat("\xed\xa0", n/2)+`"`)},
		{"escapes echo", echoCall("1", `"`+strings.Repeat(`\n\u0001\\`, n/10)+`"`)},
		{"backslashes", echoCall("1", `"`+strings.Repeat(`\\`, n/2)+`"`)},
		{"slow numbers", "[" + adds.String()[1:] + "]"},
		{"long number", callLine("1", "add", `{"a":1`+strings.Repeat("0", n)+`,"b":1}`)},
		{"keys", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + keys.String()[1:] + `}}`},
		{"nested arrays, read through", callLine("1", "add", `{"a":1,"b":2,"c":[`+strings.Repeat(`[{"d":[0]}],`, n/12)+`0]}`)},
		{"subscriptions, then their cancellations", "[" + listens.String()[1:] + cancels.String() + "]"},
	}
}

// countingWriter counts what is written to it.
type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// costPerByte serves line runs times (for a shape that names the log,
// with -v's log, to nowhere) and returns the median CPU time a serve
// took, per byte of the line or of its reply, whichever is longer: CPU
// time, which other processes on the machine do not stretch as they do
// wall time; the median, as the kernel may count a run's last moments on
// another thread in the next run (one 256 KiB echo read as 0.2 ns a byte,
// not 2, and the least of five then failed TestCostLinear by chance).
func costPerByte(t testing.TB, line string, runs int) float64 {
	catalogue := append([]tool{{name: "back", args: []arg{{name: "text", kind: "string"}}, run: func(_ context.Context, in arguments) (string, error) { return in.text("text"), nil }}}, demoTools...)
	var took []time.Duration
	var out countingWriter
	for range runs {
		out.n = 0
		s := newServer(strings.NewReader(line+"\n"), &out, defaultMaxMessage, catalogue)
		if strings.Contains(line, `"method":"\ud800`) {
			s.log = newLogger(io.Discard)
		}
		start := cpuTime()
		if err := s.serve(); err != nil {
			t.Fatal(err)
		}
		took = append(took, cpuTime()-start)
		s.log.close("")
	}
	slices.Sort(took)
	return float64(took[len(took)/2].Nanoseconds()) / float64(max(len(line), out.n))
}

// cpuTime returns the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestCostLinear: no line costs much more per byte (of the line or of its
// reply, whichever is longer) than an ASCII echo of the same size, and no
// cost grows faster than the line: each shape of costShapes at 16 KiB and
// 256 KiB. The bounds are loose, so that no run fails by chance: 50x the
// echo's cost per byte, and 4x its own at 16 KiB (a cost that grew with
// the square of the size would be 16x). BenchmarkShapes measures them.
func TestCostLinear(t *testing.T) {
	const bound = 50
	if said := readmeFigure(t, `no line costs more than (\d+)x the CPU`); said != bound {
		t.Errorf("the README says %vx an echo's cost; the test asserts %vx", said, bound)
	}
	small, large := costShapes(16<<10), costShapes(256<<10)
	for i, shape := range large {
		echo := min(costPerByte(t, large[0].line, 5), costPerByte(t, large[0].line, 5)) // just before, as it is now
		perByte, before := costPerByte(t, shape.line, 5), costPerByte(t, small[i].line, 5)
		t.Logf("%-32s %6.1f ns/byte, %5.1fx an echo's; %4.2fx its own at 16 KiB", shape.name, perByte, perByte/echo, perByte/before)
		if perByte > bound*echo || perByte > 4*before {
			t.Errorf("%s: %.1f ns a byte, %.1fx an ASCII echo's, %.1fx its own at 16 KiB", shape.name, perByte, perByte/echo, perByte/before)
		}
	}
}

// ==== The process: end of input, signals, pipes ====

// TestEOFAnswersEverything: 1,000 pipelined requests, then the end of
// input: all are answered, in order, and the exit status is 0.
func TestEOFAnswersEverything(t *testing.T) {
	t.Parallel()
	var in bytes.Buffer
	for i := range 1000 {
		fmt.Fprintf(&in, "%s\n", callLine(strconv.Itoa(i), "add", fmt.Sprintf(`{"a":%d,"b":0.5}`, i)))
	}
	out, _ := runBinary(t, in.Bytes())
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 1000 {
		t.Fatalf("%d replies to 1000 requests", len(lines))
	}
	for i, line := range lines {
		if want := textReply(strconv.Itoa(i), strconv.Itoa(i)+".5"); line+"\n" != want {
			t.Fatalf("reply %d: %s, want %s", i, line, want)
		}
	}
}

// TestInteractive: each reply is written as soon as no further request is
// read: a client that waits for each reply before it sends the next gets
// every one, one at a time, and a request split across writes is answered
// once whole.
func TestInteractive(t *testing.T) {
	t.Parallel()
	c := startChild(t)
	for i := range 100 {
		req := callLine(strconv.Itoa(i), "add", `{"a":1,"b":2}`) + "\n"
		io.WriteString(c.stdin, req[:10])
		io.WriteString(c.stdin, req[10:])
		if got, err := c.stdout.ReadString('\n'); err != nil || got != textReply(strconv.Itoa(i), "3") {
			t.Fatalf("request %d: %q, %v", i, got, err)
		}
	}
	c.stdin.Close()
	if rest, st := c.finish(t); len(rest) > 0 || st.ExitCode() != 0 {
		t.Errorf("exit %v, more output %q", st, rest)
	}
}

// TestCtrlDOnATerminal: on a terminal, Ctrl-D ends the input as it ends
// cat's: after a line typed without Enter, the first Ctrl-D sends that
// line, the second is the end of input, and mcp answers the line and
// exits 0, without reading again.
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
	cmd := mcpCommand()
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

// TestSignalStopsGracefully: SIGTERM, SIGINT or SIGHUP in the middle of a
// pipelined stream (stdin still open) finishes the request in hand,
// writes every reply owed as whole lines, in order, and exits 0; with -v
// the last log line says why.
func TestSignalStopsGracefully(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		c := startChild(t, "-v")
		go func() {
			for i := 0; ; i++ {
				if _, err := fmt.Fprintf(c.stdin, "%s\n", callLine(strconv.Itoa(i), "add", fmt.Sprintf(`{"a":%d,"b":1}`, i))); err != nil {
					return
				}
			}
		}()
		var out bytes.Buffer
		for range 100 { // the stream is under way
			line, err := c.stdout.ReadString('\n')
			if err != nil {
				t.Fatalf("%v: %v", sig, err)
			}
			out.WriteString(line)
		}
		c.cmd.Process.Signal(sig)
		rest, st := c.finish(t)
		out.Write(rest)
		if log := c.stderr.String(); st.ExitCode() != 0 || !strings.HasSuffix(log, "\nmcp: "+sig.String()+": stopping\n") {
			t.Fatalf("%v: exit %v, log ends %q", sig, st, log[max(0, len(log)-200):])
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
// open, nothing owed) ends it at once with status 0, the log's last line
// saying why.
func TestSignalWhileIdle(t *testing.T) {
	t.Parallel()
	c := startChild(t, "-v")
	fmt.Fprintf(c.stdin, "%s\n", pingLine)
	if got, err := c.stdout.ReadString('\n'); err != nil || got != pingReply {
		t.Fatalf("reply %q, %v", got, err)
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	rest, st := c.finish(t)
	if log := c.stderr.String(); st.ExitCode() != 0 || len(rest) > 0 || !strings.HasPrefix(log, `mcp: "ping" id="after" `) || !strings.HasSuffix(log, "\nmcp: terminated: stopping\n") {
		t.Fatalf("exit status %v, stdout %q, log %q", st, rest, log)
	}
}

// TestSecondSignal: when the first signal cannot finish (the client
// stopped reading in the middle of a reply, so a write is blocked), a
// second one ends the process at once with 128+the first, which the log's
// last line names. The two signals differ, as two alike sent at once can
// arrive as one; either may arrive first.
func TestSecondSignal(t *testing.T) {
	t.Parallel()
	c := startChild(t, "-v")
	go fmt.Fprintf(c.stdin, "%s\n", echoCall("2", `"`+largeText(4<<20)+`"`))
	if _, err := c.stdout.Peek(1); err != nil { // the reply is being written, and blocks
		t.Fatal(err)
	}
	c.cmd.Process.Signal(syscall.SIGINT)
	c.cmd.Process.Signal(syscall.SIGTERM)
	timer := time.AfterFunc(hangAfter, func() { c.cmd.Process.Kill() })
	defer timer.Stop()
	c.cmd.Wait() // stdout is left unread on purpose
	want := map[int]string{
		128 + int(syscall.SIGINT):  "mcp: interrupt, then terminated: stopping\n",
		128 + int(syscall.SIGTERM): "mcp: terminated, then interrupt: stopping\n",
	}
	if st := c.cmd.ProcessState; want[st.ExitCode()] == "" || !strings.HasSuffix(c.stderr.String(), want[st.ExitCode()]) {
		t.Fatalf("exit %v, log %q; want 128+SIGINT or 128+SIGTERM, and the log to say so", st, c.stderr.String())
	}
}

// TestClosedStdout: when the client closes our stdout, the server exits
// promptly with status 1: quietly, or with -v saying why, last.
func TestClosedStdout(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"-v"}} {
		c := startChild(t, args...)
		c.stdoutPipe.Close()
		go func() {
			for {
				if _, err := fmt.Fprintf(c.stdin, "%s\n", pingLine); err != nil {
					return
				}
			}
		}()
		_, st := c.finish(t)
		log := c.stderr.String()
		if st.ExitCode() != 1 || args == nil && log != "" || args != nil && !strings.HasSuffix(log, "broken pipe: stopping\n") {
			t.Fatalf("%v: exit %v after stdout closed, log ...%q", args, st, log[max(0, len(log)-300):])
		}
	}
}

// TestNonblockingPipes: another process sharing our stdin, stdout or
// stderr may make it non-blocking once we run (golang/go#58408); reads
// and writes then return EAGAIN, which must cost nothing: every reply
// arrives, and every log line is written or counted as dropped, the
// reason for stopping last. The test sets O_NONBLOCK on its own end of
// the shared pipe once the server has answered a first request (before
// that, the Go runtime would see it at start-up and cope by itself).
func TestNonblockingPipes(t *testing.T) {
	t.Parallel()
	for _, which := range []string{"stdin", "stdout", "stderr"} {
		var pipes [3][2]*os.File // stdin, stdout, stderr: read and write ends
		for i := range pipes {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			pipes[i] = [2]*os.File{r, w}
		}
		cmd := mcpCommand("-v")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = pipes[0][0], pipes[1][1], pipes[2][1]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		replies := bufio.NewReader(deadlineReader{pipes[1][0]})
		fmt.Fprintf(pipes[0][1], "%s\n", pingLine)
		if got, err := replies.ReadString('\n'); got != pingReply {
			t.Fatalf("%s: first reply %q, %v", which, got, err)
		}
		shared := map[string]*os.File{"stdin": pipes[0][0], "stdout": pipes[1][1], "stderr": pipes[2][1]}[which]
		if err := syscall.SetNonblock(int(shared.Fd()), true); err != nil {
			t.Fatal(err)
		}
		pipes[0][0].Close()
		pipes[1][1].Close()
		pipes[2][1].Close()
		const n = 20000
		go func() {
			defer pipes[0][1].Close()
			for i := range n {
				if which == "stdin" && i%4000 == 0 {
					time.Sleep(30 * time.Millisecond) // idle: reads return EAGAIN
				}
				fmt.Fprintf(pipes[0][1], `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`+"\n", i)
			}
		}()
		logText := make(chan []byte)
		go func() {
			if which == "stderr" {
				time.Sleep(100 * time.Millisecond) // the pipe fills: writes return EAGAIN
			}
			b, _ := io.ReadAll(pipes[2][0])
			logText <- b
		}()
		if which == "stdout" {
			time.Sleep(100 * time.Millisecond) // likewise
		}
		got := 0
		for sc := bufio.NewScanner(replies); sc.Scan(); got++ {
			if !strings.Contains(sc.Text(), `"result":{"tools":`) {
				t.Fatalf("%s: reply %d: %q", which, got, clip(sc.Text(), 100))
			}
		}
		if err := cmd.Wait(); err != nil || got != n {
			t.Errorf("%s made non-blocking: exit %v: %d replies of %d", which, err, got, n)
		}
		if written, dropped := checkLog(t, <-logText, "mcp: end of input: stopping"); written+dropped != n+1 {
			t.Errorf("%s made non-blocking: %d log lines written and %d counted as dropped, want %d in all", which, written, dropped, n+1)
		}
		pipes[1][0].Close()
		pipes[2][0].Close()
	}
}

// checkLog checks that every line of a -v log is one of ours and that the
// last is want, and returns how many lines it has besides the last and
// the "N log lines dropped" ones, and the sum of those N.
func checkLog(t *testing.T, log []byte, want string) (written, dropped int) {
	t.Helper()
	checkLogShapes(t, log)
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

// ==== The log ====

// logShapes are the shapes of the lines -v writes, each of which the
// README's section "The log" shows (see TestLogShapes); Q is client text
// quoted (see quoteText), ID an id (see logID).
var logShapes = func() []*regexp.Regexp {
	q := `"(?:[^"\\]|\\.)*"(?:\.\.\.\d+ bytes)?`
	id := `(?:null|` + q + `|[-+.eE0-9]+(?:\.\.\.\d+ bytes)?)`
	var shapes []*regexp.Regexp
	for _, shape := range []string{
		`Q id=ID \S+ (?:ok|tool error|cancelled|open|error -\d+(?:: .+)?)`, // a request's outcome
		`Q id=ID cancelled before its turn`,
		`- id=ID error -\d+(?:: .+)?`,
		`- line over \d+ bytes skipped`,
		`- id=ID a response to no question waiting: ignored`,
		`panic in Q: Q`,
		`asked id="ask-\d+" \S+ .+`,
		`\d+ log lines dropped`,
		`.+: stopping`, // the last
	} {
		shape = strings.NewReplacer("Q", q, "ID", id).Replace(shape)
		shapes = append(shapes, regexp.MustCompile(`^mcp: `+shape+`$`))
	}
	return shapes
}()

// checkLogShapes fails the test if a line of a -v log is of none of
// logShapes; a line not starting "mcp: " is a tool's.
func checkLogShapes(t *testing.T, log []byte) {
	t.Helper()
	for line := range strings.Lines(string(log)) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, "mcp: ") && !slices.ContainsFunc(logShapes, func(re *regexp.Regexp) bool { return re.MatchString(line) }) {
			t.Errorf("log line %q is of no shape the README shows", clip(line, 300))
		}
	}
}

// TestLogShapes: the README's section "The log" shows a line of each
// shape -v writes, and only lines of those shapes; the tests that run mcp
// with -v check each line it logs against them (see checkLogShapes).
func TestLogShapes(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n## The log\n")
	_, block, _ := strings.Cut(section, "```\n")
	block, _, _ = strings.Cut(block, "```")
	shown := make([]bool, len(logShapes))
	for line := range strings.Lines(block) {
		example, _, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "  ") // before the comment
		i := slices.IndexFunc(logShapes, func(re *regexp.Regexp) bool { return re.MatchString(example) })
		if i < 0 {
			t.Errorf("the README shows %q, of no shape -v writes", example)
			continue
		}
		shown[i] = true
	}
	for i, ok := range shown {
		if !ok {
			t.Errorf("the README shows no line of the shape %s", logShapes[i])
		}
	}
}

// TestLog: with -v, one line per request (method, id, time, outcome: ok,
// "tool error", or the error code and, for Invalid params, what was
// wrong), client text quoted and cut, a line that is not JSON with where
// it fails (inside the value, or after it), and last why mcp stopped;
// stdout is as without -v.
func TestLog(t *testing.T) {
	long := strings.Repeat("m", 1<<20)
	in := callLine("1", "add", `{"a":1,"b":2}`) + "\n" + callLine("2", "add", `{"a":"x","b":2}`) + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"nope"}` + "\n" + callLine("4", "add", `"a=1"`) + "\n" +
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"arguments":{}}}` + "\n" +
		`{"jsonrpc":"2.0","id":6,"method":"ping","params":[]}` + "\n" +
		`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"x"}}` + "\n" +
		`{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}` + "\n" +
		"{\n" + `  "jsonrpc": "2.0",` + "\n}\n" + " 1 2\n" + `{"jsonrpc":"2.0","id":[1]}` + "\n" +
		`{"jsonrpc":"2.0","id":"x\n\u001b[31m","method":"` + long + `"}` + "\n" + "[]\n" +
		`{"jsonrpc":"2.0","id":9,"result":{}}` + "\n" + strings.Repeat(" ", 2<<20) + "\n" +
		`{"jsonrpc":"2.0","id":10,"method":"subscriptions/listen","params":{"_meta":` + modernMeta + `}}` + "\n"
	out, stderr := runBinary(t, []byte(in), "-v", "-max-message-bytes", "2000000")
	checkLogShapes(t, stderr)
	if plain, _ := runBinary(t, []byte(in), "-max-message-bytes", "2000000"); !bytes.Equal(out, plain) {
		t.Errorf("stdout with -v differs:\n%s", firstDiff([]byte(in), out, plain))
	}
	lines := strings.Split(strings.TrimSuffix(string(stderr), "\n"), "\n")
	notJSON := "mcp: - id=null error -32700: the line is not JSON: "
	want := []string{ // in request order
		`^mcp: "tools/call" id=1 [0-9.]+[µmn]?s ok$`, ` id=2 .* tool error$`, ` id=3 .* error -32601$`,
		` error -32602: params.arguments is a string, not an object$`, ` error -32602: params.name is missing$`,
		` error -32602: params is an array, not an object$`, ` error -32602: params.cursor is a string, not absent: mcp issues no cursors$`,
		` error -32602: _meta.io.modelcontextprotocol/clientCapabilities is missing$`,
		`^mcp: - id=null error -32700: the line ends inside a JSON value \(each message must be on one line\)$`,
		`^` + regexp.QuoteMeta(notJSON+`":" at byte 11`) + `$`, `^` + regexp.QuoteMeta(notJSON+`"}" at byte 0`) + `$`,
		`^` + regexp.QuoteMeta(notJSON+`"2" at byte 3`) + `$`,
		`^mcp: - id=null error -32600$`,
		`^mcp: "m{100}"\.\.\.1048576 bytes id="x\\n\\x1b\[31m" .* error -32601$`, `^mcp: - id=null error -32600$`,
		`^mcp: - id=9 a response to no question waiting: ignored$`, `^mcp: - line over 2000000 bytes skipped$`,
		`^mcp: "subscriptions/listen" id=10 [0-9.]+[µmn]?s open$`,
		`^mcp: end of input: stopping$`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d log lines, want %d:\n%s", len(lines), len(want), clip(string(stderr), 3000))
	}
	// A line is made once the outcome is known: a call that outlasts a
	// tick is logged when it returns, after lines read later. The last
	// says why mcp stopped.
	if !regexp.MustCompile(want[len(want)-1]).MatchString(lines[len(lines)-1]) {
		t.Errorf("last log line %q, want it to match %s", lines[len(lines)-1], want[len(want)-1])
	}
	for _, line := range lines[:len(lines)-1] {
		i := slices.IndexFunc(want, func(w string) bool { return w != "" && regexp.MustCompile(w).MatchString(line) })
		if i < 0 {
			t.Errorf("log line %q matches none of the lines expected, or one already matched", clip(line, 300))
			continue
		}
		want[i] = ""
	}
}

// TestLogNeverBlocks: with -v and a stderr nobody reads while the session
// runs (a full pipe), every request is answered at full speed; lines that
// do not fit are dropped and counted, and once stderr is read the last
// line says why mcp stopped. A stderr closed for good costs only the log.
func TestLogNeverBlocks(t *testing.T) {
	t.Parallel()
	for _, closed := range []bool{false, true} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		if closed {
			r.Close()
		}
		cmd := mcpCommand("-v")
		cmd.Stderr = w
		c := startCommand(t, cmd)
		w.Close()
		const n = 20000 // far more log than a pipe holds
		go func() {
			in := bufio.NewWriter(c.stdin)
			for i := range n {
				fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
			}
			in.Flush()
			c.stdin.Close()
		}()
		for i := range n { // stderr is not read meanwhile
			if line, err := c.stdout.ReadString('\n'); err != nil || line != fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", i) {
				t.Fatalf("stderr closed %v: reply %d: %q, %v", closed, i, line, err)
			}
		}
		var log []byte
		if !closed {
			log, _ = io.ReadAll(r) // while mcp waits for stderr at exit
			r.Close()
		}
		if out, st := c.finish(t); len(out) > 0 || st.ExitCode() != 0 {
			t.Errorf("stderr closed %v: exit %v, more output %q", closed, st, out)
		}
		if closed {
			continue
		}
		if written, dropped := checkLog(t, log, "mcp: end of input: stopping"); dropped == 0 || written+dropped != n {
			t.Errorf("%d log lines written and %d counted as dropped, want some dropped and %d in all", written, dropped, n)
		}
	}
}

// TestLogReadSlowly: with -v, 20,000 pings and a stderr read slowly from
// the start (1 KiB every 20 ms), lines are still queued when the input
// ends and the logger hurries; yet every line is either written or
// counted in a "log lines dropped" line, and the reason for stopping
// comes last.
func TestLogReadSlowly(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := mcpCommand("-v")
	cmd.Stderr = w
	c := startCommand(t, cmd)
	w.Close()
	logged := make(chan []byte)
	go func() {
		var log []byte
		buf := make([]byte, 1<<10)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for range tick.C {
			r.SetReadDeadline(time.Now().Add(hangAfter))
			n, err := r.Read(buf)
			if log = append(log, buf[:n]...); err != nil {
				break
			}
		}
		logged <- log
	}()
	const n = 20000
	go func() {
		in := bufio.NewWriter(c.stdin)
		for i := range n {
			fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
		}
		in.Flush()
		c.stdin.Close()
	}()
	for i := range n {
		if line, err := c.stdout.ReadString('\n'); err != nil || line != fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", i) {
			t.Fatalf("reply %d: %q, %v", i, line, err)
		}
	}
	if out, st := c.finish(t); len(out) > 0 || st.ExitCode() != 0 {
		t.Errorf("exit %v, more output %q", st, out)
	}
	if written, dropped := checkLog(t, <-logged, "mcp: end of input: stopping"); written+dropped != n {
		t.Errorf("%d log lines written and %d counted as dropped, want %d in all", written, dropped, n)
	}
}

// ==== Tools that take time ====

// slowCall is a tools/call of a slowCatalogue tool, with a progress token
// if token is not "".
func slowCall(id, name, args, token string) string {
	meta := ""
	if token != "" {
		meta = `,"_meta":{"progressToken":` + token + `}`
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + meta + `}}` + "\n"
}

// cancel is a notifications/cancelled of the request id.
func cancel(id string) string {
	return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"test"}}` + "\n"
}

// progressLine is a progress notification for token.
func progressLine(token, rest string) string {
	return `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + token + `,"progress":` + rest + `}}` + "\n"
}

// TestSlowTools, through the test binary as mcp with slowCatalogue: a
// tool waiting for its context is cancelled by notifications/cancelled
// (no reply, ever; the next request answered at once), by SIGTERM (its
// reply, exit 0) and by its time limit (an isError text); a request
// cancelled before its turn is dropped; a cancellation of an answered
// request is ignored; progress arrives while the tool runs, in order,
// before its reply, and none without a token; what a tool and its child
// print goes to stderr. Each step waits for a line, never for a time.
func TestSlowTools(t *testing.T) {
	t.Parallel()
	start := func(t *testing.T, args ...string) *child {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), catalogueEnv+"=slow")
		return startCommand(t, cmd)
	}
	send := func(c *child, lines ...string) {
		for _, l := range lines {
			io.WriteString(c.stdin, l)
		}
	}
	expect := func(t *testing.T, c *child, want string) {
		t.Helper()
		if got, err := c.stdout.ReadString('\n'); got != want {
			t.Fatalf("got %q (%v), want %q", got, err, want)
		}
	}
	end := func(t *testing.T, c *child, wantCode int) {
		t.Helper()
		c.stdin.Close()
		if out, st := c.finish(t); len(out) > 0 || st.ExitCode() != wantCode {
			t.Errorf("exit %v, then %q; want exit %d and nothing", st, out, wantCode)
		}
	}
	started := progressLine(`"b"`, `1,"message":"started"}`)
	started = strings.Replace(started, "}}\n", "}\n", 1)
	t.Run("cancelled by the client", func(t *testing.T) {
		c := start(t)
		send(c, slowCall("1", "block", "{}", `"b"`))
		expect(t, c, started)
		send(c, cancel("1.0"), pingLine+"\n") // 1.0 is the id 1
		expect(t, c, pingReply)
		end(t, c, 0)
	})
	t.Run("cancelled before its turn", func(t *testing.T) {
		if n, args := readmeFigure(t, `up to (\d+) at once`), readmeFigure(t, `at once \(and (\d+) MiB of`); n != maxCalls || args != maxArgs>>20 {
			t.Errorf("the README says %v calls and %v MiB run at once; maxCalls is %d, maxArgs %d MiB", n, args, maxCalls, maxArgs>>20)
		}
		c := start(t, "-v")
		for i := range maxCalls { // every place to run taken
			send(c, slowCall(strconv.Itoa(i), "block", "{}", `"b"`))
			expect(t, c, started)
		}
		send(c, echoCall(`"two"`, `"x"`)+"\n", cancel(`"two"`), echoCall("2", `"kept"`)+"\n")
		for i := range maxCalls {
			send(c, cancel(strconv.Itoa(i)))
		}
		send(c, pingLine+"\n")
		expect(t, c, textReply("2", "kept")) // "two" dropped; the id 2 is another
		expect(t, c, pingReply)
		send(c, cancel("2"), pingLine+"\n") // answered already: ignored
		expect(t, c, pingReply)
		end(t, c, 0)
		if log := c.stderr.String(); !strings.Contains(log, `mcp: "tools/call" id="two" cancelled before its turn`+"\n") ||
			!regexp.MustCompile(`mcp: "tools/call" id=1 \S+ cancelled\n`).MatchString(log) {
			t.Errorf("the log does not say which calls were cancelled, and when:\n%s", log)
		}
	})
	t.Run("signal", func(t *testing.T) {
		c := start(t)
		send(c, slowCall("1", "block", "{}", `"b"`))
		expect(t, c, started)
		c.cmd.Process.Signal(syscall.SIGTERM)
		expect(t, c, toolError("1", "stopped by a signal"))
		if out, st := c.finish(t); len(out) > 0 || st.ExitCode() != 0 {
			t.Errorf("exit %v, then %q; want exit 0", st, out)
		}
	})
	t.Run("time limit", func(t *testing.T) {
		c := start(t)
		send(c, slowCall("1", "limited", "{}", ""))
		expect(t, c, toolError("1", "tool limited did not finish within its time limit of 50ms"))
		end(t, c, 0)
	})
	t.Run("progress", func(t *testing.T) {
		c := start(t)
		send(c, slowCall("1", "steps", `{"wait":true}`, "7"))
		expect(t, c, progressLine("7", `1,"total":3`))
		expect(t, c, progressLine("7", `2,"total":3,"message":"halfway"`))
		expect(t, c, progressLine("7", `3`))
		send(c, cancel("1"), slowCall("2", "steps", "{}", ""), slowCall("3", "steps", "{}", `"t"`))
		// Progress goes out when made: before 3's reply, and before or after 2's.
		var got []string
		for len(got) == 0 || got[len(got)-1] != textReply("3", "stepped") {
			line, err := c.stdout.ReadString('\n')
			if err != nil {
				t.Fatalf("%q, then %v", got, err)
			}
			got = append(got, line)
		}
		i := slices.Index(got, textReply("2", "stepped")) // no token: no progress
		if got = slices.Delete(got, max(i, 0), i+1); i < 0 || !slices.Equal(got, []string{progressLine(`"t"`, `1,"total":3`),
			progressLine(`"t"`, `2,"total":3,"message":"halfway"`), progressLine(`"t"`, `3`), textReply("3", "stepped")}) {
			t.Errorf("got %q, and 2's reply at %d", got, i)
		}
		end(t, c, 0)
	})
	t.Run("printing", func(t *testing.T) {
		c := start(t)
		send(c, slowCall("1", "print", "{}", ""))
		expect(t, c, textReply("1", "printed"))
		end(t, c, 0)
		if got := c.stderr.String(); got != "a tool's line\na child line\n" {
			t.Errorf("stderr %q, want the tool's line and the child's", got)
		}
	})
	t.Run("end of input while a tool runs", func(t *testing.T) {
		c := start(t)
		send(c, slowCall("1", "steps", "{}", ""))
		c.stdin.Close()
		expect(t, c, textReply("1", "stepped"))
		end(t, c, 0)
	})
	t.Run("a resource read cancelled", func(t *testing.T) {
		c := start(t)
		send(c, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"slow://wait"}}`+"\n", cancel("1"), pingLine+"\n")
		expect(t, c, pingReply)
		end(t, c, 0)
	})
	t.Run("signal ends a subscription", func(t *testing.T) {
		c := start(t)
		listen := `{"jsonrpc":"2.0","id":"s","method":"subscriptions/listen","params":{"_meta":` + modernMeta + `}}` + "\n"
		send(c, listen)
		expect(t, c, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"s"},"notifications":{}}}`+"\n")
		send(c, slowCall("1", "block", "{}", `"b"`))
		expect(t, c, started)
		send(c, cancel("1"), pingLine+"\n") // read while the tool ran: mcp then waits for the next line
		expect(t, c, pingReply)
		c.cmd.Process.Signal(syscall.SIGTERM)
		expect(t, c, `{"jsonrpc":"2.0","id":"s","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"s"}}}`+"\n")
		if out, st := c.finish(t); len(out) > 0 || st.ExitCode() != 0 {
			t.Errorf("exit %v, then %q; want exit 0", st, out)
		}
	})
}

// TestServeLoop, through the test binary as mcp with loopCatalogue: calls
// run side by side (eight calls that each wait for all eight); a batch,
// and a call's arguments, own their bytes whatever is read after them; a
// cancellation inside a batch reaches the call running; progress JSON
// cannot write is not sent; a tool's result takes what 16 goroutines add;
// a tool reads nothing from standard input; a second signal ends mcp at
// once while a tool's progress blocks standard output.
func TestServeLoop(t *testing.T) {
	t.Parallel()
	start := func(t *testing.T) (*child, *bufio.Reader) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), catalogueEnv+"=loop")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		return startCommand(t, cmd), bufio.NewReader(deadlineReader{stderr.(*os.File)})
	}
	await := func(t *testing.T, stderr *bufio.Reader, want string) { // a line the tool wrote on stderr
		t.Helper()
		if line, err := stderr.ReadString('\n'); line != want+"\n" {
			t.Fatalf("stderr %q (%v), want %q", line, err, want)
		}
	}
	finish := func(t *testing.T, c *child, want string) {
		t.Helper()
		c.stdin.Close()
		if out, st := c.finish(t); string(out) != want || st.ExitCode() != 0 {
			t.Errorf("exit %v, replies\n%s\nwant\n%s", st, clip(string(out), 2000), clip(want, 2000))
		}
	}
	t.Run("side by side", func(t *testing.T) {
		c, _ := start(t)
		var want strings.Builder
		for i := range 8 {
			io.WriteString(c.stdin, slowCall(strconv.Itoa(i), "meet", `{"n":8}`, ""))
			want.WriteString(textReply(strconv.Itoa(i), "met"))
		}
		finish(t, c, want.String())
	})
	t.Run("a batch owns its bytes", func(t *testing.T) {
		c, stderr := start(t)
		big := "hello" + largeText(200<<10)
		io.WriteString(c.stdin, "["+strings.TrimSuffix(slowCall("1", "announce", `{"text":"a"}`, ""), "\n")+","+echoCall("2", `"`+big+`"`)+","+echoCall("3", `"world"`)+"]\n")
		await(t, stderr, "started a")
		io.WriteString(c.stdin, pingLine+"\n"+cancel("1"))
		finish(t, c, "["+strings.TrimSuffix(textReply("2", big), "\n")+","+strings.TrimSuffix(textReply("3", "world"), "\n")+"]\n"+pingReply)
	})
	t.Run("arguments outlive the call", func(t *testing.T) {
		c, _ := start(t)
		big := largeText(3 << 20)
		check := strings.Replace(slowCall("3", "check", "{}", ""), "{}", `{},"_meta":{"pad":"`+strings.Repeat("x", 200)+`"}`, 1) // over later's bytes
		io.WriteString(c.stdin, slowCall("1", "later", `{"text":"keep this text"}`, "")+echoCall("2", `"`+big+`"`)+"\n"+check)
		finish(t, c, textReply("1", "later")+textReply("2", big)+textReply("3", "keep this text"))
	})
	t.Run("a cancellation in a batch", func(t *testing.T) {
		c, stderr := start(t)
		io.WriteString(c.stdin, "["+strings.TrimSuffix(slowCall("1", "announce", `{"text":"b"}`, ""), "\n")+","+strings.TrimSuffix(cancel("1"), "\n")+","+echoCall("2", `"x"`)+"]\n")
		await(t, stderr, "started b")
		await(t, stderr, "ended: cancelled by the client")
		finish(t, c, "["+strings.TrimSuffix(textReply("2", "x"), "\n")+"]\n")
	})
	t.Run("progress while a batch waits", func(t *testing.T) {
		c, stderr := start(t)
		io.WriteString(c.stdin, "["+strings.TrimSuffix(slowCall("1", "announce", `{"text":"c"}`, ""), "\n")+"]\n")
		await(t, stderr, "started c")
		io.WriteString(c.stdin, slowCall("2", "nan", "{}", `"p"`))
		if line, err := c.stdout.ReadString('\n'); line != progressLine(`"p"`, `2,"message":"sent"`) { // before the batch's reply
			t.Fatalf("got %q (%v), want the progress", line, err)
		}
		io.WriteString(c.stdin, cancel("1"))
		finish(t, c, progressLine(`"p"`, "3")+textReply("2", "reported"))
	})
	t.Run("progress JSON can write", func(t *testing.T) {
		c, _ := start(t)
		io.WriteString(c.stdin, slowCall("1", "nan", "{}", "7"))
		finish(t, c, progressLine("7", `2,"message":"sent"`)+progressLine("7", "3")+textReply("1", "reported"))
	})
	t.Run("a result from many goroutines", func(t *testing.T) {
		c, _ := start(t)
		io.WriteString(c.stdin, slowCall("1", "many", "{}", ""))
		want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"n\":16000}"}` +
			strings.Repeat(`,{"type":"image","data":"AQ==","mimeType":"image/png"}`, 16000) + `],"structuredContent":{"n":16000},"isError":false}}` + "\n"
		finish(t, c, want)
	})
	t.Run("standard input is the protocol's", func(t *testing.T) {
		c, stderr := start(t)
		io.WriteString(c.stdin, slowCall("1", "stdin", "{}", ""))
		await(t, stderr, "reading")
		io.WriteString(c.stdin, pingLine+"\n")
		finish(t, c, textReply("1", "0 bytes")+pingReply)
	})
	t.Run("one context per call", func(t *testing.T) {
		c, stderr := start(t)
		io.WriteString(c.stdin, slowCall("1", "watch", `{"name":"a"}`, ""))
		await(t, stderr, "a: the tool returned") // at once: its own, not shared
		io.WriteString(c.stdin, slowCall("2", "watch", `{"name":"b","hold":true}`, "")+slowCall("3", "watch", `{"name":"c","hold":true}`, ""))
		io.WriteString(c.stdin, cancel("3"))
		await(t, stderr, "c: cancelled by the client") // c alone: b holds on
		io.WriteString(c.stdin, slowCall("4", "free", "{}", ""))
		await(t, stderr, "b: the tool returned")
		finish(t, c, textReply("1", "watched")+textReply("2", "watched")+textReply("4", "freed"))
	})
	t.Run("a second signal while progress blocks output", func(t *testing.T) {
		c, stderr := start(t)
		io.WriteString(c.stdin, slowCall("1", "flood", "{}", `"f"`))
		await(t, stderr, "flooding") // and stdout is never read
		c.cmd.Process.Signal(syscall.SIGINT)
		c.cmd.Process.Signal(syscall.SIGTERM)
		timer := time.AfterFunc(hangAfter, func() { c.cmd.Process.Kill() })
		defer timer.Stop()
		io.Copy(io.Discard, stderr)
		// Once output blocks, the first cannot finish and the second ends mcp;
		// a first that comes before the tool writes finishes, exit 0.
		if c.cmd.Wait(); !slices.Contains([]int{0, 128 + int(syscall.SIGINT), 128 + int(syscall.SIGTERM)}, c.cmd.ProcessState.ExitCode()) {
			t.Errorf("exit %v, want 128+SIGINT or 128+SIGTERM (or 0), not a hang", c.cmd.ProcessState)
		}
	})
}

// TestAsk: tools that ask the person (askCatalogue), through the test
// binary as mcp, in both eras, reply as testdata/ask/NAME.out says, which
// node computed from NAME.in (ask.mjs). Each line is sent once mcp has
// written what NAME.steps (node's too) says it owes by then: a client
// that answers a question once it is asked, and that waits for the
// replies before it sends what races them (a question that any reply
// still owed could come before). Then NAME_eof's input ends, and
// NAME_signal gets SIGTERM; every other input ends once every reply is
// in. With -v, each question is logged, and each response to none
// waiting.
func TestAsk(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/ask/*.in")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/ask/*.in: %v", err)
	}
	question := regexp.MustCompile(`(?m)^\{"jsonrpc":"2.0","id":"(ask-\d+)","method":"elicitation/create"`)
	for _, file := range files {
		name := strings.TrimSuffix(file, ".in")
		t.Run(filepath.Base(name), func(t *testing.T) {
			t.Parallel()
			in, want := readFixture(t, name)
			steps, err := os.ReadFile(name + ".steps")
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-v")
			cmd.Env = append(os.Environ(), catalogueEnv+"=ask", "GORACE=atexit_sleep_ms=0")
			c := startCommand(t, cmd)
			var got bytes.Buffer
			asked, lines := map[string]bool{}, 0
			readUntil := func(done func() bool) {
				for !done() {
					line, err := c.stdout.ReadString('\n')
					if err != nil {
						t.Fatalf("after\n%s\nreading: %v", got.String(), err)
					}
					if m := question.FindStringSubmatch(line); m != nil {
						asked[m[1]] = true
					}
					got.WriteString(line)
					lines++
				}
			}
			for i, line := range strings.Split(strings.TrimSuffix(string(in), "\n"), "\n") {
				io.WriteString(c.stdin, line+"\n")
				n, _ := strconv.Atoi(strings.Fields(string(steps))[i])
				readUntil(func() bool { return lines >= n })
			}
			switch all := len(question.FindAllIndex(want, -1)); {
			case strings.HasSuffix(name, "_eof"):
				readUntil(func() bool { return len(asked) == all })
			case strings.HasSuffix(name, "_signal"): // which ends the question before the input's end can
				readUntil(func() bool { return len(asked) == all })
				c.cmd.Process.Signal(syscall.SIGTERM)
				fallthrough
			default:
				readUntil(func() bool { return got.Len() >= len(want) })
			}
			c.stdin.Close()
			rest, st := c.finish(t)
			if got.Write(rest); got.String() != string(want) || st.ExitCode() != 0 {
				t.Errorf("exit %v\n%s", st, firstDiff(in, got.Bytes(), want))
			}
			checkLogShapes(t, c.stderr.Bytes())
			logged := regexp.MustCompile(`(?m)^mcp: asked id="(ask-\d+)" [0-9.]+[µmn]?s (.*)$`).FindAllStringSubmatch(c.stderr.String(), -1)
			if len(logged) != len(asked) || strings.HasSuffix(name, "/legacy") && (logged[0][2] != "answered" || !strings.HasPrefix(logged[9][2], errCannotAsk.Error()) ||
				!strings.Contains(c.stderr.String(), "\nmcp: - id=\"ask-99\" a response to no question waiting: ignored\n")) {
				t.Errorf("%d questions logged, want %d:\n%s", len(logged), len(asked), clip(c.stderr.String(), 2000))
			}
		})
	}
}

// TestStateKey: a requestState that one mcp made is taken by another
// with the same MCP_STATE_KEY, as by itself, and refused by one with
// another key, or with none (a key made at start); a key that is not at
// least 64 hex digits stops mcp at start, with status 2, saying why.
func TestStateKey(t *testing.T) {
	t.Parallel()
	first := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"twice","arguments":{"what":"A"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}` + "\n"
	run := func(key, input string) (string, string, int) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), catalogueEnv+"=ask", "MCP_STATE_KEY="+key)
		cmd.Stdin = strings.NewReader(input)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.Run()
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}
	key := strings.Repeat("5a", 32)
	out, _, _ := run(key, first)
	m := regexp.MustCompile(`"requestState":"([^"]+)"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no requestState in %q", out)
	}
	retry := strings.Replace(first, `"_meta"`, `"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ann"}}},"requestState":"`+m[1]+`","_meta"`, 1)
	for _, tc := range []struct{ key, want string }{
		{key, `"message":"Greet Ann with A?"`},
		{strings.Repeat("5a", 31) + "5b", `"message":"Invalid requestState: not one mcp made, or made with another key"`},
		{"", `"message":"Invalid requestState: not one mcp made, or made with another key"`},
	} {
		if out, _, _ := run(tc.key, retry); !strings.Contains(out, tc.want) {
			t.Errorf("with the key %q, the retry got %q, want %s", tc.key, out, tc.want)
		}
	}
	for _, bad := range []string{strings.Repeat("5a", 31) + "5", strings.Repeat("5a", 31), strings.Repeat("zz", 32)} {
		if out, stderr, code := run(bad, first); code != 2 || out != "" || !strings.Contains(stderr, "MCP_STATE_KEY must be at least 64 hex digits") {
			t.Errorf("MCP_STATE_KEY=%s: status %d, stdout %q, stderr %q; want status 2 and why", bad, code, out, stderr)
		}
	}
}

// modernMeta is the _meta of a 2026-07-28 request.
const modernMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// TestHeldBound: while calls never return, mcp reads on, and holds no
// more than the README says: past 16 MiB owed behind them, it refuses a
// request at once (Server busy, out of turn), so that peak memory stays
// under the README's bound for the longest line, whatever comes: lines
// of 8 MiB, short pings, pings with long ids, batches of notifications
// alone (which owe nothing), lines over the limit, and, behind 16 calls,
// calls waiting their turn that the client cancels, by the hundred
// thousand. Every request is answered once, but those cancelled, and the
// calls cancelled let the rest go, in order.
func TestHeldBound(t *testing.T) {
	if raceEnabled() || testing.Short() {
		t.Skip("memory bounds: for the binary without the race detector, and not with -short")
	}
	t.Parallel()
	const mib = 1 << 20
	times, plus := readmeFigure(t, `under (\d+)x the longest line \+\s+\d+ MiB`), readmeFigure(t, `under \d+x the longest line \+\s+(\d+) MiB`)*mib
	if held := readmeFigure(t, `past (\d+) MiB of replies owed`); held != maxHeld>>20 {
		t.Errorf("the README says mcp refuses past %v MiB owed; maxHeld is %d MiB", held, maxHeld>>20)
	}
	longID := `{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 1000) + `","method":"ping"}` + "\n"
	over := echoCall("2", `"`+largeText(4*mib)+`"`) + "\n"
	for _, tc := range []struct {
		name    string
		blocks  int    // calls that never return, sent first
		line    string // then sent, times
		times   int
		longest int  // the longest line served
		busy    bool // some request is refused
		args    []string
	}{
		{"lines of 8 MiB", 1, echoCall("2", `"`+largeText(8*mib)+`"`) + "\n", 12, 8 * mib, true, nil},
		{"pings", 1, `{"jsonrpc":"2.0","id":12345,"method":"ping"}` + "\n", 700000, 0, true, nil},
		{"pings with long ids", 1, longID, 40000, len(longID), true, nil},
		{"batches of notifications", 1, `[{"jsonrpc":"2.0","method":""}]` + "\n", 1000000, 0, false, nil},
		{"lines over the limit", 1, over, 24, mib, false, []string{"-max-message-bytes", strconv.Itoa(mib)}},
		{"calls cancelled waiting", maxCalls, echoCall(`"w"`, `"x"`) + "\n" + cancel(`"w"`), 200000, 0, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], tc.args...)
			cmd.Env = append(os.Environ(), catalogueEnv+"=slow")
			c := startCommand(t, cmd)
			for i := range tc.blocks {
				io.WriteString(c.stdin, slowCall(strconv.Itoa(i), "block", "{}", `"b"`))
				c.readUntil(t, progressLine(`"b"`, `1,"message":"started"`))
			}
			replies := make(chan string)
			go func() { out, _ := io.ReadAll(c.stdout); replies <- string(out) }()
			chunk := strings.Repeat(tc.line, max(1, 8*mib/len(tc.line)))
			for sent := 0; sent < tc.times; sent += strings.Count(chunk, tc.line) {
				if _, err := io.WriteString(c.stdin, chunk); err != nil {
					t.Fatal(err)
				}
			}
			io.WriteString(c.stdin, pingLine+"\n") // read once all before it is
			peak, bound := c.peakRSS(t), int(times*float64(max(tc.longest, len(tc.line)))+plus)
			for i := range tc.blocks {
				io.WriteString(c.stdin, cancel(strconv.Itoa(i)))
			}
			c.stdin.Close()
			out := <-replies
			if _, st := c.finish(t); st.ExitCode() != 0 || strings.Count(out, `"id":"after"`) != 1 {
				t.Errorf("exit %v, %d replies to the last ping", st, strings.Count(out, `"id":"after"`))
			}
			busy := strings.Count(out, `"code":-32010,"message":"Server busy"`)
			t.Logf("%d bytes a line: peak RSS %.0f MiB, bound %.0f MiB; %d requests refused", len(tc.line), float64(peak)/mib, float64(bound)/mib, busy)
			if peak > bound || (busy > 0) != tc.busy {
				t.Errorf("peak RSS %.0f MiB, want under %.0f; %d refused, want some: %v", float64(peak)/mib, float64(bound)/mib, busy, tc.busy)
			}
		})
	}
}

// ==== The command ====

// TestFlags: -h lists every flag, on standard error; a stray argument, an
// unknown flag or a limit that is not a number of at least 1 is a usage
// error: status 2, why, and the usage.
func TestFlags(t *testing.T) {
	_, help := runReal(t, nil, "-h")
	for _, want := range []string{"-max-message-bytes N\n", "-v\t", "-version\n"} {
		if !strings.Contains(string(help), "  "+want) {
			t.Errorf("-h does not list %q:\n%s", want, help)
		}
	}
	for _, args := range [][]string{{"stray"}, {"-max-message-bytes", "0"}, {"-max-message-bytes", "x"}, {"-nope"}} {
		cmd := exec.Command(mcpPath(t), args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		why, _, _ := strings.Cut(stderr.String(), "\n")
		if cmd.ProcessState.ExitCode() != 2 || strings.HasPrefix(why, "Usage") || !strings.Contains(stderr.String(), "\nUsage of ") {
			t.Errorf("%v: exit %v, stderr %q; want 2, why, then the usage", args, cmd.ProcessState, clip(stderr.String(), 200))
		}
	}
	if out, _ := runReal(t, []byte(`{"jsonrpc":"2.0"}`+"\n"), "-max-message-bytes", "10"); string(out) != tooLongReply(10) {
		t.Errorf("-max-message-bytes 10: %q, want %q", out, tooLongReply(10))
	}
}

// TestVersionAgrees: -version, initialize and server/discover name the
// same release, and -version names the commit the Go toolchain recorded
// of the checkout, or "devel" for a build that recorded none.
func TestVersionAgrees(t *testing.T) {
	out, _ := runReal(t, nil, "-version")
	var version, commit string
	if n, _ := fmt.Sscanf(string(out), "mcp %s (%s", &version, &commit); n != 2 || version != serverVersion || !strings.HasSuffix(string(out), ")\n") {
		t.Fatalf("-version printed %q, want \"mcp %s (COMMIT)\"", out, serverVersion)
	}
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	replies, _ := runReal(t, []byte(in))
	if info := `{"name":` + quote(serverName) + `,"version":"` + version + `"}`; strings.Count(string(replies), info) != 2 {
		t.Errorf("server info %s not in both replies:\n%s", info, replies)
	}
	files, _ := filepath.Glob("testdata/*.out")
	for _, f := range append(files, "README.md") {
		b, _ := os.ReadFile(f)
		for _, m := range regexp.MustCompile(regexp.QuoteMeta(quote(serverName))+`,"version":"([^"]*)"|mcp (\d+\.\d+\.\d+) \(`).FindAllSubmatch(b, -1) {
			if v := string(m[1]) + string(m[2]); v != serverVersion {
				t.Errorf("%s says version %s; serverVersion in handlers.go is %s", f, v, serverVersion)
			}
		}
	}
	head, err := exec.Command("git", "rev-parse", "--short=7", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: the commit in -version is not checked (%v)", err)
	}
	want := strings.TrimSpace(string(head))
	if status, _ := exec.Command("git", "status", "--porcelain").Output(); len(status) > 0 {
		want += "-dirty"
	}
	if string(out) != "mcp "+serverVersion+" ("+want+")\n" { // mcpPath builds with -buildvcs=auto
		t.Errorf("-version printed %q; want commit %s", out, want)
	}
	bin := filepath.Join(t.TempDir(), "mcp")
	if b, err := exec.Command("go", "build", "-buildvcs=false", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -buildvcs=false: %v\n%s", err, b)
	}
	if b, err := exec.Command(bin, "-version").Output(); err != nil || string(b) != "mcp "+serverVersion+" (devel)\n" {
		t.Errorf("built with -buildvcs=false, -version printed %q, %v; want commit devel", b, err)
	}
}

// TestBuildsForEveryRelease: the package builds for each system make dist
// releases for, not only this one.
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

// TestREADME keeps the README true: every test, fuzz target and
// benchmark it cites exists, as does every make target, flag and fixture
// it names; its method table lists the methods served; it names no commit
// of this repository but in -version's sample; and its recipe for adding
// a tool, built into a copy of the package, answers as node computed.
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
	_, help := runReal(t, nil, "-h")
	for _, m := range regexp.MustCompile("`(?:mcp |\\./mcp )?(-[a-z][a-z-]*)").FindAllStringSubmatch(text, -1) {
		if ours := !slices.Contains([]string{"-h", "-race"}, m[1]); ours && !regexp.MustCompile(`(?m)^  `+m[1]+`\b`).Match(help) {
			t.Errorf("README names the flag %s, which mcp -h does not list", m[1])
		}
	}
	for _, m := range regexp.MustCompile("golden `([a-z0-9_]+)(\\*?)`|testdata/([a-z0-9_]+)\\.in").FindAllStringSubmatch(text, -1) {
		if files, _ := filepath.Glob("testdata/" + m[1] + m[3] + m[2] + ".in"); len(files) == 0 {
			t.Errorf("README names the fixture %s%s%s, which testdata lacks", m[1], m[3], m[2])
		}
	}
	served := text[strings.Index(text, "## What it serves"):strings.Index(text, "| tool |")]
	var table, names []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z/]+)` \\|").FindAllStringSubmatch(served, -1) {
		table = append(table, m[1])
	}
	for _, m := range methods {
		names = append(names, m.name)
	}
	if slices.Sort(table); !slices.Equal(table, slices.Sorted(slices.Values(names))) {
		t.Errorf("README's method table lists %v; mcp serves %v", table, names)
	}
	for _, m := range regexp.MustCompile(`(mcp \d+\.\d+\.\d+ \()?\b([0-9a-f]{7,40})\b`).FindAllStringSubmatch(text, -1) {
		if out, err := exec.Command("git", "cat-file", "-t", m[2]).Output(); m[1] == "" && err == nil && strings.TrimSpace(string(out)) == "commit" {
			t.Errorf("README names %s, a commit of this repository: history belongs in commit messages", m[2])
		}
	}
	checkRecipe(t, text[strings.Index(text, "## Adding a tool"):], 0, "testdata/recipe")
	checkRecipe(t, text[strings.Index(text, "## Adding a tool"):], 2, "testdata/recipe/ask")
}

// readmeRecipe returns one of the README's recipes for adding a tool,
// the first (0, greet) or the second (2, delete, which asks), from the
// Go block of that index: the catalogue entry, and the tool's name; from
// the next block, the function, or "" if the package declares it already
// (the user has pasted it). recipeImports has what the function needs.
func readmeRecipe(t *testing.T, first int) (entry, name, fn string) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme[bytes.Index(readme, []byte("## Adding a tool")):])
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(section, first+2)
	if len(blocks) != first+2 {
		t.Fatalf("the recipes have %d Go blocks, want %d", len(blocks), first+2)
	}
	entry, fn = strings.TrimSuffix(strings.TrimSpace(blocks[first][1]), ","), blocks[first+1][1]
	f, err := parser.ParseFile(token.NewFileSet(), "", "package main\n"+fn, 0)
	if err != nil {
		t.Fatalf("the recipe's function: %v", err)
	}
	if declares(t, f.Decls[0].(*ast.FuncDecl).Name.Name) {
		fn = ""
	}
	return entry, regexp.MustCompile(`name: "([^"]+)"`).FindStringSubmatch(entry)[1], fn
}

// checkRecipe runs the README's recipe that starts at Go block first
// (see readmeRecipe) in the user's copy (see userCopy), whose requestState
// has TestMain's key and clock. It pipes
// each dir/NAME.in through the binary and compares its stdout with
// NAME.out, which node computed (testdata/recipe/greet.mjs, and
// testdata/ask/ask.mjs for testdata/recipe/ask), and checks that the
// reply the README shows, if any, is the first there.
func checkRecipe(t *testing.T, section string, first int, dir string) {
	_, name, _ := readmeRecipe(t, first)
	bin := filepath.Join(userCopy(t), "mcp")
	ins, _ := filepath.Glob(dir + "/*.in")
	if len(ins) == 0 {
		t.Fatalf("no %s/*.in", dir)
	}
	for _, in := range ins {
		input, _ := os.ReadFile(in)
		want, err := os.ReadFile(strings.TrimSuffix(in, ".in") + ".out")
		if err != nil {
			t.Fatal(err)
		}
		project := t.TempDir() // the folder the delete recipe deletes in, as PROJECT_DIR
		os.Mkdir(filepath.Join(project, "notes"), 0o755)
		for _, f := range []string{"notes/old.md", "draft.txt", "keep.txt"} {
			os.WriteFile(filepath.Join(project, f), nil, 0o644)
		}
		cmd := exec.Command(bin)
		cmd.Stdin, cmd.Env = bytes.NewReader(input), append(os.Environ(), "PROJECT_DIR="+project)
		if got, err := cmd.Output(); err != nil || !bytes.Equal(got, want) {
			t.Errorf("the recipe's tool on %s: %v\n%s", in, err, firstDiff(input, got, want))
		}
		for _, f := range []string{"notes/old.md", "draft.txt", "keep.txt"} { // the delete recipe's input deletes the first two
			if _, err := os.Stat(filepath.Join(project, f)); (err != nil) != (name == "delete" && f != "keep.txt") {
				t.Errorf("after %s, %s: %v", in, f, err)
			}
		}
		if first, _, _ := strings.Cut(string(want), "\n"); in == "testdata/recipe/"+name+".in" && !strings.Contains(section, "\n    "+first+"\n") {
			t.Errorf("the README does not show the reply %s", first)
		}
	}
}

// recipeImports are the imports the README's recipe and TestUserTools
// need in a copy of the package.
const recipeImports = "import (\n\t\"context\"\n\t\"fmt\"\n\t\"os\"\n\t\"slices\"\n\t\"strings\"\n\t\"time\"\n)\n\nvar _, _, _, _, _ = context.Background, fmt.Errorf, os.OpenRoot, slices.Insert[[]int], strings.Repeat\n\n"

// readmeFigure returns the number that pattern's group matches in the
// README: a bound the README states is the bound its test asserts.
func readmeFigure(t *testing.T, pattern string) float64 {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(pattern).FindSubmatch(readme)
	if m == nil {
		t.Fatalf("the README states no figure matching %s", pattern)
	}
	f, _ := strconv.ParseFloat(string(m[1]), 64)
	return f
}

// declares reports whether the package's Go files (not its tests)
// declare a top-level function named name.
func declares(t *testing.T, name string) bool {
	files, _ := filepath.Glob("*.go")
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if f.Scope.Lookup(name) != nil {
			return true
		}
	}
	return false
}

// ==== Benchmarks ====

// benchRequests returns n request lines in the mix of ../shared/bench:
// 5 in 10 add (integers, or decimals), 3 in 10 echo of about 40 bytes
// (every 16th with quotes, a backslash, non-ASCII, <&> and a tab), 2 in
// 10 resources/read.
func benchRequests(n int) []byte {
	var buf []byte
	for i := range n {
		switch i % 10 {
		case 0, 2, 4, 6, 8:
			if i%4 == 0 {
				buf = fmt.Appendf(buf, "%s\n", callLine(strconv.Itoa(i), "add", fmt.Sprintf(`{"a":%d,"b":%d}`, i, -(i%1000))))
			} else {
				buf = fmt.Appendf(buf, "%s\n", callLine(strconv.Itoa(i), "add", fmt.Sprintf(`{"a":%d.%d,"b":-%d.5}`, i%10000, i%100, i%77)))
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
// the mix an op and reports the cost a request.
func BenchmarkServe(b *testing.B) {
	const n = 10000
	input := benchRequests(n)
	r := bytes.NewReader(input)
	for b.Loop() {
		r.Reset(input)
		if err := newServer(r, io.Discard, defaultMaxMessage, demoTools).serve(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/req")
}

// BenchmarkConcurrentTools runs, each op, eight calls of a tool that
// takes 20 ms, sent together: side by side they take about 20 ms, where
// one after another they would take 160.
func BenchmarkConcurrentTools(b *testing.B) {
	catalogue := []tool{{name: "wait", description: "Wait 20 ms", run: func(ctx context.Context, _ arguments) (string, error) {
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
		}
		return "waited", nil
	}}}
	var input strings.Builder
	for i := range 8 {
		input.WriteString(callLine(strconv.Itoa(i), "wait", "{}") + "\n")
	}
	for b.Loop() {
		if err := newServer(strings.NewReader(input.String()), io.Discard, defaultMaxMessage, catalogue).serve(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse checks the bench's requests, one line at a time, and a
// 16 MiB echo, with doc.parse and with json.Valid, which reads the same
// grammar: what the hand-written check saves, that handlers.go claims.
func BenchmarkParse(b *testing.B) {
	requests := bytes.Split(bytes.TrimSuffix(benchRequests(10000), []byte("\n")), []byte("\n"))
	echo := [][]byte{[]byte(echoCall("7", `"`+largeText(16<<20)+`"`))}
	for _, input := range []struct {
		name  string
		lines [][]byte
	}{{"requests", requests}, {"echo 16 MiB", echo}} {
		b.Run(input.name+"/parse", func(b *testing.B) {
			var req request
			for b.Loop() {
				for _, l := range input.lines {
					(&doc{line: l}).parse(0, len(l), &req)
				}
			}
		})
		b.Run(input.name+"/json.Valid", func(b *testing.B) {
			for b.Loop() {
				for _, l := range input.lines {
					json.Valid(l)
				}
			}
		})
	}
}

// BenchmarkNumbers times parseNumber beside strconv.ParseFloat on the
// numbers strconv is quick with and on those it is not, which
// parseNumber's comment names.
func BenchmarkNumbers(b *testing.B) {
	for _, lit := range []string{"1.5", "5e-324", "1e309", "3.14159265358979323846264338327950288"} {
		b.Run(lit[:min(len(lit), 8)]+"/parseNumber", func(b *testing.B) {
			for b.Loop() {
				parseNumber([]byte(lit))
			}
		})
		b.Run(lit[:min(len(lit), 8)]+"/strconv", func(b *testing.B) {
			for b.Loop() {
				strconv.ParseFloat(lit, 64)
			}
		})
	}
}

// BenchmarkEcho16MiB runs one 16 MiB echo through the in-process serve
// loop an op.
func BenchmarkEcho16MiB(b *testing.B) {
	input := []byte(echoCall("7", `"`+largeText(16<<20)+`"`) + "\n")
	r := bytes.NewReader(input)
	b.SetBytes(int64(len(input)))
	for b.Loop() {
		r.Reset(input)
		if err := newServer(r, io.Discard, defaultMaxMessage, demoTools).serve(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkShapes reports, for each shape of costShapes at 1 MiB and at
// 16 MiB, the binary's CPU time per byte (of the line or of its reply,
// whichever is longer) as a multiple of an ASCII echo's of the same size,
// beyond that of a run on no input. (The shape of a tool's own text is
// left out: the binary has no "back", and echo's text takes that path.)
func BenchmarkShapes(b *testing.B) {
	for _, size := range []int{1 << 20, 16 << 20} {
		shapes := costShapes(size)
		echo := binaryCost(b, shapes[0].line, 5)
		for _, shape := range shapes {
			if strings.Contains(shape.line, `"name":"back"`) {
				continue
			}
			b.Run(fmt.Sprintf("%dMiB/%s", size>>20, shape.name), func(b *testing.B) {
				var perByte float64
				for b.Loop() {
					perByte = binaryCost(b, shape.line, 3)
				}
				b.ReportMetric(perByte, "ns/B")
				b.ReportMetric(perByte/echo, "x-echo")
			})
		}
	}
}

// binaryCost runs the binary on line, runs times (-v, to nowhere, for a
// shape that names the log), and returns the least CPU time it took beyond
// the least of as many runs on no input, per byte of the line or of its
// reply, whichever is longer.
func binaryCost(b *testing.B, line string, runs int) float64 {
	in := filepath.Join(b.TempDir(), "in")
	if err := os.WriteFile(in, []byte(line+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	var args []string
	if strings.Contains(line, `"method":"\ud800`) {
		args = []string{"-v"}
	}
	cpu := func(input string) (best time.Duration, out countingWriter) {
		best = time.Duration(math.MaxInt64)
		for range runs {
			f, err := os.Open(input)
			if err != nil {
				b.Fatal(err)
			}
			out.n = 0
			cmd := exec.Command(mcpPath(b), args...)
			cmd.Stdin, cmd.Stdout = f, &out
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			f.Close()
			best = min(best, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		}
		return best, out
	}
	idle, _ := cpu(os.DevNull)
	busy, out := cpu(in)
	return float64((busy - idle).Nanoseconds()) / float64(max(len(line), out.n))
}

// ==== The loop's corners, in process ====

// syncBuf is an output a test reads while the server writes it.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncBuf) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuf) String() string { w.mu.Lock(); defer w.mu.Unlock(); return w.b.String() }

// inProcess serves catalogue on a pipe in this process: send writes
// lines, until returns the output once it holds want (failing after
// hangAfter), and end closes the input and waits for serve.
type inProcess struct {
	s    *server
	in   *io.PipeWriter
	out  *syncBuf
	done chan error
}

func serveInProcess(catalogue []tool) *inProcess {
	pr, pw := io.Pipe()
	p := &inProcess{in: pw, out: &syncBuf{}, done: make(chan error, 1)}
	p.s = newServer(pr, p.out, defaultMaxMessage, catalogue)
	go func() { p.done <- p.s.serve() }()
	return p
}

func (p *inProcess) send(lines string) { io.WriteString(p.in, lines) }

func (p *inProcess) until(t *testing.T, want string) string {
	t.Helper()
	for deadline := time.Now().Add(hangAfter); ; time.Sleep(time.Millisecond) {
		if out := p.out.String(); strings.Contains(out, want) {
			return out
		} else if time.Now().After(deadline) {
			t.Fatalf("no %s in %s", want, clip(out, 300))
		}
	}
}

func (p *inProcess) end(t *testing.T) string {
	t.Helper()
	p.in.Close()
	select {
	case <-p.done:
	case <-time.After(hangAfter):
		t.Fatalf("serve did not return once its input ended; output %s", clip(p.out.String(), 300))
	}
	return p.out.String()
}

// TestLoopCorners: what an independent review of the loop found, each
// failing before its fix: a call that waits its turn while the loop
// holds the pen lets go of it (else nothing more is written); a
// 2026-07-28 retry that runs off the loop reads its own answer; a tool
// with a time limit still sees errReturned once it returns; a tool
// waiting to send progress to a client that reads nothing stops waiting
// when its time limit passes; a batch behind a question's call does not
// wait for room that only the question's answer, read after it, frees.
func TestLoopCorners(t *testing.T) {
	t.Run("waiting from direct", func(t *testing.T) {
		gate, started := make(chan struct{}), make(chan bool, maxCalls)
		p := serveInProcess([]tool{{name: "stuck", description: "Wait for the gate", run: func(context.Context, arguments) (string, error) {
			started <- true
			<-gate
			return "late", nil
		}}, demoTools[1]})
		var b strings.Builder
		for i := 1; i <= maxCalls; i++ {
			b.WriteString(callLine(strconv.Itoa(i), "stuck", "{}") + "\n")
		}
		p.send(b.String())
		for range maxCalls {
			<-started
		}
		b.Reset()
		for i := 1; i <= maxCalls; i++ {
			b.WriteString(cancel(strconv.Itoa(i)))
		}
		p.send(b.String() + pingLine + "\n") // written at once: the loop holds the pen
		p.until(t, `"id":"after"`)
		p.send(echoCall(`"e"`, `"x"`) + "\n" + `{"jsonrpc":"2.0","id":"p","method":"ping"}` + "\n") // the echo waits its turn
		close(gate)
		if out := p.end(t); !strings.Contains(out, `"id":"e"`) || !strings.Contains(out, `"id":"p"`) {
			t.Errorf("replies lost: %s", out)
		}
	})
	t.Run("retry off the loop", func(t *testing.T) {
		p := serveInProcess(askCatalogue)
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
		first := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"twice","arguments":{"what":"A"},` + meta + `}}` + "\n"
		p.send(first)
		state := regexp.MustCompile(`"requestState":"([^"]+)"`).FindStringSubmatch(p.until(t, `"requestState"`))[1]
		retry := strings.Replace(strings.Replace(first, `"id":1`, `"id":3`, 1), `"_meta"`,
			`"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ann"}}},"requestState":"`+state+`","_meta"`, 1)
		var b strings.Builder
		for i := 100; i < 100+maxCalls; i++ { // calls that wait until cancelled: the retry waits its turn
			b.WriteString(callLine(strconv.Itoa(i), "wait", "{}") + "\n")
		}
		p.send(b.String() + retry + pingLine + "\n")
		b.Reset()
		for i := 100; i < 100+maxCalls; i++ {
			b.WriteString(cancel(strconv.Itoa(i)))
		}
		p.send(b.String())
		if out := p.end(t); !strings.Contains(out, `Greet Ann with A?`) {
			t.Errorf("the retry did not read its own answer: %s", clip(out, 600))
		}
	})
	t.Run("time limit and return", func(t *testing.T) {
		causes := make(chan error, 1)
		timed := tool{name: "timed", description: "Watch the cause", timeout: time.Hour, run: func(ctx context.Context, _ arguments) (string, error) {
			go func() { <-ctx.Done(); causes <- context.Cause(ctx) }()
			return "ok", nil
		}}
		serveWith(t, []tool{timed}, callLine("1", "timed", "{}")+"\n")
		if cause := <-causes; cause != errReturned {
			t.Errorf("once run returned, the cause is %v, want errReturned", cause)
		}
	})
	t.Run("progress past the time limit", func(t *testing.T) {
		returned := make(chan bool)
		flood := tool{name: "flood", description: "Send progress until ctx ends", timeout: 50 * time.Millisecond,
			run: func(ctx context.Context, in arguments) (string, error) {
				for i := 1.0; ctx.Err() == nil; i++ {
					in.progress(i, 0, strings.Repeat("f", 1<<10))
				}
				close(returned)
				return "", ctx.Err()
			}}
		pr, pw := io.Pipe()
		stuck := make(chan struct{})
		s := newServer(pr, writerFunc(func(b []byte) (int, error) { <-stuck; return len(b), nil }), defaultMaxMessage, []tool{flood})
		done := make(chan error, 1)
		go func() { done <- s.serve() }()
		io.WriteString(pw, slowCall("1", "flood", "{}", `"t"`))
		select {
		case <-returned:
		case <-time.After(hangAfter):
			t.Errorf("long after its 50 ms limit, the tool still waits to send progress")
		}
		close(stuck)
		pw.Close()
		<-done
	})
	t.Run("batch behind a question", func(t *testing.T) {
		p := serveInProcess(askCatalogue)
		p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
		p.send(callLine("1", "delete", `{"paths":["a.txt"]}`) + "\n")
		p.until(t, `"id":"ask-1"`)
		for i := range 5 { // 5 MiB owed behind the call
			p.send(`{"jsonrpc":"2.0","id":"big` + strconv.Itoa(i) + largeText(1<<20) + `","method":"ping"}` + "\n")
		}
		p.send(`[{"jsonrpc":"2.0","id":"inbatch","method":"ping"}]` + "\n" + `{"jsonrpc":"2.0","id":"ask-1","result":{"action":"accept"}}` + "\n")
		if out := p.end(t); !strings.Contains(out, `deleted a.txt`) || !strings.Contains(out, `"inbatch"`) {
			t.Errorf("the answer after the batch was not read: %s", clip(out, 600))
		}
	})
}

// writerFunc is a writer that is a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
