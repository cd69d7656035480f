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

// server is one session on a pair of streams. The loop (serve) answers
// lines in order; the reader (read) reads them on a goroutine of its own,
// so that a line can be read while a tool runs (see runTool).
type server struct {
	in       *bufio.Reader // the reader's: reads lines through the server itself (see Read)
	out      *bufio.Writer // the loop's: holds replies until the reader must wait for input
	r        io.Reader
	max      int    // the longest line served
	doc      doc    // the line in hand, read as JSON
	tools    []tool // the catalogue served
	toolList []any  // its tools/list entries
	log      *logger
	started  bool // a line was read: no byte order mark is skipped any more
	ended    bool // the input ended

	lines chan input    // from the reader to the loop
	next  chan struct{} // from the loop: the reader may read on
	held  bool          // the loop holds the reader's line, which the next read overwrites
	flush bool          // the reader waits for input, and asked for the replies while a tool ran
	batch bool          // a batch's reply is being written: it is one line, with no progress inside
	subs  []value       // ids of the subscriptions open (see handleListen),
	acks  []value       // and of those the line in hand opened
	ctx   context.Context
	stop  context.CancelFunc // a signal asks the loop to stop

	// While a tool runs, the reader keeps what it reads aside (see aside).
	mu        sync.Mutex
	room      *sync.Cond              // signalled when the tool returns
	running   context.CancelCauseFunc // the running tool's, or nil
	runningID string                  // its request's id (see key)
	ahead     []input                 // lines read while a tool ran, to answer next,
	aheadN    int                     // of this many bytes in all
	dropped   []string                // ids of requests in ahead that the client cancelled
	skipped   bool                    // the reader asked for the replies owed meanwhile
}

// input is what the reader hands the loop: a line, a request to write
// the replies owed before the reader waits for input, or the error that
// ended reading (io.EOF at the end).
type input struct {
	line    []byte
	tooLong bool
	flush   bool
	err     error
}

// newServer returns a server that reads requests from r, writes replies
// to w, answers lines of up to max bytes and serves the tools given.
func newServer(r io.Reader, w io.Writer, max int, tools []tool) *server {
	s := &server{r: r, max: max, tools: tools, toolList: toolList(tools), lines: make(chan input), next: make(chan struct{})}
	s.in = bufio.NewReaderSize(s, 1<<20)
	s.out = bufio.NewWriterSize(w, 64<<10)
	s.ctx, s.stop = context.WithCancel(context.Background())
	s.room = sync.NewCond(&s.mu)
	return s
}

// errStopped is what serve returns when a signal stopped it.
var errStopped = errors.New("stopped by a signal")

// serve answers each line until the input ends (nil), reading or writing
// fails, or a signal stops it (errStopped); every reply owed is written
// first, and each subscription open is ended.
func (s *server) serve() error {
	go s.read()
	for {
		in, stopped := s.take()
		switch {
		case stopped:
			return s.finish(errStopped)
		case in.flush:
			err := s.out.Flush()
			if s.next <- struct{}{}; err != nil {
				return err
			}
			continue
		case in.err == io.EOF:
			return s.finish(nil)
		case in.err != nil:
			return in.err
		}
		s.answer(in.line, in.tooLong)
		if s.doc.line = nil; s.held { // so that it can go while the next is read
			s.held = false
			s.next <- struct{}{}
		}
		if err := s.writeFailed(); err != nil {
			return err
		}
	}
}

// take returns the next input: a line read while a tool ran, or the
// reader's next; or stopped, once a signal asked the loop to stop.
func (s *server) take() (in input, stopped bool) {
	if s.ctx.Err() != nil {
		return in, true
	}
	s.mu.Lock()
	if len(s.ahead) > 0 {
		in, s.ahead = s.ahead[0], s.ahead[1:]
		s.aheadN -= len(in.line)
		s.mu.Unlock()
		return in, false
	}
	s.dropped = nil // no request read ahead is left for them to name
	s.mu.Unlock()
	if s.flush { // the reader waits for input: write what it asked for
		s.flush = false
		s.out.Flush()
	}
	select {
	case in = <-s.lines:
		s.held = in.err == nil && !in.flush
		return in, false
	case <-s.ctx.Done():
		return in, true
	}
}

