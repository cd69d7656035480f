// Command mcp is a Model Context Protocol server that speaks
// newline-delimited JSON-RPC 2.0 on standard input and output.
//
// Usage:
//
//	mcp [-max-message-bytes N] [-v]
//	mcp -version
//
// An MCP client starts mcp as a subprocess and writes one JSON-RPC message
// per line to its standard input; mcp writes one reply per request, in
// request order, each a single line of compact JSON on standard output,
// and nothing else there. Diagnostics go to standard error, only with -v.
//
// It offers two tools, add (numbers a and b) and echo (string text), and
// one text resource, memo://welcome, in the legacy protocol versions
// 2024-11-05 to 2025-11-25 (initialize handshake, optional) and in the
// stateless 2026-07-28 (server/discover, per-request _meta), chosen per
// request. Every byte it writes is what JavaScript's JSON.stringify would
// write for the same reply, numbers included, but for numeric request ids,
// which come back with the digits they were sent with (1e3 stays 1e3).
//
// The flags are:
//
//	-max-message-bytes N
//		Longest accepted line, in bytes, in decimal digits (default
//		64 MiB). A longer line is never held whole: it is answered with an
//		Invalid Request error, and the session goes on.
//	-v
//		Log one line per request to standard error (method, id, duration,
//		outcome), client text quoted and cut at 100 bytes, and last the
//		reason for stopping. If standard error is slow, lines are dropped
//		and counted; mcp waits for it only at exit, up to 1 s.
//	-version
//		Print the release version and the commit, and exit.
//
// mcp exits 0 when standard input ends, after writing every reply it owes,
// and on the first SIGINT, SIGTERM or SIGHUP, after the request in hand. A
// second signal ends it with status 128+the first signal at the end of the
// line being written, or 2 s later if that line is stuck. It exits 1 if
// reading standard input or writing standard output fails, or, at start,
// if too few file descriptors are free or the catalogue of tools has a
// mistake; and 2 on a usage error.
package main

// This file is the command: main, which decides the exit status and the
// last log line; the serve loop and what stops it; reading lines, and
// giving a big line's memory back; standard I/O that waits out EAGAIN;
// and the -v logger. Messages are handled in handlers.go.

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// commit is the source commit the binary was built from, when the build
// says so: make sets it with -ldflags "-X main.commit=abc1234". Otherwise
// -version reads the commit the Go toolchain recorded, if any.
var commit string

const (
	// defaultMaxMessage is the longest line served when -max-message-bytes
	// is not given: far above any real MCP message, far below memory.
	defaultMaxMessage = 64 << 20
	// readSize is the input buffer's size, in which lines are read in
	// place: a pipe holds 64 KiB on Linux, so a read seldom brings more.
	readSize = 64 << 10
	// flushSize is how much output may wait for more replies before it is
	// written anyway; a longer reply is written in pieces of about this.
	flushSize = 256 << 10
	// scratchSize is the space a tool call's argument problems are told
	// in: all but those that quote an argument name of hundreds of bytes
	// fit. A longer text is made in space of its own, let go after the line.
	scratchSize = 1 << 10
	// killWait is how long a second signal lets the line being written take.
	killWait = 2 * time.Second
	// bigLine is the line length from which the memory a line takes is
	// managed: reused for the next big line, collected once the line is
	// read (see readLine), given back to the system once idle (see Read).
	// Below it, that costs more than it saves.
	bigLine = 1 << 20
	// idleRelease is how long the server waits, idle after a big line,
	// before it gives that line's memory back to the operating system.
	idleRelease = time.Second
	// maxBackoff is the longest wait between two tries that got EAGAIN.
	maxBackoff = 20 * time.Millisecond
)

