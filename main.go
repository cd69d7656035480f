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
// request order, each a single line of compact JSON on standard output.
// Nothing else is ever written to standard output. Diagnostics go to
// standard error, and only with -v.
//
// The server offers two tools, add (numbers a and b) and echo (string text),
// and one text resource, memo://welcome. It speaks the legacy protocol
// versions 2024-11-05 through 2025-11-25 (initialize handshake, optional)
// and the stateless 2026-07-28 version (server/discover and per-request
// _meta), choosing per request.
//
// Every byte it writes is what JavaScript's JSON.stringify would write for
// the same reply, numbers included, with one exception: a numeric request
// id comes back with the digits it was sent with (1e3 stays 1e3).
//
// The flags are:
//
//	-max-message-bytes N
//		Longest accepted line, in bytes (default 64 MiB). A longer line is
//		skipped without being held in memory and answered with an
//		Invalid Request error; the session goes on.
//	-v
//		Log one line per request to standard error (method, id, duration,
//		error code), client text quoted and cut at 100 bytes, and last
//		the reason for stopping. Lines are dropped and counted, never
//		waited for, if standard error is slow.
//	-version
//		Print the release version and the commit, and exit.
//
// mcp exits 0 when standard input ends, after writing every reply it owes,
// and on the first SIGINT, SIGTERM or SIGHUP, after finishing the request
// in hand. A second signal ends it with status 128+the first signal at the
// end of the line being written, or 2 s after it if that line is stuck.
// If standard output is closed it exits 1.
package main

// This file is the command, in four parts: main, the one place that
// decides the exit status and the last log line; the serve loop (server,
// run), which waits for its input and output together with the signals;
// reading lines and the collector policy for big ones; and standard I/O
// that waits out EAGAIN, and the -v logger. The messages themselves are
// handled in handlers.go.

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
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
	// is not given: far above any real MCP message, far below the
	// machine's memory.
	defaultMaxMessage = 64 << 20

	// readSize is the size of each read from standard input. A pipe holds
	// 64 KiB on Linux, so a larger read would rarely fill.
	readSize = 64 << 10

	// flushSize is how much output may wait for more replies before it is
	// written anyway. A longer reply (a batch, a long echo) is written in
	// pieces of about this size as it is made.
	flushSize = 256 << 10

	// killWait is how long a second signal waits for the line being
	// written to end.
	killWait = 2 * time.Second
)

func main() {
	// First of all: until signal.Notify runs, SIGINT, SIGTERM and SIGHUP
	// kill the process. What is left of that window is the Go runtime's
	// own start-up, before main.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	// A closed stdout or stderr then shows as a write error, not as death
	// by SIGPIPE.
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

	s := newServer(retryReader{os.Stdin}, retryWriter{os.Stdout}, *maxMessage)
	s.sigs = sigs
	if *verbose {
		s.log = newLogger(retryWriter{os.Stderr})
	}
	code, why := exitStatus(s.run())
	s.log.close("mcp: " + why + ": stopping")
	os.Exit(code)
}

// exitStatus turns what run returned into the exit status and the reason
// for stopping that the log ends with.
func exitStatus(err error) (code int, why string) {
	var stop stopError
	switch {
	case err == nil:
		return 0, "end of input"
	case !errors.As(err, &stop):
		return 1, err.Error()
	case stop.second != nil:
		return 128 + int(stop.first.(syscall.Signal)), stop.Error()
	}
	return 0, stop.Error()
}

// usage prints the help text: flags, methods and protocol versions.
func usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: mcp [-max-message-bytes N] [-v]\n       mcp -version\n\n")
	fmt.Fprintf(w, "An MCP server on stdin/stdout: newline-delimited JSON-RPC 2.0.\n\nFlags:\n")
	flag.CommandLine.SetOutput(w)
	flag.PrintDefaults()
	names := make([]string, len(methods))
	for i, m := range methods {
		names[i] = m.name
	}
	fmt.Fprintf(w, "\nMethods: %s\n", strings.Join(names, ", "))
	fmt.Fprintf(w, "Tools: add {a, b: number}, echo {text: string}\nResources: memo://welcome\n")
	fmt.Fprintf(w, "Protocol versions: %s (stateless, server/discover); %s (initialize)\n",
		modernVersion, strings.Join(legacyVersions, ", "))
}

