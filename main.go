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
//		error code). Lines are dropped, never waited for, if standard
//		error is slow.
//	-version
//		Print the version and exit.
//
// mcp exits 0 when standard input ends, after writing every reply it owes,
// and on the first SIGINT or SIGTERM, after finishing the request in hand.
// A second signal ends it at once. If standard output is closed it exits 1
// quietly.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// version is the binary's version; release builds set it with
// -ldflags "-X main.version=v1.2.3". When it is empty, the module version
// recorded by the Go toolchain is used, else "devel".
var version string

// defaultMaxMessage is the longest line served when -max-message-bytes is
// not given: far above any real MCP message, far below the machine's memory.
const defaultMaxMessage = 64 << 20

// readSize is the size of each read from standard input. A pipe holds
// 64 KiB on Linux, so a larger read would rarely fill.
const readSize = 64 << 10

// flushSize is how much output may wait for more replies before it is
// written anyway, so pipelined replies are batched without growing without
// bound.
const flushSize = 256 << 10

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
		fmt.Println("mcp", buildVersion())
		return
	}
	if *maxMessage < 1 {
		fmt.Fprintln(os.Stderr, "mcp: -max-message-bytes must be at least 1")
		os.Exit(2)
	}

	s := newServer(os.Stdin, os.Stdout, *maxMessage)
	if *verbose {
		s.log = newLogger(os.Stderr)
	}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go s.stopOnSignal(sig)
	// A closed stdout or stderr then shows as a write error, not as death
	// by SIGPIPE: the log drops its lines and goes on; run returns and
	// main exits 1.
	signal.Ignore(syscall.SIGPIPE)

	err := s.run()
	if errors.Is(err, errStopped) || err == nil {
		if s.log != nil {
			s.log.close()
		}
		os.Exit(0)
	}
	// Standard output is gone or standard input failed: there is no one
	// to tell on stdout, and stderr may be gone too.
	if s.log != nil {
		s.log.printf("mcp: %v", err)
		s.log.close()
	}
	os.Exit(1)
}

// usage prints the help text: flags, methods and protocol versions.
func usage() {
	w := flag.CommandLine.Output()
	fmt.Fprintf(w, "Usage: mcp [-max-message-bytes N] [-v]\n       mcp -version\n\n")
	fmt.Fprintf(w, "An MCP server on stdin/stdout: newline-delimited JSON-RPC 2.0.\n\nFlags:\n")
	flag.PrintDefaults()
	fmt.Fprintf(w, "\nMethods: %s\n", methodList)
	fmt.Fprintf(w, "Tools: add {a, b: number}, echo {text: string}\nResources: memo://welcome\n")
	fmt.Fprintf(w, "Protocol versions: %s (stateless, server/discover); %s (initialize)\n",
		modernVersion, legacyVersionList)
}

// buildVersion is the version -version prints.
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// errStopped is returned by run when a signal asked the server to stop.
var errStopped = errors.New("stopped by signal")

// server is one stdio session: the input it reads, the replies it owes,
// and the scratch space it reuses so a request costs no allocation.
type server struct {
	in  lineReader
	w   io.Writer
	out []byte // replies not yet written; written whole lines at a time

	stack   []byte          // open containers while validating a message
	spans   []span          // objects and arrays of the line, see scan
	members []member        // members of the objects in spans
	open    []int           // spans of the containers open while scanning
	lineCap int             // cap of the line scanned, see spanOf
	scratch []byte          // decoded strings that carry escapes
	vals    [maxArgs][]byte // a tool call's argument values

	log  *logger // nil unless -v
	code int     // error code of the request in hand, for the log

	// mu is held by run except while it waits for input, so a signal
	// handler that takes it knows no reply is half-made and all owed
	// replies are written.
	mu   sync.Mutex
	stop atomic.Bool // set by a signal: finish the request in hand, then stop
}

// newServer returns a server that reads requests from r and writes replies
// to w, skipping lines longer than maxMessage bytes.
func newServer(r io.Reader, w io.Writer, maxMessage int) *server {
	s := &server{
		w:     w,
		out:   make([]byte, 0, flushSize),
		stack: make([]byte, 0, 64),
	}
	s.in = lineReader{r: r, buf: make([]byte, readSize), max: maxMessage}
	return s
}