func main() {
	// First: until signal.Notify, SIGINT, SIGTERM and SIGHUP kill the
	// process. Before it run only the runtime's start-up and package
	// initialisation, in which nothing can block (see results).
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	// A closed stdout or stderr is then a write error, not death by SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)

	maxMessage := byteCount(defaultMaxMessage)
	flags := flag.CommandLine
	flags.Init("mcp", flag.ContinueOnError)
	flags.SetOutput(io.Discard) // errors and usage are printed below
	flags.Var(&maxMessage, "max-message-bytes", "answer lines longer than `N` bytes with an error, and skip them")
	verbose := flags.Bool("v", false, "log one line per request to standard error")
	showVersion := flags.Bool("version", false, "print the version and exit")
	err := flags.Parse(os.Args[1:])
	switch {
	case err == flag.ErrHelp:
		usage(os.Stdout)
		return
	case err == nil && flags.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q", flags.Arg(0))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcp: %v\n", err)
		usage(os.Stderr)
		os.Exit(2)
	}
	if *showVersion {
		fmt.Println(versionLine())
		return
	}
	if err = checkCatalogue(); err == nil {
		err = startPoller()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcp: %v\n", err)
		os.Exit(1)
	}

	s := newServer(retryReader{os.Stdin}, retryWriter{os.Stdout}, int(maxMessage))
	if *verbose {
		s.log = newLogger(retryWriter{os.Stderr})
	}
	code, why := serveUntilStopped(s, sigs)
	s.log.close("mcp: " + why + ": stopping")
	os.Exit(code)
}

// byteCount is the value of -max-message-bytes: plain decimal digits, as
// a user means them (flag.Int would read 010 as 8, and take 0x40 and
// 1_000), at least 1.
type byteCount int

func (n *byteCount) String() string { return strconv.Itoa(int(*n)) }

func (n *byteCount) Set(s string) error {
	v, err := strconv.Atoi(s)
	switch {
	case s == "" || strings.Trim(s, "0123456789") != "":
		return errors.New("not a number of bytes in decimal digits")
	case err != nil:
		return errors.New("too large")
	case v < 1:
		return errors.New("must be at least 1")
	}
	*n = byteCount(v)
	return nil
}

// startPoller starts the Go runtime's poller, which every timer needs (the
// release after a big line, -v's wait at exit, a second signal's
// deadline) and which takes file descriptors: two on Linux (epoll and
// eventfd), one with kqueue. Without them, the first timer would be a
// fatal error mid-session, so they are asked for first.
func startPoller() error {
	if !freeDescriptors(2) {
		return errors.New("too few file descriptors: mcp needs 2 besides standard input, output and error (see ulimit -n)")
	}
	time.Sleep(time.Nanosecond) // a timer: the poller starts now, taking them
	return nil
}

// freeDescriptors reports whether n file descriptors are free, by opening
// them and closing them again, with system calls that do not start the
// poller, unlike os.Open.
func freeDescriptors(n int) bool {
	if n == 0 {
		return true
	}
	fd, err := syscall.Open(os.DevNull, syscall.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	return freeDescriptors(n - 1)
}

// usage prints the help text: flags, methods, tools, resources and
// protocol versions, from the tables that define them.
func usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: mcp [-max-message-bytes N] [-v]\n       mcp -version\n\n")
	fmt.Fprintf(w, "An MCP server on stdin/stdout: newline-delimited JSON-RPC 2.0.\n\nFlags:\n")
	flag.CommandLine.SetOutput(w)
	flag.PrintDefaults()
	var names, toolList, uris []string
	for _, m := range methods {
		names = append(names, m.name)
	}
	for _, t := range tools {
		var args []string
		for _, a := range t.args {
			args = append(args, a.name+": "+a.kind)
		}
		toolList = append(toolList, t.name+" {"+strings.Join(args, ", ")+"}")
	}
	for _, r := range resources {
		uris = append(uris, r.uri)
	}
	fmt.Fprintf(w, "\nMethods: %s\nTools: %s\nResources: %s\nProtocol versions: %s (stateless, server/discover); %s (initialize)\n",
		strings.Join(names, ", "), strings.Join(toolList, ", "), strings.Join(uris, ", "), modernVersion, strings.Join(legacyVersions, ", "))
}