// versionLine is what -version prints: the release version (the one
// initialize and server/discover report) and the commit, e.g.
// "mcp 0.1.0 (9e6afca)", or "(devel)" when the build recorded none, as
// from a source archive. It is the same however the binary was built.
func versionLine() string {
	c := commit
	if bi, ok := debug.ReadBuildInfo(); ok && c == "" {
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if len(rev) >= 7 {
			c = rev[:7]
			if modified == "true" {
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

// stopError is what run returns when signals stopped it: the first stops
// the server after the request in hand, with every reply owed written; a
// second ends it at the end of the line being written, or once that has
// taken killWait.
type stopError struct {
	first, second os.Signal
}

func (e stopError) Error() string {
	if e.second == nil {
		return e.first.String()
	}
	return e.first.String() + ", then " + e.second.String()
}

// errBrokenReply ends the session when a handler fails after part of its
// reply was written: the line cannot be taken back, and anything after it
// would be read as part of it.
var errBrokenReply = errors.New("a handler failed in the middle of a written reply")

// server is one stdio session: the input it reads, the scanner that reads
// its lines, the writer that holds the replies it owes, and the scratch
// space it reuses so a request costs no allocation.
type server struct {
	in lineReader
	scanner
	writer
	vals [][]byte // a tool call's argument values, see handleToolsCall
	log  *logger  // nil unless -v

	r    io.Reader
	w    io.Writer
	io   stdio
	sigs <-chan os.Signal // nil when nothing sends signals (tests)
	stop stopError        // the signals received so far
	kill <-chan time.Time // after a second signal: when to stop mid-line
}

// newServer returns a server that reads requests from r and writes replies
// to w, skipping lines longer than maxMessage bytes.
func newServer(r io.Reader, w io.Writer, maxMessage int) *server {
	s := &server{r: r, w: w}
	s.in = lineReader{buf: make([]byte, readSize), max: maxMessage}
	s.writer = writer{buf: make([]byte, 0, flushSize), out: s.write}
	return s
}

// run serves until input ends (nil), a signal stops it (a stopError), or
// reading or writing fails. Every reply owed is written before it
// returns, but after a second signal.
func (s *server) run() error {
	s.io = startIO(s.r, s.w)
	defer close(s.io.calls)
	defer s.in.release() // if run ends inside a big line
	for {
		line, tooLong, ok := s.in.next()
		if !ok {
			// No whole line is buffered: write what is owed, so an
			// interactive client gets each reply at once while pipelined
			// requests are answered in batches, then read more.
			if err := s.flush(); err != nil || s.in.err != nil {
				if err == nil && s.in.err != io.EOF {
					err = s.in.err
				}
				return err
			}
			s.io.calls <- ioCall{p: s.in.space()}
			res, ok := s.await(false)
			if !ok {
				return s.stop
			}
			s.in.filled(res.n, res.err)
			continue
		}
		s.answer(line, tooLong)
		if s.in.held > 0 {
			s.letGo()
		}
		for len(s.sigs) > 0 { // only run receives: this cannot block
			s.signaled(<-s.sigs)
		}
		switch {
		case s.err != nil:
			return s.err
		case s.stop.first != nil:
			if err := s.flush(); err != nil {
				return err
			}
			return s.stop
		case len(s.buf) >= flushSize:
			s.flush()
		}
	}
}

// letGo is called once a big line is answered: it writes the reply, turns
// the collector back on and gives the memory the line took back to the
// operating system, at once: an idle process runs no collection of its
// own, and would otherwise keep a huge request's memory (this costs about
// 1 ms after a 16 MiB line, 5 ms after a 64 MiB one).
func (s *server) letGo() {
	s.flush()
	s.in.release()
	s.line, s.stack = nil, nesting{} // the line, and the bit stack of a deep one
	debug.FreeOSMemory()
}

// write is the writer's output: it writes all of p. After a second signal
// it stops the server (returns s.stop) as soon as what was written ends
// with a whole line, or when that takes longer than killWait.
func (s *server) write(p []byte) error {
	s.io.calls <- ioCall{p: p, write: true}
	res, ok := s.await(true)
	switch {
	case !ok:
		return s.stop
	case res.err != nil:
		return res.err
	case s.stop.second != nil && p[len(p)-1] == '\n':
		return s.stop
	}
	return nil
}

// await waits for the read or write in flight, noting signals as they
// come, and reports false when the server must stop without waiting for
// it: on any signal during a read (nothing is owed then), and once a
// second signal's killWait has passed during a write.
func (s *server) await(writing bool) (ioResult, bool) {
	for {
		select {
		case res := <-s.io.done:
			return res, true
		case sig := <-s.sigs:
			s.signaled(sig)
			if !writing {
				return ioResult{}, false
			}
		case <-s.kill:
			return ioResult{}, false
		}
	}
}

// signaled records a signal: the first asks the server to stop after the
// request in hand, the second to stop within killWait.
func (s *server) signaled(sig os.Signal) {
	switch {
	case s.stop.first == nil:
		s.stop.first = sig
	case s.stop.second == nil:
		s.stop.second = sig
		s.kill = time.After(killWait)
	}
}

// stdio does a server's blocking reads and writes on a goroutine of its
// own, one at a time, so that run can wait for each together with the
// signals: nothing can interrupt a read of a pipe that stays silent or a
// write to one that nobody reads, and the server must still stop. Calls
// takes the read or write to do, and done gives its result; done has room
// for one, so a call that run gave up on cannot keep the goroutine from
// ending once calls is closed.
type stdio struct {
	calls chan ioCall
	done  chan ioResult
}

// ioCall is a read into p, or a write of all of p.
type ioCall struct {
	p     []byte
	write bool
}

// ioResult is what a read or write returned.
type ioResult struct {
	n   int
	err error
}

// startIO starts the goroutine that reads r and writes w.
func startIO(r io.Reader, w io.Writer) stdio {
	c := stdio{calls: make(chan ioCall), done: make(chan ioResult, 1)}
	go func() {
		for call := range c.calls {
			var res ioResult
			if call.write {
				res.n, res.err = w.Write(call.p)
			} else {
				res.n, res.err = r.Read(call.p)
			}
			c.done <- res
		}
	}()
	return c
}

// ==== Reading lines ====

// lineReader splits input into lines without a length limit of its own:
// a line that fits in buf is returned in place; a longer one is collected
// in pieces and joined once; one longer than max is dropped piece by piece
// as it is read, so its size never shows in memory. It does no I/O: space
// says where the next read goes, filled what it brought.
type lineReader struct {
	buf        []byte // buf[start:end] is read but not yet returned
	start, end int
	max        int
	err        error // from the last read; io.EOF at the end of input
	started    bool  // the first line was returned (a BOM can only lead it)

	pieces  [][]byte // earlier parts of a line longer than buf
	size    int      // bytes in pieces
	discard bool     // the current line is over max: drop it up to '\n'
	held    int      // bytes counted in bigLines, see holdBigLine
}

// bom is the UTF-8 byte order mark, ignored at the very start of input.
var bom = []byte{0xEF, 0xBB, 0xBF}

// next returns the next line without its "\n" or "\r\n", if a whole one
// is buffered; ok is false when more must be read first (or, with err
// set, when input has ended). tooLong reports a line over the limit, whose
// bytes are gone. At the end of input a last line without "\n" is
// returned before ok turns false; after a failed read it is not.
func (lr *lineReader) next() (line []byte, tooLong, ok bool) {
	data := lr.buf[lr.start:lr.end]
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		lr.start += i + 1
		line, tooLong = lr.finish(data[:i])
		return line, tooLong, true
	}
	if lr.err != io.EOF || len(data) == 0 && len(lr.pieces) == 0 && !lr.discard {
		// More to read, nothing left, or a failed read: what came before
		// the failure is not known to be a whole message.
		return nil, false, false
	}
	lr.start = lr.end
	line, tooLong = lr.finish(data)
	return line, tooLong, true
}

// space makes room for a read and returns where it goes: the start of a
// line moves to the front of buf, so each read can take what a pipe holds
// (64 KiB) rather than what is left at the end; a buf that one line fills
// is kept as a piece of it, or reused if the line is over the limit.
func (lr *lineReader) space() []byte {
	if lr.start > 0 {
		lr.end = copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.start = 0
	}
	if lr.end == len(lr.buf) {
		lr.keep(lr.buf)
		if !lr.discard {
			lr.buf = make([]byte, readSize)
		}
		lr.end = 0
	}
	return lr.buf[lr.end:]
}

// filled records a read into space of n bytes that returned err.
func (lr *lineReader) filled(n int, err error) {
	lr.end += n
	lr.err = err
}

// keep holds on to part of a long line, or drops them all once the line
// is known to be over the limit.
func (lr *lineReader) keep(piece []byte) {
	if lr.discard {
		return
	}
	lr.pieces = append(lr.pieces, piece)
	lr.size += len(piece)
	if lr.size >= bigLine {
		holdBigLine(lr.size - lr.held)
		lr.held = lr.size
	}
	if lr.size-1 > lr.max { // -1: the line may end in "\r\n"
		lr.pieces, lr.size, lr.discard = nil, 0, true
	}
}

// release gives back what a big line held in bigLines.
func (lr *lineReader) release() {
	holdBigLine(-lr.held)
	lr.held = 0
}

// finish completes a line whose last part is tail.
func (lr *lineReader) finish(tail []byte) (line []byte, tooLong bool) {
	first := !lr.started
	lr.started = true
	last := tail // the line's last part, whose last byte may be '\r'
	if len(last) == 0 && len(lr.pieces) > 0 {
		last = lr.pieces[len(lr.pieces)-1]
	}
	cr := len(last) > 0 && last[len(last)-1] == '\r'
	n := lr.size + len(tail)
	if cr {
		n-- // the limit is on the message, not its line ending
	}
	if lr.discard || n > lr.max {
		lr.pieces, lr.size, lr.discard = nil, 0, false
		return nil, true
	}
	line = tail
	if len(lr.pieces) > 0 {
		line = make([]byte, 0, lr.size+len(tail))
		for _, p := range lr.pieces {
			line = append(line, p...)
		}
		line = append(line, tail...)
		lr.pieces, lr.size = nil, 0
	}
	if cr {
		line = line[:len(line)-1]
	}
	if first {
		line = bytes.TrimPrefix(line, bom)
	}
	return line, false
}

// bigLine is the line length from which the collector policy below
// applies, and the memory a line took is given back once it is answered.
// Below it, doing so costs more than it saves.
const bigLine = 1 << 20

// bigLines is the collector policy for big lines. While any server holds
// one, being read or answered, collection is off: it would find next to
// nothing, only pieces of the line that are still needed, and its workers
// would take the second core from the client writing or reading the line
// (a 16 MiB echo through pipes took 84-144 ms with it on, 50-62 ms with it
// off, medians of 9 spawns on the development machine). A memory limit
// of twice the bytes held plus bigLineSlack stands in for it, so that
// whatever else answering them allocates (log lines, decoded names) is
// collected before memory passes that. debug.SetGCPercent and
// SetMemoryLimit act on the whole process, so the state is kept here,
// once, whatever the number of servers: the first line in saves the
// settings, the last one out restores them.
var bigLines struct {
	sync.Mutex
	held    int   // bytes of big lines held, over all servers
	percent int   // the GC percent to restore
	limit   int64 // the memory limit to restore
}

// bigLineSlack is the memory a big line's limit allows beyond twice its
// bytes: room for the rest of the process (buffers, the scan's notes,
// the log's queue) without collecting all the time.
const bigLineSlack = 8 << 20

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
		b.percent, b.limit = debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
	}
	if b.held += n; b.held > 0 {
		debug.SetMemoryLimit(min(b.limit, int64(2*b.held+bigLineSlack)))
		return
	}
	debug.SetGCPercent(b.percent)
	debug.SetMemoryLimit(b.limit)
}

// ==== Standard I/O and the log ====

// retryReader is a reader that waits out EAGAIN. Another process sharing
// our stdin (a Node wrapper with stdio 'inherit', say) can make it
// non-blocking after we start; the Go runtime then hands us EAGAIN
// (golang/go#58408), which would end the session. A short, capped backoff
// is enough: this happens only in that setup.
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

// maxBackoff is the longest wait between two tries of a read or write that
// returned EAGAIN.
const maxBackoff = 20 * time.Millisecond

// logger writes diagnostic lines to standard error from its own goroutine,
// so the protocol never waits on it: a line that finds the queue full is
// dropped and counted, and the count is written before the next line that
// gets out. What it holds is bounded: maxLogLines lines of at most
// maxLogLine bytes, whatever the client sends.
type logger struct {
	lines   chan string
	dropped atomic.Int64 // lines dropped and not yet counted in the log
	hurry   atomic.Bool  // close is out of patience: count queued lines, do not write them
	last    string       // the reason for stopping, written after everything else
	done    chan struct{}
	scratch []byte // where the serve loop formats a line
	text    []byte // a string id, decoded
}

// The log's bounds, and how long close waits for a slow stderr.
const (
	maxLogLines = 1024
	maxLogLine  = 1024
	logPatience = 500 * time.Millisecond
)

// newLogger starts a logger writing to w.
func newLogger(w io.Writer) *logger {
	l := &logger{lines: make(chan string, maxLogLines), done: make(chan struct{})}
	go l.write(w)
	return l
}

// write is the logger's goroutine. After a failed write, stderr is gone:
// it writes nothing more.
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
	for line := range l.lines {
		if l.hurry.Load() {
			l.dropped.Add(1)
			continue
		}
		put(line)
	}
	put(l.last)
}

