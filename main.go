// Command mcp is a Model Context Protocol server on standard input and
// output: newline-delimited JSON-RPC 2.0, each reply written as
// JavaScript's JSON.stringify would write it. It serves the tools add and
// echo and the resource memo://welcome, in the protocol versions
// 2024-11-05 to 2026-07-28.
//
// Usage:
//
//	mcp [-max-message-bytes N] [-v]
//	mcp -version
//
// mcp exits 0 at the end of its input, once every reply is written, and on
// SIGINT, SIGTERM or SIGHUP, after the request in hand (a second signal:
// at once, with status 128+the first); 1 if standard input or output
// fails or the catalogue of tools has a mistake; 2 on a usage error.
package main

// This file is the command: flags, the serve loop and what stops it,
// reading lines, and the -v log. handlers.go answers each line.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// defaultMaxMessage is the longest line served unless -max-message-bytes
// says otherwise: far above any real MCP message, far below memory.
const defaultMaxMessage = 64 << 20

func main() {
	// First, so that a signal from now on stops the server cleanly.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	// A closed stdout is then a write error (exit 1), not death by SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)

	max := flag.Int("max-message-bytes", defaultMaxMessage, "answer lines longer than `N` bytes with an error, and skip them")
	verbose := flag.Bool("v", false, "log one line per request to standard error")
	version := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	bad := ""
	switch {
	case flag.NArg() > 0:
		bad = fmt.Sprintf("unexpected argument %q", flag.Arg(0))
	case *max < 1:
		bad = "-max-message-bytes must be at least 1"
	case *version:
		fmt.Println(versionLine())
		return
	}
	if bad != "" {
		fmt.Fprintf(os.Stderr, "mcp: %s\n", bad)
		flag.Usage()
		os.Exit(2)
	}
	if err := checkCatalogue(tools, resources); err != nil {
		fmt.Fprintf(os.Stderr, "mcp: %v\n", err)
		os.Exit(1)
	}
	// Standard output is the protocol's: fmt.Println and a child process
	// given os.Stdout write to standard error.
	protocol := os.Stdout
	os.Stdout = os.Stderr
	s := newServer(retryReader{os.Stdin}, retryWriter{protocol}, *max, tools)
	if *verbose {
		s.log = newLogger(retryWriter{os.Stderr})
	}
	code, why := serveUntilStopped(s, sigs)
	s.log.close("mcp: " + why + ": stopping")
	os.Exit(code)
}

// versionLine is what -version prints, "mcp 0.1.0 (9e6afca)": the release
// that initialize reports, and the commit the Go toolchain recorded of a
// git checkout, "-dirty" if it had changes, or "devel" if none.
func versionLine() string {
	commit, dirty := "devel", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && len(s.Value) >= 7:
				commit = s.Value[:7]
			case s.Key == "vcs.modified" && s.Value == "true":
				dirty = "-dirty"
			}
		}
	}
	return "mcp " + serverVersion + " (" + commit + dirty + ")"
}

// ==== The serve loop and what stops it ====