// versionLine is what -version prints: the release version (the one
// initialize and server/discover report) and the commit, e.g.
// "mcp 0.1.0 (9e6afca)", or "(devel)" when the build recorded none, as
// from a source archive. It is the same however the binary was built.
func versionLine() string {
	c := commit
	if bi, ok := debug.ReadBuildInfo(); ok && c == "" {
		vcs := map[string]string{}
		for _, s := range bi.Settings {
			vcs[s.Key] = s.Value
		}
		if rev := vcs["vcs.revision"]; len(rev) >= 7 {
			c = rev[:7]
			if vcs["vcs.modified"] == "true" {
				c += "-dirty"
			}
		}
	}
	if c == "" {
		c = "devel"
	}
	return "mcp " + serverVersion + " (" + c + ")"
}

// ==== The serve loop, and what stops it ====

// serveUntilStopped runs the serve loop on a goroutine of its own and
// returns the exit status and why it stopped. It is the one place that
// receives signals: each moves the loop a step toward stopped (see
// loopState.stop). If the loop is stopped while waiting for input, with
// every reply written, the process stops at once, leaving it in a read
// that nothing can interrupt; a second signal gives the line being
// written killWait to end.
func serveUntilStopped(s *server, sigs <-chan os.Signal) (code int, why string) {
	done := make(chan error, 1)
	go func() { done <- s.run() }()
	var got []os.Signal
	var kill <-chan time.Time
	for {
		select {
		case err := <-done:
			switch {
			case err == errSignalled:
				return signalled(got)
			case err != nil:
				return 1, err.Error()
			}
			return 0, "end of input"
		case sig := <-sigs:
			if got = append(got, sig); len(got) == 2 {
				kill = time.After(killWait)
			}
			if s.state.stop() {
				return signalled(got)
			}
		case <-kill:
			return signalled(got)
		}
	}
}

// signalled is the exit status and the reason for stopping on the
// signals got: 0 after one, 128+the first after two.
func signalled(got []os.Signal) (code int, why string) {
	if len(got) == 1 {
		return 0, got[0].String()
	}
	return 128 + int(got[0].(syscall.Signal)), got[0].String() + ", then " + got[1].String()
}

// errSignalled is what run returns when signals stopped it.
var errSignalled = errors.New("stopped by signals")

// loopState is where the serve loop is, which signals change from
// outside: busy (answering or writing), waiting (in a read, with every
// reply owed written), stopping (asked to stop after the request in hand)
// or stopped (to write nothing more past the end of the line being
// written). Whoever moves it, by compare and swap, decides.
type loopState struct{ v atomic.Int32 }

const (
	busy = iota
	waiting
	stopping
	stopped
)

// wait moves a busy loop to waiting, before a read; it reports false if
// the loop is to stop instead.
func (st *loopState) wait() bool { return st.v.CompareAndSwap(busy, waiting) }

// wake moves a waiting loop back to busy, after a read; it reports false
// if the loop was stopped meanwhile, and must write nothing more.
func (st *loopState) wake() bool { return st.v.CompareAndSwap(waiting, busy) }

// stop is a signal's step: busy to stopping, stopping or waiting to
// stopped. It reports whether the loop was waiting, and so is stopped
// with nothing more to write: the process may exit now.
func (st *loopState) stop() (idle bool) {
	for {
		switch v := st.v.Load(); v {
		case busy:
			if st.v.CompareAndSwap(busy, stopping) {
				return false
			}
		case waiting, stopping:
			if st.v.CompareAndSwap(v, stopped) {
				return v == waiting
			}
		default:
			return false
		}
	}
}

// idle reports whether the loop is waiting for input.
func (st *loopState) idle() bool { return st.v.Load() == waiting }