// request logs a message's outcome: `mcp: "METHOD" id=ID TIME ok`, or
// `error CODE` for ok; and for a line that never became a request (method
// nil), `mcp: - id=ID error CODE`. A nil logger costs nothing.
func (l *logger) request(method, id []byte, start time.Time, code int) {
	if l == nil || l.full() {
		return
	}
	b := append(l.scratch[:0], "mcp: "...)
	if method == nil {
		b = append(b, '-')
	} else {
		b = appendLogText(b, method)
	}
	b = append(b, " id="...)
	switch {
	case id == nil:
		b = append(b, "null"...)
	case id[0] == '"' && len(id) <= maxLookup:
		l.text = unquote(l.text[:0], id[1:len(id)-1])
		b = appendLogText(b, l.text)
	case id[0] == '"': // too long to be worth decoding
		b = appendLogText(b, id[1:len(id)-1])
	default:
		b = appendCut(append(b, id[:min(len(id), maxLogField)]...), id)
	}
	if method != nil {
		b = append(append(b, ' '), time.Since(start).String()...)
	}
	if code == 0 {
		b = append(b, " ok"...)
	} else {
		b = strconv.AppendInt(append(b, " error "...), int64(code), 10)
	}
	l.add(b)
	l.scratch = b[:0]
}