// server is one session on a pair of streams. The loop (serve) reads
// lines and answers them in order, on one goroutine; while a tool runs
// for long, another reads ahead (see readAhead).
type server struct {
	in       *bufio.Reader // reads lines through the server itself (see Read)
	out      *bufio.Writer // holds replies until no further request is read
	r        io.Reader
	max      int    // the longest line served
	doc      doc    // the line in hand, read as JSON
	inPlace  bool   // doc.line is in in's buffer, which the next read overwrites
	copied   []byte // doc.line, when a tool runs on it (see runTool)
	tools    []tool // the catalogue served
	toolList []any  // its tools/list entries
	// resources' resources/list and resources/templates/list entries, and
	// its fixed resources' resources/read results
	resourceList, templateList []any
	readResults                []map[bool]any
	log                        *logger
	agreed                     string         // the version initialize agreed, if any
	started                    bool           // a line was read: no byte order mark is skipped any more
	ended                      bool           // the input ended
	batch                      bool           // a batch's reply is being written: one line, no progress inside
	subs                       []value        // ids of the subscriptions opened (see handleListen), none once ended,
	gaps                       int            // how many of them have ended (see cancelled),
	subIndex                   map[string]int // the index in subs of each open, by key,
	acks                       []value        // and the ids of those the line in hand opened

	// The loop sets waiting, then reads stopping; a signal sets stopping,
	// then reads waiting. So either the signal sees the loop waiting for
	// input, with every reply written, and the process may exit at once,
	// or the loop sees stopping before it writes again.
	waiting  atomic.Bool // in a read, with every reply owed written
	stopping atomic.Bool // a signal asked the loop to stop after the request in hand

	// While a tool runs, readAhead may hold in (see there).
	timer   *time.Timer       // ticks while tools run (see tick)
	mu      sync.Mutex        // guards what follows, and out while a tool runs
	room    *sync.Cond        // signalled when a tool returns, and when readAhead keeps a line or ends
	call    *toolCall         // the tool running, or nil,
	callID  value             // and its request's id
	calls   int               // how many tools have run,
	seen    int               // and had at the last tick
	ticking bool              // the timer is set
	reading bool              // readAhead holds in
	kept    []*input          // what readAhead read, to answer next,
	keptN   int               // of this cost in all (see cost),
	pending map[string]*input // the last request kept of each id (see key)
}

// input is a line read, or the error that ended reading (io.EOF at the
// end).
type input struct {
	line    []byte
	inPlace bool // line is in the line reader's buffer
	tooLong bool
	err     error
	id      string // a kept request's id (see key)
	dropped bool   // a kept request the client cancelled before its turn
}

// newServer returns a server that reads requests from r, writes replies
// to w, answers lines of up to max bytes and serves the tools given.
func newServer(r io.Reader, w io.Writer, max int, tools []tool) *server {
	s := &server{r: r, max: max, tools: tools, toolList: toolList(tools), subIndex: map[string]int{}, pending: map[string]*input{}}
	s.resourceList, s.templateList, s.readResults = resourceLists(resources)
	s.in = bufio.NewReaderSize(s, 1<<20)
	s.out = bufio.NewWriterSize(w, 64<<10)
	s.room = sync.NewCond(&s.mu)
	s.timer = time.AfterFunc(time.Hour, s.tick)
	s.timer.Stop()
	return s
}

// errStopped is what serve returns when a signal stopped it.
var errStopped = errors.New("stopped by a signal")

// serve answers each line until the input ends (nil), reading or writing
// fails, or a signal stops it (errStopped); every reply owed is written
// first, and each subscription open is ended.
func (s *server) serve() error {
	for {
		in := s.next()
		switch {
		case in.err == io.EOF:
			return s.finish(nil)
		case in.err == errStopped:
			return s.finish(errStopped)
		case in.err != nil:
			return in.err
		case in.dropped && s.log == nil:
			continue
		case in.dropped:
			msg, _, _ := s.doc.parse(in.line)
			s.log.printf("mcp: %s id=%s cancelled before its turn", quoteText(msg.get("method").text()), logID(msg.get("id")))
			continue
		}
		s.inPlace = in.inPlace
		s.answer(in.line, in.tooLong)
		s.doc.line = nil // so that it can go while the next is read
		if err := s.writeFailed(); err != nil {
			return err
		}
		if s.stopping.Load() {
			return s.finish(errStopped)
		}
	}
}

// next returns the next input: the next that readAhead kept (waiting for
// it if it still reads), or the line reader's.
func (s *server) next() input {
	s.mu.Lock()
	if len(s.kept) == 0 && s.reading {
		s.mu.Unlock()
		if err := s.await(func() {
			s.mu.Lock()
			for len(s.kept) == 0 && s.reading {
				s.room.Wait()
			}
			s.mu.Unlock()
		}); err != nil {
			return input{err: err}
		}
		s.mu.Lock()
	}
	if len(s.kept) == 0 {
		s.mu.Unlock()
		return s.readLine()
	}
	in := s.kept[0]
	if s.kept, s.keptN = s.kept[1:], s.keptN-in.cost(); s.pending[in.id] == in {
		delete(s.pending, in.id)
	}
	s.mu.Unlock()
	return *in
}