// asked reports whether a signal asked the loop to stop.
func (st *loopState) asked() bool { return st.v.Load() >= stopping }

// lineEnded reports whether output that ends in p (not empty) must stop
// there: it ends a line, and a second signal came.
func (st *loopState) lineEnded(p []byte) bool {
	return st.v.Load() == stopped && p[len(p)-1] == '\n'
}

// server is one stdio session: the input it reads, the scanner that reads
// its lines, the writer that holds the replies it owes, and the space it
// reuses so that a request costs no allocation.
type server struct {
	in      *bufio.Reader // reads from the server itself, see Read
	max     int           // the longest line served
	started bool          // a line was read
	ended   bool          // input ended, with the last line read
	sc      scanner       // reads the line in hand
	out     writer        // holds the replies owed
	req     request       // the request in hand (here, as the method table would make it escape)
	vals    [][]byte      // a tool call's argument values, see handleToolsCall
	scratch []byte        // where a tool call's argument problems are told, at first in space
	space   [scratchSize]byte
	tooLong rpcError // the reply to a line over max, made when first needed
	log     *logger  // nil unless -v

	r     io.Reader
	w     io.Writer
	state loopState
	big   atomic.Bool            // a big line was read since memory was last given back
	spare atomic.Pointer[[]byte] // where the last big line was joined, see join
}

// newServer returns a server that reads requests from r and writes replies
// to w, skipping lines longer than maxMessage bytes.
func newServer(r io.Reader, w io.Writer, maxMessage int) *server {
	s := &server{r: r, w: w, max: maxMessage}
	s.in = bufio.NewReaderSize(s, readSize)
	s.out = writer{buf: make([]byte, 0, flushSize), out: s.send}
	s.scratch = s.space[:0]
	return s
}

// run serves until input ends (nil), reading or writing fails, or signals
// stop it (errSignalled). Every reply owed is written before it returns,
// but after a second signal.
func (s *server) run() error {
	for {
		line, tooLong, err := s.readLine()
		if err == io.EOF {
			return s.out.flush()
		} else if err != nil {
			return err
		}
		s.answer(line, tooLong)
		s.req = request{} // it points into the line
		if cap(line) >= bigLine {
			spare := line[:0] // a copy, so that only a big line's escapes
			s.spare.Store(&spare)
		}
		if cap(s.scratch) > scratchSize {
			s.scratch = s.space[:0]
		}
		switch {
		case s.out.err != nil:
			return s.out.err
		case s.state.asked():
			if err := s.out.flush(); err != nil {
				return err
			}
			return errSignalled
		}
		s.out.spill()
	}
}

// readLine returns the next line without its "\n" or "\r\n", a last one
// without "\n" included, and io.EOF after it, without reading again: end
// of input is the end, whatever came before it (a terminal may be read
// again after a Ctrl-D). A line that fits the input buffer is returned in
// place; a longer one is collected in pieces and joined once (a big one
// with the collector off, see readingBig); one over the limit is let go
// of as it is read, so it is never held whole, and reported as tooLong,
// unless it is blank. After a failed read, the part of a line before it
// is not answered: it is not known whole.
func (s *server) readLine() (line []byte, tooLong bool, err error) {
	if s.ended {
		return nil, false, io.EOF
	}
	line, err = s.in.ReadSlice('\n')
	if !s.started { // a byte order mark can only lead the input, and is not counted
		line = bytes.TrimPrefix(line, []byte("\uFEFF"))
	}
	var pieces [][]byte
	size, blank := 0, true // bytes of the line before line, in pieces or let go of; all spaces
	for err == bufio.ErrBufferFull {
		if size < bigLine && size+len(line) >= bigLine {
			readingBig(true)
			defer readingBig(false)
		}
		blank = blank && isBlank(line)
		if size += len(line); size-1 <= s.max { // -1: it may end in "\r\n"; no overflow
			pieces = append(pieces, bytes.Clone(line))
		} else if pieces != nil {
			pieces = nil
			s.big.Store(true) // to give back while the line's end is awaited
		}
		line, err = s.in.ReadSlice('\n')
	}
	if s.ended = err == io.EOF; err != nil && (!s.ended || size == 0 && len(line) == 0) {
		return nil, false, err
	}
	s.started = true
	if size-1 > s.max && !(blank && isBlank(line)) {
		return nil, true, nil
	}
	switch {
	case size >= bigLine && pieces != nil:
		line = s.join(pieces, line)
	case len(pieces) > 0:
		line = slices.Concat(append(pieces, line)...)
	}
	pieces = nil // garbage, for readingBig's collection
	if size >= bigLine {
		s.big.Store(true)
	}
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	return line, len(line) > s.max && !isBlank(line), nil
}