// printf logs a line of its own. Its arguments are made before the call,
// so callers check for a nil logger first.
func (l *logger) printf(format string, a ...any) {
	if !l.full() {
		l.add(fmt.Appendf(nil, format, a...))
	}
}

// maxLogField is the most bytes of a client's text that a log line shows.
const maxLogField = 100

// appendLogText appends client text for the log, quoted Go-style, so that
// control characters and newlines cannot forge lines or reach the
// terminal raw, and cut after maxLogField bytes (see appendCut).
func appendLogText(b, text []byte) []byte {
	return appendCut(strconv.AppendQuote(b, string(text[:min(len(text), maxLogField)])), text)
}

// appendCut says, after the start of text that b ends with, how long
// text is, if it was cut: "...1048576 bytes".
func appendCut(b, text []byte) []byte {
	if len(text) <= maxLogField {
		return b
	}
	return append(strconv.AppendInt(append(b, "..."...), int64(len(text)), 10), " bytes"...)
}

// full reports whether a line would be dropped now; checking it first
// saves formatting the line.
func (l *logger) full() bool {
	if len(l.lines) < cap(l.lines) {
		return false
	}
	l.dropped.Add(1)
	return true
}

// add queues one line, without its newline, or drops and counts it. It is
// only called by the serve loop.
func (l *logger) add(line []byte) {
	if len(line) > maxLogLine {
		line = append(line[:maxLogLine-3], "..."...)
	}
	select {
	case l.lines <- string(append(line, '\n')):
	default:
		l.dropped.Add(1)
	}
}

// close ends the log with last, the reason for stopping, written after
// every line still queued and the count of those dropped. If stderr has
// not taken them within logPatience, the queued lines are counted as
// dropped instead of written, so the count and last still get out; if
// stderr takes nothing for logPatience more, close gives up, and they are
// lost.
func (l *logger) close(last string) {
	if l == nil {
		return
	}
	l.last = last + "\n"
	close(l.lines)
	select {
	case <-l.done:
		return
	case <-time.After(logPatience):
	}
	l.hurry.Store(true)
	select {
	case <-l.done:
	case <-time.After(logPatience):
	}
}
