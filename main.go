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
//		Longest accepted line, in bytes (default 64 MiB). A longer line is
//		skipped without being held in memory and answered with an
//		Invalid Request error; the session goes on.
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
// standard output is closed or, at start, if too few file descriptors are
// free, and 2 on a usage error.
package main

// This file is the command: main, which decides the exit status and the
// last log line; the serve loop, reading lines, and what stops it; the
// collector policy for big lines; standard I/O that waits out EAGAIN; and
// the -v logger. Messages are handled in handlers.go.

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
	// scratchSize is the space a tool call's text is made in: add's, and
	// argument problems but for names of hundreds of bytes, fit. A longer
	// text allocates its own, kept until a big line lets it go (forget).
	scratchSize = 1 << 10
	// killWait is how long a second signal lets the line being written take.
	killWait = 2 * time.Second
	// idleRelease is how long the server waits, idle after a big line,
	// before it gives that line's memory back to the operating system.
	idleRelease = time.Second
	// maxBackoff is the longest wait between two tries that got EAGAIN.
	maxBackoff = 20 * time.Millisecond
)

func main() {
	// First: until signal.Notify, SIGINT, SIGTERM and SIGHUP kill the
	// process. Before it run only the runtime's start-up and package
	// initialisation, in which this package makes nothing (see fixed).
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	// A closed stdout or stderr is then a write error, not death by SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)

	flags := flag.CommandLine
	flags.Init("mcp", flag.ContinueOnError)
	flags.SetOutput(io.Discard) // errors and usage are printed below
	maxMessage := flags.Int("max-message-bytes", defaultMaxMessage, "answer lines longer than `N` bytes with an error, and skip them")
	verbose := flags.Bool("v", false, "log one line per request to standard error")
	showVersion := flags.Bool("version", false, "print the version and exit")
	err := flags.Parse(os.Args[1:])
	switch {
	case err == flag.ErrHelp:
		usage(os.Stdout)
		return
	case err == nil && flags.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q", flags.Arg(0))
	case err == nil && *maxMessage < 1:
		err = errors.New("-max-message-bytes must be at least 1")
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
	if err := checkCatalogue(); err != nil {
		fmt.Fprintf(os.Stderr, "mcp: %v\n", err)
		os.Exit(1)
	}
	if err := startPoller(); err != nil {
		fmt.Fprintf(os.Stderr, "mcp: %v\n", err)
		os.Exit(1)
	}

	s := newServer(retryReader{os.Stdin}, retryWriter{os.Stdout}, *maxMessage)
	if *verbose {
		s.log = newLogger(retryWriter{os.Stderr})
	}
	err = serveUntilStopped(s, sigs)
	var stop stopError
	code, why := 0, "end of input"
	switch {
	case errors.As(err, &stop) && stop.second != nil:
		code, why = 128+int(stop.first.(syscall.Signal)), stop.Error()
	case errors.As(err, &stop):
		why = stop.Error()
	case err != nil:
		code, why = 1, err.Error()
	}
	s.log.close("mcp: " + why + ": stopping")
	os.Exit(code)
}

// startPoller starts the Go runtime's poller, which every timer needs (the
// release after a big line, -v's wait at exit, a second signal's
// deadline) and which takes two file descriptors: without them, the first
// timer would be a fatal error mid-session. So two are asked for first, by
// system calls that do not start the poller, unlike os.Open.
func startPoller() error {
	a, errA := syscall.Open(os.DevNull, syscall.O_RDONLY, 0)
	b, errB := syscall.Open(os.DevNull, syscall.O_RDONLY, 0)
	if errA == nil {
		syscall.Close(a)
	}
	if errB == nil {
		syscall.Close(b)
	}
	if errA != nil || errB != nil {
		return errors.New("too few file descriptors: mcp needs 2 besides standard input, output and error (see ulimit -n)")
	}
	time.Sleep(time.Nanosecond) // a timer: the poller starts now, taking the two
	return nil
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

// ==== The serve loop ====

// serveUntilStopped runs the serve loop on a goroutine of its own and
// returns why the process must stop: what run returned, or a stopError.
// It is the one place that receives signals. A first signal asks the loop
// to stop after the request in hand; if the loop is waiting for input
// with every reply written, the process stops at once, leaving run in a
// read that nothing can interrupt. A second signal asks the loop to stop
// at the end of the line being written, and stops anyway after killWait.
func serveUntilStopped(s *server, sigs <-chan os.Signal) error {
	done := make(chan error, 1)
	go func() { done <- s.run() }()
	var stop stopError
	var kill <-chan time.Time
	for {
		select {
		case err := <-done:
			if err == errStopped {
				return stop
			}
			return err
		case sig := <-sigs:
			switch {
			case stop.first == nil:
				stop.first = sig
				s.asked.Store(askStop)
				if s.state.CompareAndSwap(waiting, stopped) {
					return stop
				}
			case stop.second == nil:
				stop.second = sig
				s.asked.Store(askKill)
				kill = time.After(killWait)
			}
		case <-kill:
			return stop
		}
	}
}

// stopError is why the process stopped on signals, see serveUntilStopped.
type stopError struct {
	first, second os.Signal
}

func (e stopError) Error() string {
	if e.second == nil {
		return e.first.String()
	}
	return e.first.String() + ", then " + e.second.String()
}

// errStopped is what run returns when it stopped because it was asked.
var errStopped = errors.New("stopped")

// What serveUntilStopped asks of the serve loop (server.asked), and where
// the loop is (server.state). The loop is stopped from outside only while
// it waits: whoever moves state from waiting, by compare and swap,
// decides, and a loop that finds itself stopped writes nothing more.
const (
	askStop = 1 // stop after the request in hand, every reply owed written
	askKill = 2 // stop at the end of the line being written

	busy    = 0 // answering a line, or writing
	waiting = 1 // in a read, with every reply owed written
	stopped = 2 // stopped while waiting
)

// server is one stdio session: the input it reads, the scanner that reads
// its lines, the writer that holds the replies it owes, and the space it
// reuses so that a request costs no allocation.
type server struct {
	in      *bufio.Reader // reads from the server itself, see Read
	max     int           // the longest line served
	started bool          // a line was read
	held    int           // bytes of the line in hand counted in bigLines
	sc      scanner       // reads the line in hand
	out     writer        // holds the replies owed
	req     request       // the request in hand (here, as the method table would make it escape)
	vals    [][]byte      // a tool call's argument values, see handleToolsCall
	scratch []byte        // where a tool call's text is made, at first in space
	space   [scratchSize]byte
	tooLong rpcError // the reply to a line over max, made when first needed
	log     *logger  // nil unless -v

	r     io.Reader
	w     io.Writer
	asked atomic.Int32 // askStop or askKill, set by serveUntilStopped
	state atomic.Int32 // busy, waiting or stopped
	owed  atomic.Bool  // a big line was answered: give memory back once idle
}

// newServer returns a server that reads requests from r and writes replies
// to w, skipping lines longer than maxMessage bytes.
func newServer(r io.Reader, w io.Writer, maxMessage int) *server {
	s := &server{r: r, w: w, max: maxMessage}
	s.in = bufio.NewReaderSize(s, readSize)
	s.out = writer{buf: make([]byte, 0, flushSize), out: s.write}
	s.scratch = s.space[:0]
	return s
}

// run serves until input ends (nil), reading or writing fails, or it is
// asked to stop (errStopped). Every reply owed is written before it
// returns, but after askKill.
func (s *server) run() error {
	defer s.release() // if run ends inside a big line
	for {
		line, tooLong, err := s.readLine()
		if err == io.EOF {
			return s.out.flush()
		} else if err != nil {
			return err
		}
		if s.answer(line, tooLong); s.held > 0 {
			s.release()
			s.forget()
		}
		switch {
		case s.out.err != nil:
			return s.out.err
		case s.asked.Load() != 0:
			if err := s.out.flush(); err != nil {
				return err
			}
			return errStopped
		case len(s.out.buf) >= flushSize:
			s.out.flush()
		}
	}
}

// readLine returns the next line without its "\n" or "\r\n", a last one
// without "\n" included, and io.EOF after it. A line that fits the input
// buffer is returned in place; a longer one is collected in pieces and
// joined once; one over the limit is dropped as it is read, so its size
// never shows in memory, and reported as tooLong. After a failed read,
// the part of a line before it is not answered: it is not known whole.
func (s *server) readLine() (line []byte, tooLong bool, err error) {
	line, err = s.in.ReadSlice('\n')
	if !s.started { // a byte order mark can only lead the input, and is not counted
		line = bytes.TrimPrefix(line, []byte("\uFEFF"))
	}
	var pieces [][]byte
	size := 0 // bytes of the line before line: in pieces, or dropped
	for err == bufio.ErrBufferFull {
		if size += len(line); size-1 <= s.max { // -1: it may end in "\r\n"; no overflow
			pieces = append(pieces, bytes.Clone(line))
			if size >= bigLine {
				holdBigLine(size - s.held)
				s.held = size
			}
		} else if pieces = nil; s.held > 0 { // over the limit: let go at once
			s.release()
			s.owed.Store(true)
		}
		line, err = s.in.ReadSlice('\n')
	}
	if err != nil && (err != io.EOF || size == 0 && len(line) == 0) {
		return nil, false, err
	}
	if s.started = true; size-1 > s.max {
		return nil, true, nil
	}
	if len(pieces) > 0 {
		line = slices.Concat(append(pieces, line)...)
	}
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	return line, len(line) > s.max, nil
}

// forget lets go of all that points into a big line or grew with it, for
// the collector to take back once idle (see Read): the request in hand,
// the scanner's line, notes and stack (a line of '[' needs a bit each),
// and the space a tool's text was made in.
func (s *server) forget() {
	s.req, s.sc = request{}, scanner{}
	s.scratch = s.space[:0]
	s.owed.Store(true)
}

// release gives back what a big line held in bigLines.
func (s *server) release() {
	holdBigLine(-s.held)
	s.held = 0
}

// Read is what the input buffer reads, when it holds no whole line. It
// writes what is owed first, so an interactive client gets each reply at
// once while pipelined requests are answered in batches; then it reads
// once, as a waiting server (errStopped if it was stopped meanwhile).
// After a big line, once idle for idleRelease, it gives the line's memory
// back to the system, which an idle process would otherwise hold until
// the runtime's forced collection (every 2 minutes) and its scavenger
// return it. Not sooner: done after every big line, that costs 55% more
// CPU a byte on a stream of 1 MiB lines (BenchmarkLongLines/1025KiB).
func (s *server) Read(p []byte) (int, error) {
	if err := s.out.flush(); err != nil {
		return 0, err
	}
	s.state.Store(waiting)
	if s.asked.Load() != 0 { // asked before it could see waiting
		return 0, errStopped
	}
	var release *time.Timer
	if s.owed.Load() {
		release = time.AfterFunc(idleRelease, func() {
			if s.state.Load() == waiting && s.owed.Swap(false) {
				debug.FreeOSMemory()
			}
		})
	}
	n, err := s.r.Read(p)
	if release != nil {
		release.Stop()
	}
	if !s.state.CompareAndSwap(waiting, busy) {
		return 0, errStopped
	}
	return n, err
}

// write is the writer's output: it writes all of p, and after askKill
// stops the loop (returns errStopped) once the output ends a line.
func (s *server) write(p []byte) error {
	if _, err := s.w.Write(p); err != nil {
		return err
	}
	if s.asked.Load() == askKill && p[len(p)-1] == '\n' {
		return errStopped
	}
	return nil
}

// ==== The collector policy for big lines ====

// bigLine is the line length from which the policy below applies, and
// the line's memory is given back once idle: below it, that costs more
// than it saves.
const bigLine = 1 << 20

// bigLines is the collector policy for big lines. While one is read or
// answered, collection is off: it would find next to nothing, and its
// workers would take the second core from the client (with it on, a byte
// of 16 MiB lines costs twice the CPU, of 1 MiB lines 43% more:
// BenchmarkLongLines). A memory limit stands in: what the process used
// when the first big line came, plus twice the bytes held (pieces and
// joined line), plus bigLineSlack, so that whatever else is allocated
// meanwhile (log lines, say) is collected before memory passes that. The
// settings are the process's: the first big line in saves them and the
// last one out restores them, however many servers the process runs
// (the tests run several at once).
var bigLines struct {
	sync.Mutex
	held    int   // bytes of big lines held
	base    int64 // memory in use when the first came
	percent int   // the GC percent to restore
	limit   int64 // the memory limit to restore
}

// bigLineSlack is what the limit allows beyond the rest: room for the
// runtime's own memory and headroom, so that joining a line's pieces does
// not set off a collection.
const bigLineSlack = 4 << 20

// holdBigLine adds n bytes, or takes them away if n is negative, to the
// big lines held.
func holdBigLine(n int) {
	b := &bigLines
	b.Lock()
	defer b.Unlock()
	if n == 0 {
		return
	}
	if b.held == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.base = int64(ms.Sys - ms.HeapReleased) // what the memory limit counts
		b.percent, b.limit = debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
	}
	if b.held += n; b.held > 0 {
		debug.SetMemoryLimit(min(b.limit, b.base+int64(2*b.held+bigLineSlack)))
		return
	}
	debug.SetGCPercent(b.percent)
	debug.SetMemoryLimit(b.limit)
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
// out. It holds at most maxLogLines lines of at most maxLogLine bytes.
type logger struct {
	lines   chan string
	dropped atomic.Int64 // lines dropped and not yet counted in the log
	stop    chan stop    // sent by close
	done    chan struct{}
}

// stop ends the log: the reason for stopping, last, and when to begin
// counting queued lines instead of writing them.
type stop struct {
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
	l := &logger{lines: make(chan string, maxLogLines), stop: make(chan stop, 1), done: make(chan struct{})}
	go l.write(w)
	return l
}

// write writes queued lines to w until close, then the rest of the queue
// and the reason for stopping. Lines still queued half of logWait after
// close are counted instead of written, so that the count and the reason
// still get out in the other half when stderr drains slowly (read at
// 5-20 KiB/s from the end of 300,000 requests, they did; without it, the
// reason was lost with 463-885 lines). After a failed write, stderr is
// gone: it writes no more.
func (l *logger) write(w io.Writer) {
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
		case st := <-l.stop:
			for {
				select {
				case line := <-l.lines:
					if time.Now().Before(st.hurry) {
						put(line)
					} else {
						l.dropped.Add(1)
					}
				default:
					put(st.last)
					return
				}
			}
		}
	}
}