// serve answers every request read from r on w until r ends. It is the
// whole server without flags or signals, for tests and fuzzing.
func serve(r io.Reader, w io.Writer) error {
	return newServer(r, w, defaultMaxMessage).run()
}

// run serves until input ends (nil), a signal stops it (errStopped), or
// reading or writing fails. Every reply owed is written before it returns.
func (s *server) run() error {
	s.mu.Lock()
	defer s.mu.Unlock()
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
		if tooLong {
			s.replyTooLong()
		} else {
			s.handleLine(line)
		}
		if len(s.out) >= flushSize {
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
	s.mu.Unlock()
	s.in.fill()
	s.mu.Lock()
	if s.stop.Load() {
		return errStopped
	}
	return nil
}

// flush writes the pending replies.
func (s *server) flush() error {
	if len(s.out) == 0 {
		return nil
	}
	_, err := s.w.Write(s.out)
	if cap(s.out) > 4*flushSize {
		// A huge reply was written: let its buffer go rather than keep
		// it for the life of the process.
		s.out = make([]byte, 0, flushSize)
	} else {
		s.out = s.out[:0]
	}
	return err
}

// stopOnSignal implements graceful stop: on the first signal, wait for the
// request in hand, write what is owed and exit 0; on a second, exit at once.
func (s *server) stopOnSignal(sig <-chan os.Signal) {
	first := <-sig
	s.stop.Store(true)
	go func() {
		<-sig
		os.Exit(128 + int(first.(syscall.Signal)))
	}()
	s.mu.Lock() // run is waiting for input or has finished a request
	code := 0
	if s.flush() != nil {
		code = 1
	}
	if s.log != nil {
		s.log.printf("mcp: %v: stopping", first)
		s.log.close()
	}
	os.Exit(code)
}

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
	gcOff     bool     // collection is off while a long line is read
	gcPercent int      // the setting to restore when it ends
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
		if lr.err != io.EOF || len(data) == 0 && len(lr.pieces) == 0 && !lr.discard {
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
	if len(lr.pieces) == 0 {
		// Reading a long line makes no garbage, only pieces that are all
		// still needed: collecting while they pile up would find nothing
		// and only slow the read. The collector comes back in finish.
		lr.gcPercent, lr.gcOff = debug.SetGCPercent(-1), true
	}
	lr.pieces = append(lr.pieces, piece)
	lr.size += len(piece)
	if lr.size-1 > lr.max { // -1: the line may end in "\r\n"
		lr.pieces, lr.size, lr.discard = nil, 0, true
	}
}

// finish completes a line whose last part is tail.
func (lr *lineReader) finish(tail []byte) (line []byte, tooLong bool) {
	first := !lr.started
	lr.started = true
	n := lr.size + len(tail)
	if last := tail; len(last) > 0 || len(lr.pieces) > 0 {
		if len(last) == 0 {
			last = lr.pieces[len(lr.pieces)-1]
		}
		if last[len(last)-1] == '\r' {
			n-- // the limit is on the message, not its line ending
		}
	}
	if lr.gcOff {
		defer func() {
			debug.SetGCPercent(lr.gcPercent)
			lr.gcOff = false
			// Give the pieces back now: otherwise the reply to a huge
			// message is allocated while they still count, and the peak
			// is 3x its size instead of 2x.
			debug.FreeOSMemory()
		}()
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
	if first {
		line = bytes.TrimPrefix(line, bom)
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, false
}

// logger writes diagnostic lines to standard error from its own goroutine,
// dropping lines when that falls behind so the protocol never waits on it.
type logger struct {
	lines chan string
	done  chan struct{}

	mu     sync.Mutex // main and a signal handler may both log and close
	closed bool
}

// newLogger starts a logger writing to w.
func newLogger(w io.Writer) *logger {
	l := &logger{lines: make(chan string, 1024), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		for line := range l.lines {
			if _, err := io.WriteString(w, line); err != nil {
				for range l.lines {
				}
				return
			}
		}
	}()
	return l
}

// printf queues one line, or drops it if the queue is full.
func (l *logger) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	select {
	case l.lines <- fmt.Sprintf(format+"\n", args...):
	default:
	}
}

// close writes what is queued, waiting at most a moment for a slow stderr.
func (l *logger) close() {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.lines)
	}
	l.mu.Unlock()
	select {
	case <-l.done:
	case <-time.After(100 * time.Millisecond):
	}
}