// finish ends the subscriptions open and writes every reply owed, and
// returns err, or the error that ended writing. The loop or a signal
// calls it, once the loop writes nothing more: the first one finishes.
func (s *server) finish(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range s.subs {
		if !id.exists() {
			continue
		}
		s.writeReply(id, obj{{"resultType", "complete"}, {"_meta", obj{{metaSubscriptionID, id}}}}, nil)
		s.out.WriteByte('\n')
	}
	s.subs = nil
	if ferr := s.out.Flush(); ferr != nil {
		return ferr
	}
	return err
}

// writeFailed returns the error that ended writing, if any: bufio.Writer
// keeps its first error, and every later Write returns it.
func (s *server) writeFailed() error {
	_, err := s.out.Write(nil)
	return err
}

// Read is what the line reader reads through: for the loop, it writes
// the replies owed first, so that an interactive client gets each reply
// at once while pipelined requests are answered in batches; for
// readAhead, it only reads.
func (s *server) Read(p []byte) (n int, err error) {
	s.mu.Lock()
	ahead := s.reading
	s.mu.Unlock()
	if ahead {
		return s.r.Read(p)
	}
	if werr := s.await(func() { n, err = s.r.Read(p) }); werr != nil {
		return 0, werr
	}
	return n, err
}

// await writes the replies owed, then waits by wait, unless a signal
// asked the loop to stop (errStopped).
func (s *server) await(wait func()) error {
	if err := s.out.Flush(); err != nil {
		return err
	}
	if s.waiting.Store(true); s.stopping.Load() {
		return errStopped
	}
	wait()
	if s.waiting.Store(false); s.stopping.Load() {
		return errStopped
	}
	return nil
}

// serveUntilStopped serves on a goroutine of its own, and returns the exit
// status and why the server stopped: the end of input, a failure, or
// signals, which it is the one place to receive. The first signal cancels
// the tool running, if any.
func serveUntilStopped(s *server, sigs <-chan os.Signal) (code int, why string) {
	done := make(chan error, 1)
	go func() { done <- s.serve() }()
	var first os.Signal
	for {
		select {
		case err := <-done:
			switch {
			case err == errStopped:
				return 0, first.String()
			case err != nil:
				return 1, err.Error()
			}
			return 0, "end of input"
		case sig := <-sigs:
			if first != nil {
				return 128 + int(first.(syscall.Signal)), first.String() + ", then " + sig.String()
			}
			first = sig
			if s.stopping.Store(true); s.waiting.Load() {
				s.finish(nil) // the loop waits, and will not write again
				return 0, sig.String()
			}
			s.mu.Lock()
			if s.call != nil {
				s.call.cancel(errStopped)
			}
			s.mu.Unlock()
		}
	}
}

// ==== Tools that take time ====

// toolCall is a call of a tool: its result, and the context it runs in,
// which ends when the client cancels the request or a signal stops mcp.
// Without a time limit or a progress token, it is the call's one
// allocation, and it makes its channel only when asked for it: a
// context.WithCancel for each call took the bench's peak RSS to 2.6x
// limit's, past its floor of 2x.
type toolCall struct {
	toolResult
	done     chan struct{} // made by Done, closed by cancel,
	ended    bool          // the context ended,
	byClient bool          // for the client's cancellation: these three under contexts
	returned bool          // the tool returned: it reports no more progress
}

// contexts guards every toolCall's done, ended and byClient: one mutex,
// not one in each, keeps a toolCall in 48 bytes; a context is seldom
// asked more than once.
var contexts sync.Mutex

// Deadline, Done, Err and Value make a toolCall a context.Context.
func (c *toolCall) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *toolCall) Value(any) any               { return nil }
func (c *toolCall) Done() <-chan struct{} {
	contexts.Lock()
	defer contexts.Unlock()
	if c.done == nil {
		if c.done = make(chan struct{}); c.ended {
			close(c.done)
		}
	}
	return c.done
}
func (c *toolCall) Err() error {
	contexts.Lock()
	defer contexts.Unlock()
	if c.ended {
		return context.Canceled
	}
	return nil
}