// request logs a message's outcome: `mcp: "METHOD" id=ID TIME ok`, or
// `tool error` for a tool result that reports one, or `error CODE` and
// why, if known; for a message that is not a request (method nil),
// `mcp: - id=ID error CODE`. With a nil logger it costs nothing.
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
		l.printf("mcp: %s id=%s %v %s", logText(method), logID(id), time.Since(start), outcome)
	}
}

// printf queues one line, or drops and counts it. Its arguments are made
// before the call, so callers without request's nil check make their own.
// The queue is never closed: a line queued after close, as the serve loop
// may still log when a signal stops the process, is lost.
func (l *logger) printf(format string, a ...any) {
	if len(l.lines) == cap(l.lines) {
		l.dropped.Add(1) // without making the line
		return
	}
	line := fmt.Sprintf(format, a...)
	if len(line) > maxLogLine {
		line = line[:maxLogLine-3] + "..."
	}
	select {
	case l.lines <- line + "\n":
	default:
		l.dropped.Add(1)
	}
}

// logText quotes client text for the log, Go-style, so that control
// characters and newlines cannot forge lines or reach the terminal raw;
// text over maxLogField bytes is cut, and its length shown.
func logText(b []byte) string {
	return strconv.Quote(string(b[:min(len(b), maxLogField)])) + cut(b)
}

// cut is what follows the start of a text cut at maxLogField bytes.
func cut(b []byte) string {
	if len(b) <= maxLogField {
		return ""
	}
	return "..." + strconv.Itoa(len(b)) + " bytes"
}

// logID shows a request id in the log: a string decoded (if it is short
// enough to be worth it) and quoted by logText, a number as it came, cut
// the same way, or "null".
func logID(id []byte) string {
	switch {
	case id == nil:
		return "null"
	case id[0] == '"' && len(id) <= maxLookup:
		return logText(unquote(nil, id[1:len(id)-1]))
	case id[0] == '"':
		return logText(id[1 : len(id)-1])
	}
	return string(id[:min(len(id), maxLogField)]) + cut(id)
}

// close ends the log with last, the reason for stopping, written after
// the lines still queued and the count of those dropped, and waits up to
// logWait for stderr to take them (see write); if it takes nothing in
// that time, mcp exits without them.
func (l *logger) close(last string) {
	if l == nil {
		return
	}
	l.stop <- stop{last + "\n", time.Now().Add(logWait / 2)}
	select {
	case <-l.done:
	case <-time.After(logWait):
	}
}