// isBlank reports whether b is all JSON whitespace.
func isBlank(b []byte) bool { return len(bytes.Trim(b, " \t\r\n")) == 0 }

// bigReads counts the big lines being read in the process, by every
// server in it (the tests run several at once): the first to start one
// turns the collector off, the last to end one restores it.
var bigReads struct {
	sync.Mutex
	n       int
	percent int // the GC percent to restore
}

// readingBig brackets the reading of a big line, from its first
// megabyte until it is joined: the collector is off in between, and at
// each end runs once, for what the last line left, and for the pieces
// once joined, so that the heap's goal becomes twice the line. Left on,
// the collection that the join's allocation starts runs on while the line
// is answered, its idle worker taking the second core from the client:
// one 16 MiB echo, ./mcp < line > /dev/null, took 70 to 90 ms in place of
// about 40 (the mean of ten, on the machine of the README's figures).
func readingBig(start bool) {
	b := &bigReads
	b.Lock()
	defer b.Unlock()
	runtime.GC()
	switch {
	case start && b.n == 0:
		b.percent = debug.SetGCPercent(-1)
	case !start && b.n == 1:
		debug.SetGCPercent(b.percent)
	}
	if start {
		b.n++
	} else {
		b.n--
	}
}

// join returns a big line's pieces and its last part joined, in the
// space the last big line was joined in if it fits (see spare). Big lines
// back to back then take no new memory, nor leave the last one's behind:
// each line would otherwise cost as much again in faults, as the runtime
// gives the freed memory back to the system before the next takes it.
func (s *server) join(pieces [][]byte, last []byte) []byte {
	n := len(last)
	for _, p := range pieces {
		n += len(p)
	}
	var line []byte
	if spare := s.spare.Swap(nil); spare != nil && cap(*spare) >= n {
		line = (*spare)[:0]
	} else {
		line = make([]byte, 0, n)
	}
	for _, p := range pieces {
		line = append(line, p...)
	}
	return append(line, last...)
}

// Read is what the input buffer reads, when it holds no whole line. It
// writes what is owed first, so an interactive client gets each reply at
// once while pipelined requests are answered in batches; then it reads
// once, as a waiting server (errSignalled if it was stopped meanwhile).
//
// After a big line, once idle for idleRelease, it gives the line's memory
// back to the system, which an idle process would otherwise hold until
// the runtime's forced collection (every 2 minutes) and its scavenger
// return it. Not at once: done after every big line, the input of
// BenchmarkLongLines/1025KiB (300 echoes of 1 MiB) took 0.61-0.70 s of
// CPU in place of 0.28-0.29, more than the lines themselves, as each
// line's memory is taken from the system again. Big lines back to back
// are kept to their bound by readLine.
func (s *server) Read(p []byte) (int, error) {
	if err := s.out.flush(); err != nil {
		return 0, err
	}
	if !s.state.wait() {
		return 0, errSignalled
	}
	var release *time.Timer
	if s.big.Load() {
		release = time.AfterFunc(idleRelease, func() {
			if s.state.idle() && s.big.Swap(false) {
				s.spare.Store(nil)
				debug.FreeOSMemory()
			}
		})
	}
	n, err := s.r.Read(p)
	if release != nil {
		release.Stop()
	}
	if !s.state.wake() {
		return 0, errSignalled
	}
	return n, err
}

