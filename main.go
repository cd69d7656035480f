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
// the same reply, numbers included, so that line-for-line comparisons with
// a reference written in JavaScript hold.
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
//		the reason for stopping. Lines are dropped, never waited for, if
//		standard error is slow.
//	-version
//		Print the release version and the commit, and exit.
//
// mcp exits 0 when standard input ends, after writing every reply it owes,
// and on the first SIGINT, SIGTERM or SIGHUP, after finishing the request
// in hand. A second signal ends it at the end of the line being written,
// or after 2 s. If standard output is closed it exits 1 quietly.
package main

// This file is the command, in four parts: main, its flags and -version;
// the serve loop (server, run), with the stop on a signal and the memory
// given back when idle; reading lines (lineReader); and standard I/O that
// waits out EAGAIN, and the -v logger. The messages themselves are
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

// defaultMaxMessage is the longest line served when -max-message-bytes is
// not given: far above any real MCP message, far below the machine's memory.
const defaultMaxMessage = 64 << 20

// readSize is the size of each read from standard input. A pipe holds
// 64 KiB on Linux, so a larger read would rarely fill.
const readSize = 64 << 10

// flushSize is how much output may wait for more replies before it is
// written anyway, so pipelined replies are batched without growing without
// bound. A longer reply (a batch, a long echo) is written in pieces of
// about this size as it is made.
const flushSize = 256 << 10

// bigLine is the line length from which reading the line turns the
// collector off and the server gives its memory back once idle. Below it,
// doing so costs more than it saves: lines of 70 KiB took 8-26x the CPU of
// 60 KiB ones when every line over the 64 KiB read buffer did.
const bigLine = 1 << 20

// idleRelease is how long the server waits, idle after a big line, before
// it gives the memory that line needed back to the operating system.
const idleRelease = time.Second

func main() {
	maxMessage := flag.Int("max-message-bytes", defaultMaxMessage, "answer lines longer than `N` bytes with an error, and skip them")
	verbose := flag.Bool("v", false, "log one line per request to standard error")
	showVersion := flag.Bool("version", false, "print the version and exit")
	flag.Usage = usage
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "mcp: unexpected argument %q\n", flag.Arg(0))
		usage()
		os.Exit(2)
	}
	if *showVersion {
		fmt.Println(versionLine())
		return
	}
	if *maxMessage < 1 {
		fmt.Fprintln(os.Stderr, "mcp: -max-message-bytes must be at least 1")
		os.Exit(2)
	}

	s := newServer(retryReader{os.Stdin}, retryWriter{os.Stdout}, *maxMessage)
	if *verbose {
		s.log = newLogger(os.Stderr)
	}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go s.stopOnSignal(sig)
	// A closed stdout or stderr then shows as a write error, not as death
	// by SIGPIPE: the log drops its lines and goes on; run returns and
	// main exits 1.
	signal.Ignore(syscall.SIGPIPE)

	err := s.run()
	if errors.Is(err, errStopped) || err == nil {
		// A signal's stop is logged by stopOnSignal, which exits.
		s.log.close("mcp: end of input: stopping")
		os.Exit(0)
	}
	// Standard output is gone or standard input failed: there is no one
	// to tell on stdout, and stderr may be gone too.
	s.log.close(fmt.Sprintf("mcp: %v: stopping", err))
	os.Exit(1)
}