// finish ends the subscriptions open and writes every reply owed, and
// returns err, or the error that ended writing.
func (s *server) finish(err error) error {
	for _, id := range s.subs {
		s.writeReply(id, obj{{"resultType", "complete"}, {"_meta", obj{{metaSubscriptionID, id}}}}, nil)
		s.out.WriteByte('\n')
	}
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

// maxAhead is how many bytes of lines the reader keeps aside while a tool
// runs; then reading pauses until the tool returns.
const maxAhead = 16 << 20

// The causes of a tool's context's end that are not a signal.
var (
	errClientCancelled = errors.New("cancelled by the client")
	errTimedOut        = errors.New("time limit passed")
)

// runTool runs t with in, on the loop's goroutine; the reader meanwhile
// reads on, keeping what it reads aside, and acts at once on a
// cancellation (see aside). The tool's context ends when the client
// cancels req (then the error is errClientCancelled: no reply), when a
// signal stops mcp, or when t's timeout passes; its progress is written as
// it comes, if req asked for it.
func (s *server) runTool(t *tool, in arguments, req request) (text string, err error) {
	ctx, cancel := context.WithCancelCause(s.ctx)
	defer cancel(nil)
	if t.timeout > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, t.timeout, errTimedOut)
		defer stop()
	}
	token, last, returned := req.params.get("_meta").get("progressToken"), math.Inf(-1), false
	if !s.batch && (token.kind() == '"' || token.kind() == '0' && !bytes.ContainsAny(token.raw(), ".eE")) {
		in.report = func(done, total float64, message string) { // from any of the tool's goroutines
			s.mu.Lock()
			defer s.mu.Unlock()
			if !returned && done > last {
				last = done
				s.writeProgress(token, done, total, message)
			}
		}
	}
	s.mu.Lock()
	s.running, s.runningID = cancel, req.id.key()
	s.mu.Unlock()
	defer func() { // also when the tool panics
		s.mu.Lock()
		s.running, returned, s.flush, s.skipped = nil, true, s.flush || s.skipped, false
		s.room.Broadcast()
		s.mu.Unlock()
	}()
	if s.held { // the reader reads on, over the line in hand: keep a copy
		s.doc.line, s.held = bytes.Clone(s.doc.line), false
		s.next <- struct{}{}
	}
	text, err = t.run(ctx, in)
	switch cause := context.Cause(ctx); {
	case cause == errClientCancelled:
		return "", errClientCancelled
	case cause == errTimedOut:
		return "", fmt.Errorf("tool %s did not finish within its time limit of %v", t.name, t.timeout)
	}
	return text, err
}

// writeProgress writes a progress notification, and at once.
func (s *server) writeProgress(token value, done, total float64, message string) {
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

// aside is the reader's: while a tool runs, it keeps in (a copy of its
// line) to answer after the tool, pausing first while maxAhead bytes are
// kept; a cancellation of the running request cancels it at once, one of
// a request kept will drop it. It reports whether it kept in: no tool ran.
func (s *server) aside(peek *doc, in input) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.running != nil && s.aheadN >= maxAhead {
		s.room.Wait()
	}
	switch {
	case s.running == nil:
		return false
	case in.flush:
		s.skipped = true
		return true
	}
	if in.err == nil {
		in.line = bytes.Clone(in.line)
		if msg, _, ok := peek.parse(in.line); ok && msg.get("method").is("notifications/cancelled") && !msg.get("id").exists() {
			if id := msg.get("params").get("requestId").key(); id == s.runningID {
				s.running(errClientCancelled)
			} else if id != "" {
				s.dropped = append(s.dropped, id)
			}
		}
	}
	s.ahead, s.aheadN = append(s.ahead, in), s.aheadN+len(in.line)
	return true
}

// read hands the loop each line, waiting until it is done with one (or
// has copied it) before it reads the next over it, then the error that
// ends reading.
func (s *server) read() {
	var peek doc
	for {
		line, tooLong, err := s.readLine()
		in := input{line: line, tooLong: tooLong, err: err}
		if !s.aside(&peek, in) {
			s.lines <- in
			if err == nil {
				<-s.next
			}
		}
		if err != nil {
			return
		}
	}
}

// Read is what the line reader reads through. Before it waits for input,
// it has the loop write the replies owed, so that an interactive client
// gets each reply at once while pipelined requests are answered in
// batches.
func (s *server) Read(p []byte) (int, error) {
	if !s.aside(nil, input{flush: true}) {
		s.lines <- input{flush: true}
		<-s.next
	}
	return s.r.Read(p)
}

// serveUntilStopped serves on a goroutine of its own, and returns the exit
// status and why the server stopped: the end of input, a failure, or
// signals, which it is the one place to receive.
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
			s.stop()
		}
	}
}

// readLine returns the next line without its "\n" or "\r\n", a last one
// without "\n" too, then io.EOF: the end of input is the end, though a
// terminal could be read again after Ctrl-D. A line that fits the input
// buffer is returned in place, valid until the next call; a longer one is
// joined from copies of its pieces; one over the limit is dropped as it is
// read, never held whole, and reported as tooLong. A byte order mark
// leading the input is skipped.
func (s *server) readLine() (line []byte, tooLong bool, err error) {
	if s.ended {
		return nil, false, io.EOF
	}
	var pieces [][]byte
	size := 0 // bytes of the line before line
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
		return nil, false, err
	}
	switch {
	case size > 0 && pieces == nil:
		return nil, true, nil
	case size > 0:
		line = bytes.Join(append(pieces, line), nil)
	}
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	return line, len(line) > s.max, nil
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