// send is the writer's output: it writes all of p, and after a second
// signal stops the loop (returns errSignalled) once the output ends a line.
func (s *server) send(p []byte) error {
	if _, err := s.w.Write(p); err != nil {
		return err
	}
	if s.state.lineEnded(p) {
		return errSignalled
	}
	return nil
}

// ==== Standard I/O and the log ====

// retryReader is a reader that waits out EAGAIN. Another process sharing
// our stdin (a Node wrapper with stdio 'inherit', say) can make it
// non-blocking after we start (golang/go#58408); a short, capped backoff
// is enough, as this happens only in that setup.
type retryReader struct{ r io.Reader }

func (r retryReader) Read(p []byte) (int, error) {
	for wait := time.Millisecond; ; wait = min(2*wait, maxBackoff) {
		n, err := r.r.Read(p)
		switch {
		case !errors.Is(err, syscall.EAGAIN):
			return n, err
		case n > 0:
			return n, nil
		}
		time.Sleep(wait)
	}
}

// retryWriter is a writer that waits out EAGAIN, as retryReader does, and
// writes all of p: a non-blocking pipe takes what fits and refuses the rest.
type retryWriter struct{ w io.Writer }

func (w retryWriter) Write(p []byte) (int, error) {
	n := 0
	for wait := time.Millisecond; n < len(p); {
		m, err := w.w.Write(p[n:])
		n += m
		switch {
		case err == nil:
		case !errors.Is(err, syscall.EAGAIN):
			return n, err
		case m > 0:
			wait = time.Millisecond
		default:
			time.Sleep(wait)
			wait = min(2*wait, maxBackoff)
		}
	}
	return n, nil
}

// logger writes diagnostic lines to standard error from its own goroutine,
// so the protocol never waits on it: a line that finds the queue full is
// dropped and counted, the count written before the next line that gets
// out. It holds at most maxLogLines lines of at most maxLogLine bytes. A
// nil logger logs nothing.
type logger struct {
	lines   chan string
	dropped atomic.Int64 // lines dropped and not yet counted in the log
	closing chan closing // sent by close
	done    chan struct{}
}

// closing is what close tells the log: its last line, the reason for
// stopping, and when to begin counting queued lines instead of writing them.
type closing struct {
	last  string
	hurry time.Time
}

// The log's bounds, and how long close waits for a slow stderr.
const (
	maxLogLines = 1024
	maxLogLine  = 1024
	maxLogField = 100 // the most bytes of a client's text a line shows
	logWait     = time.Second
)

// newLogger starts a logger writing to w.
func newLogger(w io.Writer) *logger {
	l := &logger{lines: make(chan string, maxLogLines), closing: make(chan closing, 1), done: make(chan struct{})}
	go l.loop(w)
	return l
}

// loop writes queued lines to w until close, then the rest of the queue
// and the reason for stopping. Lines still queued half of logWait after
// close are counted instead of written, so that the count and the reason
// still get out in the other half when stderr drains slowly
// (TestLogAccounting reads it late). After a failed write, stderr is
// gone: it writes no more.
func (l *logger) loop(w io.Writer) {
	defer close(l.done)
	var err error
	put := func(line string) {
		if d := l.dropped.Swap(0); d > 0 && err == nil {
			_, err = fmt.Fprintf(w, "mcp: %d log lines dropped\n", d)
		}
		if err == nil {
			_, err = io.WriteString(w, line)
		}
	}
	for {
		select {
		case line := <-l.lines:
			put(line)
		case c := <-l.closing:
			for len(l.lines) > 0 && time.Now().Before(c.hurry) {
				put(<-l.lines)
			}
			for len(l.lines) > 0 {
				<-l.lines
				l.dropped.Add(1)
			}
			put(c.last)
			return
		}
	}
}