// usage prints the help text: flags, methods and protocol versions.
func usage() {
	w := flag.CommandLine.Output()
	fmt.Fprintf(w, "Usage: mcp [-max-message-bytes N] [-v]\n       mcp -version\n\n")
	fmt.Fprintf(w, "An MCP server on stdin/stdout: newline-delimited JSON-RPC 2.0.\n\nFlags:\n")
	flag.PrintDefaults()
	fmt.Fprintf(w, "\nMethods: %s\n", strings.Join(methods, ", "))
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

// errStopped is returned by run when a signal asked the server to stop.
var errStopped = errors.New("stopped by signal")

// server is one stdio session: the input it reads, the scanner that reads
// its lines, the writer that holds the replies it owes, and the scratch
// space it reuses so a request costs no allocation.
type server struct {
	in lineReader
	scanner
	writer
	vals   [maxArgs][]byte // a tool call's argument values
	broken bool            // part of a reply was written, then its handler failed

	log *logger // nil unless -v

	// mu is held by run except while it waits for input, so a signal
	// handler that takes it knows no reply is half-made and all owed
	// replies are written.
	mu    sync.Mutex
	stop  atomic.Bool // set by a signal: finish the request in hand, then stop
	idle  atomic.Bool // run is waiting for input
	armed atomic.Bool // a release of memory is scheduled
}

// newServer returns a server that reads requests from r and writes replies
// to w, skipping lines longer than maxMessage bytes.
func newServer(r io.Reader, w io.Writer, maxMessage int) *server {
	s := &server{writer: writer{dst: w, buf: make([]byte, 0, flushSize)}}
	s.in = lineReader{r: r, buf: make([]byte, readSize), max: maxMessage}
	return s
}

// serve answers every request read from r on w until r ends. It is the
// whole server without flags or signals, for tests and fuzzing.
func serve(r io.Reader, w io.Writer) error {
	return newServer(r, w, defaultMaxMessage).run()
}

// errBrokenReply ends the session when a handler fails after part of its
// reply was written: the line cannot be taken back, and anything after it
// would be read as part of it.
var errBrokenReply = errors.New("a handler failed in the middle of a written reply")

// run serves until input ends (nil), a signal stops it (errStopped), or
// reading or writing fails. Every reply owed is written before it returns.
func (s *server) run() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.in.restoreGC()
	for {
		line, tooLong, ok := s.in.next()
		if !ok {
			if s.in.err != nil {
				if err := s.flush(); err != nil {
					return err
				}
				if s.in.err == io.EOF {
					return nil
				}
				return s.in.err
			}
			if err := s.wait(); err != nil {
				return err
			}
			continue
		}
		s.answer(line, tooLong)
		switch {
		case s.broken:
			return errBrokenReply // the rest of that reply is not written
		case s.err != nil:
			return s.err
		case len(s.buf) >= flushSize:
			if err := s.flush(); err != nil {
				return err
			}
		}
		if s.stop.Load() {
			if err := s.flush(); err != nil {
				return err
			}
			return errStopped
		}
	}
}

// wait is called when no whole line is buffered. It writes what is owed,
// so an interactive client gets each reply at once while pipelined
// requests are answered in batches, then reads more input with mu
// released, so a signal can stop the server while it waits.
func (s *server) wait() error {
	if err := s.flush(); err != nil {
		return err
	}
	s.in.restoreGC()
	if s.in.big {
		s.shrink()
	}
	s.mu.Unlock()
	s.idle.Store(true)
	s.in.fill()
	s.idle.Store(false)
	s.mu.Lock()
	if s.stop.Load() {
		return errStopped
	}
	return nil
}

// shrink lets go of the buffers a big line grew and, once the server has
// been idle for idleRelease, gives their memory back to the operating
// system: an idle process runs no collection of its own, and would
// otherwise keep a huge request's memory for good.
func (s *server) shrink() {
	s.in.big = false
	s.scanner.shrink()
	s.writer.shrink()
	if s.armed.CompareAndSwap(false, true) {
		time.AfterFunc(idleRelease, s.release)
	}
}

// release returns free memory to the operating system if the server is
// still waiting for input, or tries again later.
func (s *server) release() {
	if !s.idle.Load() {
		time.AfterFunc(idleRelease, s.release)
		return
	}
	debug.FreeOSMemory()
	s.armed.Store(false)
}

// stopOnSignal implements graceful stop: on the first signal, wait for the
// request in hand, write what is owed and exit 0. It exits the process
// itself because run may be blocked in a read of stdin, which nothing can
// interrupt. A second signal exits sooner, but at the end of a line.
func (s *server) stopOnSignal(sig <-chan os.Signal) {
	first := <-sig
	s.stop.Store(true)
	go func() {
		<-sig
		s.exitAtLineEnd(128 + int(first.(syscall.Signal)))
	}()
	s.mu.Lock() // run is waiting for input or has finished a request
	code := 0
	if s.flush() != nil {
		code = 1
	}
	s.log.close(fmt.Sprintf("mcp: %v: stopping", first))
	os.Exit(code)
}

// exitAtLineEnd exits with code once what was written to stdout ends with
// a whole line, so the client never reads half a message; if the line in
// hand is not done within 2 s (a client that stopped reading), it exits
// anyway. The write lock is held while exiting, so no write can start.
func (s *server) exitAtLineEnd(code int) {
	deadline := time.Now().Add(2 * time.Second)
	for {
		if s.writing.TryLock() {
			if !s.lineOpen {
				os.Exit(code)
			}
			s.writing.Unlock()
		}
		if time.Now().After(deadline) {
			os.Exit(code)
		}
		time.Sleep(time.Millisecond)
	}
}

// ==== Reading lines ====

// lineReader splits input into lines without a length limit of its own:
// a line that fits in buf is returned in place; a longer one is collected
// in pieces and joined once; one longer than max is dropped piece by piece
// as it is read, so its size never shows in memory.
type lineReader struct {
	r          io.Reader
	buf        []byte // buf[start:end] is read but not yet returned
	start, end int
	max        int
	err        error // from the last read; io.EOF at the end of input
	started    bool  // the first line was returned (a BOM can only lead it)

	pieces    [][]byte // earlier parts of a line longer than buf
	size      int      // bytes in pieces
	discard   bool     // the current line is over max: drop it up to '\n'
	gcOff     bool     // collection is off while a big line is read and answered
	gcPercent int      // the setting to restore after, see restoreGC
	big       bool     // a line of bigLine bytes or more was read
}

