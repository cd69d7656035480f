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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
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
	s := newServer(retryReader{os.Stdin}, retryWriter{os.Stdout}, *max, tools)
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

// server is one session on a pair of streams.
type server struct {
	in       *bufio.Reader // reads lines through the server itself (see Read)
	out      *bufio.Writer // holds replies until no further request is read
	r        io.Reader
	max      int    // the longest line served
	doc      doc    // the line in hand, read as JSON
	tools    []tool // the catalogue served
	toolList []any  // its tools/list entries
	log      *logger
	started  bool // a line was read: no byte order mark is skipped any more
	ended    bool // the input ended

	// The loop sets waiting, then reads stopping; a signal sets stopping,
	// then reads waiting. So either the signal sees the loop waiting for
	// input, with every reply written, and the process may exit at once,
	// or the loop sees stopping before it writes again.
	waiting  atomic.Bool // in a read, with every reply owed written
	stopping atomic.Bool // a signal asked the loop to stop after the request in hand
}

// newServer returns a server that reads requests from r, writes replies
// to w, answers lines of up to max bytes and serves the tools given.
func newServer(r io.Reader, w io.Writer, max int, tools []tool) *server {
	s := &server{r: r, max: max, tools: tools, toolList: toolList(tools)}
	s.in = bufio.NewReaderSize(s, 1<<20)
	s.out = bufio.NewWriterSize(w, 64<<10)
	return s
}

// errStopped is what serve returns when a signal stopped it.
var errStopped = errors.New("stopped by a signal")

// serve answers each line until the input ends (nil), reading or writing
// fails, or a signal stops it (errStopped); every reply owed is written
// first.
func (s *server) serve() error {
	for {
		line, tooLong, err := s.readLine()
		if err == io.EOF {
			return s.out.Flush()
		} else if err != nil {
			return err
		}
		s.answer(line, tooLong)
		s.doc.line = nil // so that it can go while the next is read
		if err := s.writeFailed(); err != nil {
			return err
		}
		if s.stopping.Load() {
			if err := s.out.Flush(); err != nil {
				return err
			}
			return errStopped
		}
	}
}

// writeFailed returns the error that ended writing, if any: bufio.Writer
// keeps its first error, and every later Write returns it.
func (s *server) writeFailed() error {
	_, err := s.out.Write(nil)
	return err
}

// Read is what the line reader reads through. It writes the replies owed
// first, so that an interactive client gets each reply at once while
// pipelined requests are answered in batches; then it waits for input,
// unless a signal asked the loop to stop (errStopped).
func (s *server) Read(p []byte) (int, error) {
	if err := s.out.Flush(); err != nil {
		return 0, err
	}
	if s.waiting.Store(true); s.stopping.Load() {
		return 0, errStopped
	}
	n, err := s.r.Read(p)
	if s.waiting.Store(false); s.stopping.Load() {
		return 0, errStopped
	}
	return n, err
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
			if s.stopping.Store(true); s.waiting.Load() {
				return 0, sig.String()
			}
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