// request logs a message's outcome: `mcp: "METHOD" id=ID TIME ok`, or
// `tool error` for a tool result that reports one, or `error CODE` and
// why, if known; for a message that is not a request (method nil),
// `mcp: - id=ID error CODE`. method is the method's JSON string as sent.
func (l *logger) request(method, id []byte, start time.Time, err *rpcError, toolError bool) {
	if l == nil {
		return
	}
	outcome := "ok"
	switch {
	case err.code != 0 && err.reason() != "":
		outcome = "error " + strconv.Itoa(err.code) + ": " + err.reason()
	case err.code != 0:
		outcome = "error " + strconv.Itoa(err.code)
	case toolError:
		outcome = "tool error"
	}
	if method == nil {
		l.printf("mcp: - id=%s %s", logID(id), outcome)
	} else {
		l.printf("mcp: %s id=%s %v %s", logString(method), logID(id), time.Since(start), outcome)
	}
}

// printf queues one line, or drops and counts it; cut at maxLogLine bytes,
// at the start of a character. Its arguments are made before the call,
// so callers without request's nil check make their own. The queue is
// never closed: a line queued after close, as the serve loop may still
// log when a signal stops the process, is lost.
func (l *logger) printf(format string, a ...any) {
	if l == nil {
		return
	}
	if len(l.lines) == cap(l.lines) {
		l.dropped.Add(1) // without making the line
		return
	}
	line := fmt.Sprintf(format, a...)
	if len(line) > maxLogLine {
		n := maxLogLine - 3
		for line[n]&0xC0 == 0x80 {
			n--
		}
		line = line[:n] + "..."
	}
	select {
	case l.lines <- line + "\n":
	default:
		l.dropped.Add(1)
	}
}

// logQuote quotes text for the log, Go-style, so that control characters
// and newlines cannot forge lines or reach the terminal raw; text over
// maxLogField bytes is cut, and its length shown.
func logQuote(b []byte) string {
	return strconv.Quote(string(b[:min(len(b), maxLogField)])) + cutNote(len(b) > maxLogField, len(b))
}

// cutNote is what follows text of n bytes that was cut: "...N bytes".
func cutNote(cut bool, n int) string {
	if !cut {
		return ""
	}
	return "..." + strconv.Itoa(n) + " bytes"
}

// logString shows a JSON string (lit) in the log as its text, quoted by
// logQuote: of a long one, only the start is decoded, and its length as
// sent is shown.
func logString(lit []byte) string {
	body, k := lit[1:len(lit)-1], 0 // body[:k] is decoded, and ends where an escape does
	for k < len(body) && k < maxLookup {
		if body[k] == '\\' {
			_, n := readEscape(body, k)
			k += n
		} else {
			k++
		}
	}
	text := unquote(nil, body[:k])
	return strconv.Quote(string(text[:min(len(text), maxLogField)])) + cutNote(k < len(body) || len(text) > maxLogField, len(body))
}

// logID shows a request id in the log: a string as logString shows it, a
// number as it came, cut the same way, or "null".
func logID(id []byte) string {
	switch {
	case id == nil:
		return "null"
	case id[0] == '"':
		return logString(id)
	}
	return string(id[:min(len(id), maxLogField)]) + cutNote(len(id) > maxLogField, len(id))
}

// close ends the log with last, the reason for stopping, written after
// the lines still queued and the count of those dropped, and waits up to
// logWait for stderr to take them (see loop); if it takes nothing in
// that time, mcp exits without them.
func (l *logger) close(last string) {
	if l == nil {
		return
	}
	l.closing <- closing{last + "\n", time.Now().Add(logWait / 2)}
	select {
	case <-l.done:
	case <-time.After(logWait):
	}
}