// cancel ends c's context, for cause (errStopped or errClientCancelled),
// unless it has ended.
func (c *toolCall) cancel(cause error) {
	contexts.Lock()
	defer contexts.Unlock()
	if !c.ended {
		if c.ended, c.byClient = true, cause == errClientCancelled; c.done != nil {
			close(c.done)
		}
	}
}

// The causes of a tool's context's end that are not a signal.
var (
	errClientCancelled = errors.New("cancelled by the client")
	errTimedOut        = errors.New("time limit passed")
)

// readAheadAfter is how often the timer ticks while tools run: a tool
// running at two ticks in a row has readAhead read for it. A call that
// ends sooner costs no other goroutine and no timer of its own: a run
// of them shares the ticks.
const readAheadAfter = time.Millisecond

// maxKept is how many bytes readAhead keeps while a tool runs, each line
// counted with keptCost; then it waits for the tool to return.
const maxKept = 16 << 20

// keptCost is about what a line kept costs beyond its bytes and its
// id's: its input, and its places in kept and pending. Counted (see
// cost), it holds a run of short lines to maxKept as it holds long ones
// (TestReadAheadBound).
const keptCost = 128

// cost is what keeping in costs, as maxKept counts it.
func (in *input) cost() int { return len(in.line) + len(in.id) + keptCost }

// runTool runs t with in (see run) and returns its result; its progress
// is written as it comes, if req asked for it. The client's cancellation
// is errCancelled: no reply.
func (s *server) runTool(t *tool, in arguments, req request) (any, *rpcError) {
	c := &toolCall{toolResult: toolResult{modern: req.modern, noAudio: !req.modern && s.agreed == "2024-11-05"}}
	in.tool, in.call = t, c
	if token := req.meta.get("progressToken"); !s.batch && (token.kind() == '"' || token.kind() == '0' && !bytes.ContainsAny(token.raw(), ".eE")) {
		last := math.Inf(-1) // the progress last sent
		in.report = func(done, total float64, message string) { s.report(c, token, &last, done, total, message) }
	}
	text, err := s.run(c, req, t.timeout, t.run, in)
	switch {
	case err == errClientCancelled:
		return nil, errCancelled
	case err == errTimedOut:
		err = fmt.Errorf("tool %s did not finish within its time limit of %v", t.name, t.timeout)
	}
	if t.output != nil && err == nil {
		m := c.extended()
		var fault string
		if m.structured, fault = checkOutput(t, m.fields); fault != "" {
			err = errors.New(fault)
		} else if text == "" {
			text = quote(m.structured)
		}
	}
	if c.text, c.isError = text, err != nil; err != nil {
		c.text, c.extras = err.Error(), nil
	}
	return &c.toolResult, nil
}

// run calls fn with in, on the loop's goroutine, in c, a context that
// ends when the client cancels req (then the error is
// errClientCancelled), when a signal stops mcp, or when timeout (if not
// 0) passes (errTimedOut); from readAheadAfter on, readAhead reads what
// comes meanwhile.
func (s *server) run(c *toolCall, req request, timeout time.Duration, fn func(context.Context, arguments) (string, error), in arguments) (string, error) {
	var ctx context.Context = c
	if timeout > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, timeout, errTimedOut)
		defer stop()
	}
	if s.inPlace { // readAhead may read over it
		s.copied = append(s.copied[:0], s.doc.line...)
		s.doc.line, s.inPlace = s.copied, false
	}
	s.mu.Lock()
	if s.call, s.callID, s.calls = c, req.id, s.calls+1; !s.ticking && !s.reading {
		s.ticking = true
		s.timer.Reset(readAheadAfter)
	}
	s.mu.Unlock()
	if s.stopping.Load() {
		c.cancel(errStopped)
	}
	defer func() { // also when the tool panics
		s.mu.Lock()
		s.call, c.returned = nil, true
		s.room.Broadcast()
		s.mu.Unlock()
	}()
	text, err := fn(ctx, in)
	switch {
	case c.Err() != nil && c.byClient:
		return "", errClientCancelled
	case context.Cause(ctx) == errTimedOut:
		return "", errTimedOut
	}
	return text, err
}