// bom is the UTF-8 byte order mark, ignored at the very start of input.
var bom = []byte{0xEF, 0xBB, 0xBF}

// next returns the next line without its "\n" or "\r\n", if a whole one
// is buffered; ok is false when fill must be called first (or, with err
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
	if lr.err != nil {
		lr.start = lr.end
		if lr.err != io.EOF || (len(data) == 0 && len(lr.pieces) == 0 && !lr.discard) {
			// Nothing left, or a failed read: what came before the
			// failure is not known to be a whole message.
			return nil, false, false
		}
		line, tooLong = lr.finish(data)
		return line, tooLong, true
	}
	return nil, false, false
}

// fill reads once from the input, making room first: the start of a
// line goes to the front of the buffer, so each read can take what a
// pipe holds (64 KiB) rather than what is left at the end.
func (lr *lineReader) fill() {
	if lr.start > 0 {
		lr.end = copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.start = 0
	}
	if lr.end == len(lr.buf) {
		// The whole buffer is part of one line: keep it and read on into
		// a new one, or reuse it if the line is over the limit.
		lr.keep(lr.buf)
		if !lr.discard {
			lr.buf = make([]byte, len(lr.buf))
		}
		lr.end = 0
	}
	n, err := lr.r.Read(lr.buf[lr.end:])
	lr.end += n
	if err != nil {
		lr.err = err
	}
}

// keep holds on to part of a long line, or drops it once the line is known
// to be over the limit.
func (lr *lineReader) keep(piece []byte) {
	if lr.discard {
		return
	}
	lr.pieces = append(lr.pieces, piece)
	lr.size += len(piece)
	if lr.size >= bigLine && !lr.gcOff {
		// Reading and answering a big line makes little garbage, only
		// pieces that are all still needed: a collection then would find
		// next to nothing, and its mark workers would take the second
		// core from the client for tens of milliseconds (a 16 MiB echo
		// through pipes took 61-93 ms with it on, 36-37 ms with it off,
		// medians of 9). The collector comes back once the line is
		// answered, in restoreGC.
		lr.gcPercent, lr.gcOff = debug.SetGCPercent(-1), true
	}
	if lr.size-1 > lr.max { // -1: the line may end in "\r\n"
		lr.pieces, lr.size, lr.discard = nil, 0, true
	}
}

// restoreGC turns collection back on once a big line has been read and
// answered, unless the next line is already a long one.
func (lr *lineReader) restoreGC() {
	if lr.gcOff && len(lr.pieces) == 0 && !lr.discard {
		debug.SetGCPercent(lr.gcPercent)
		lr.gcOff = false
	}
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
	if lr.size >= bigLine || lr.discard {
		lr.big = true // the server gives the memory back once idle
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
// dropping lines when that falls behind so the protocol never waits on it.
// What it holds is bounded in bytes, whatever the client sends.
type logger struct {
	lines   chan string
	done    chan struct{}
	queued  atomic.Int64 // bytes in lines
	dropped atomic.Int64 // lines dropped since the last one written

	mu     sync.Mutex // main and a signal handler may both log and close
	closed bool
	last   string // the reason for stopping, written after everything else
}

// maxLogQueue is the most log text waiting for a slow stderr, in bytes.
const maxLogQueue = 1 << 20

// newLogger starts a logger writing to w.
func newLogger(w io.Writer) *logger {
	l := &logger{lines: make(chan string, 1024), done: make(chan struct{})}
	go l.write(w)
	return l
}

// write is the logger's goroutine. After a failed write it only drains
// the queue, so that printf never blocks.
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
		l.queued.Add(-int64(len(line)))
		put(line)
	}
	put(l.last)
}

// printf queues one line, or drops it if the queue is full.
func (l *logger) printf(format string, args ...any) {
	if l == nil {
		return
	}
	line := fmt.Sprintf(format+"\n", args...)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.queued.Load()+int64(len(line)) > maxLogQueue {
		l.dropped.Add(1)
		return
	}
	select {
	case l.lines <- line:
		l.queued.Add(int64(len(line)))
	default:
		l.dropped.Add(1)
	}
}

// close ends the log with last, the reason for stopping, which is written
// after every line still queued. If stderr is too slow to take them, the
// queued lines are dropped so that last still gets out; if it takes
// nothing at all, close gives up after a moment.
func (l *logger) close(last string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		l.last = last + "\n"
		close(l.lines)
	}
	l.mu.Unlock()
	select {
	case <-l.done:
		return
	case <-time.After(100 * time.Millisecond):
	}
	for range l.lines {
		l.dropped.Add(1)
	}
	select {
	case <-l.done:
	case <-time.After(100 * time.Millisecond):
	}
}