// report writes c's progress notification for token at once, if done is
// past the last and c has not returned. A tool may call it from any
// goroutine.
func (s *server) report(c *toolCall, token value, last *float64, done, total float64, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.returned || done <= *last {
		return
	}
	*last = done
	params := obj{{"progressToken", token}, {"progress", done}}
	if total > 0 {
		params = append(params, member{"total", total})
	}
	if message != "" {
		params = append(params, member{"message", message})
	}
	writeJSON(s.out, obj{{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", params}})
	s.out.WriteByte('\n')
	s.out.Flush()
}

// tick starts readAhead if the tool running ran at the last tick too, and
// ticks on while tools run, unless readAhead holds in.
func (s *server) tick() {
	s.mu.Lock()
	start := s.call != nil && s.calls == s.seen && !s.reading
	s.reading = s.reading || start
	if s.ticking = !s.reading && (s.call != nil || s.calls != s.seen); s.ticking {
		s.timer.Reset(readAheadAfter)
	}
	s.seen = s.calls
	s.mu.Unlock()
	if start {
		s.readAhead()
	}
}

// readAhead holds in while tools run, so that a cancellation takes
// effect at once: it reads lines and keeps them (see keep), pausing while
// maxKept bytes are kept, until it has read one once no tool runs, or the
// input ends.
func (s *server) readAhead() {
	var peek doc
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.call != nil && s.keptN >= maxKept {
			s.log.printf("mcp: reading paused while a tool runs: %d lines kept", len(s.kept))
		}
		for s.call != nil && s.keptN >= maxKept {
			s.room.Wait()
		}
		if s.call == nil {
			s.reading = false
			s.room.Broadcast()
			return
		}
		s.mu.Unlock()
		in := s.readLine()
		if in.inPlace {
			in.line, in.inPlace = bytes.Clone(in.line), false
		}
		s.mu.Lock()
		s.keep(&peek, &in)
		if s.room.Broadcast(); in.err != nil {
			s.reading = false
			return
		}
	}
}

// keep keeps in, with s.mu held, to answer next. A cancellation of the
// running request cancels it; one of a request kept drops that.
func (s *server) keep(peek *doc, in *input) {
	if msg, _, ok := peek.parse(in.line); ok && !in.tooLong && msg.kind() == '{' {
		switch id, method := msg.get("id"), msg.get("method"); {
		case !method.is("notifications/cancelled"):
			if in.id = id.key(); in.id != "" && method.exists() {
				s.pending[in.id] = in
			}
		case !id.exists():
			target := msg.get("params").get("requestId").key()
			if s.call != nil && target != "" && target == s.callID.key() {
				s.call.cancel(errClientCancelled)
			} else if p := s.pending[target]; p != nil {
				p.dropped = true
			}
		}
	}
	s.kept, s.keptN = append(s.kept, in), s.keptN+in.cost()
}

// readLine returns the next line without its "\n" or "\r\n", a last one
// without "\n" too, then io.EOF: the end of input is the end, though a
// terminal could be read again after Ctrl-D. A line that fits the input
// buffer is returned in place, valid until the next call; a longer one is
// joined from copies of its pieces; one over the limit is dropped as it is
// read, never held whole, and reported as tooLong. A byte order mark
// leading the input is skipped.
func (s *server) readLine() input {
	if s.ended {
		return input{err: io.EOF}
	}
	var pieces [][]byte
	size := 0 // bytes of the line before line
	line, err := []byte(nil), error(nil)
	for {
		line, err = s.in.ReadSlice('\n')
		if !s.started {
			line, s.started = bytes.TrimPrefix(line, []byte("\uFEFF")), true
		}
		if err != bufio.ErrBufferFull {
			break
		}
		if size += len(line); size-1 <= s.max { // its last byte may be the "\r" of "\r\n"
			pieces = append(pieces, bytes.Clone(line))
		} else {
			pieces = nil
		}
	}
	if s.ended = err == io.EOF; err != nil && (!s.ended || size+len(line) == 0) {
		return input{err: err}
	}
	switch {
	case size > 0 && pieces == nil:
		return input{tooLong: true}
	case size > 0:
		line = bytes.Join(append(pieces, line), nil)
	}
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	return input{line: line, inPlace: size == 0, tooLong: len(line) > s.max}
}

// ==== Standard I/O, and the log ====

// retryReader is a reader that waits out EAGAIN: another process sharing
// our stdin (a Node wrapper with stdio 'inherit', say) can make it
// non-blocking while we run (golang/go#58408).
type retryReader struct{ r io.Reader }

func (r retryReader) Read(p []byte) (int, error) {
	for wait := time.Millisecond; ; wait = min(2*wait, 20*time.Millisecond) {
		n, err := r.r.Read(p)
		if n > 0 || !errors.Is(err, syscall.EAGAIN) {
			return n, err
		}
		time.Sleep(wait)
	}
}

// retryWriter is a writer that waits out EAGAIN, as retryReader does, and
// writes all of p: a non-blocking pipe takes what fits and refuses the rest.
type retryWriter struct{ w io.Writer }

func (w retryWriter) Write(p []byte) (int, error) {
	n := 0
	for wait := time.Millisecond; n < len(p); wait = min(2*wait, 20*time.Millisecond) {
		m, err := w.w.Write(p[n:])
		if n += m; err != nil && !errors.Is(err, syscall.EAGAIN) {
			return n, err
		}
		if err != nil && m == 0 {
			time.Sleep(wait)
		}
	}
	return n, nil
}

// logger writes -v's lines to standard error from a goroutine of its own,
// so that the protocol never waits for it: a line that finds the queue
// (of 1,024) full is dropped and counted, and the count is written before
// the next line that gets out. A nil logger logs nothing.
type logger struct {
	lines   chan string
	dropped atomic.Int64
	stop    chan string // the last line, from close
	done    chan struct{}
}

// newLogger starts a logger that writes to w.
func newLogger(w io.Writer) *logger {
	l := &logger{lines: make(chan string, 1024), stop: make(chan string), done: make(chan struct{})}
	go l.run(w)
	return l
}

// run writes queued lines until close; then those still queued for half
// a second, and the count of the rest, and the last line. After a failed
// write it writes nothing more: standard error is gone.
func (l *logger) run(w io.Writer) {
	defer close(l.done)
	var err error
	write := func(line string) {
		if n := l.dropped.Swap(0); n > 0 && err == nil {
			_, err = fmt.Fprintf(w, "mcp: %d log lines dropped\n", n)
		}
		if err == nil {
			_, err = io.WriteString(w, line)
		}
	}
	for {
		select {
		case line := <-l.lines:
			write(line)
		case last := <-l.stop:
			for hurry := time.Now().Add(time.Second / 2); len(l.lines) > 0; {
				if line := <-l.lines; time.Now().Before(hurry) {
					write(line)
				} else {
					l.dropped.Add(1)
				}
			}
			write(last + "\n")
			return
		}
	}
}

// printf queues a line, or drops and counts it if the queue is full.
func (l *logger) printf(format string, a ...any) {
	if l == nil {
		return
	}
	select {
	case l.lines <- fmt.Sprintf(format, a...) + "\n":
	default:
		l.dropped.Add(1)
	}
}

// close has last, why mcp stopped, written as the log's last line, and
// waits for it up to a second: if standard error takes nothing in that
// time, mcp exits without it.
func (l *logger) close(last string) {
	if l == nil {
		return
	}
	deadline := time.After(time.Second)
	select {
	case l.stop <- last:
		select {
		case <-l.done:
		case <-deadline:
		}
	case <-deadline:
	}
}

// quoteText quotes client text for the log, Go-style, so that a newline
// or an escape character cannot forge a line or reach a terminal raw, and
// cuts it after 100 bytes, giving its length.
func quoteText(s string) string {
	if len(s) <= 100 {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:100]) + "..." + strconv.Itoa(len(s)) + " bytes"
}
