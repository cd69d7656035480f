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
// SIGINT, SIGTERM or SIGHUP, once the lines read are answered (a second signal:
// at once, with status 128+the first); 1 if standard input or output
// fails or the catalogue of tools has a mistake; 2 on a usage error, or
// an MCP_STATE_KEY (which signs 2026-07-28's requestState) that is not
// 64 hex digits or more.
package main

// This file is the command: flags, the serve loop and what stops it,
// calls that run side by side, reading lines, and the -v log.
// handlers.go answers each line.

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
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
	if key, err := hex.DecodeString(os.Getenv("MCP_STATE_KEY")); err == nil && len(key) >= 32 {
		stateKey = key
	} else if err != nil || len(key) > 0 { // set, but not a key
		fmt.Fprintln(os.Stderr, "mcp: MCP_STATE_KEY must be at least 64 hex digits (a key of 32 bytes or more)")
		os.Exit(2)
	}
	if err := checkCatalogue(tools, resources); err != nil {
		fmt.Fprintf(os.Stderr, "mcp: %v\n", err)
		os.Exit(1)
	}
	// Standard input and output are the protocol's: fmt.Println and a
	// child given os.Stdout write to standard error, and a tool reading
	// os.Stdin, or a child given it, reads nothing.
	protocolIn, protocolOut := os.Stdin, os.Stdout
	os.Stdout = os.Stderr
	if null, err := os.Open(os.DevNull); err == nil {
		os.Stdin = null
	}
	s := newServer(retryReader{protocolIn}, retryWriter{protocolOut}, *max, tools)
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

// server is one session on a pair of streams. Its goroutines own its
// fields by group: the loop (see loop) reads each line and answers it,
// running even a tool itself until the call runs long, when another
// goroutine takes the loop on (see tick) and this one finishes the call;
// calls run on their own goroutines too when they had to wait for room
// (see start); whoever makes output ready writes it, one at a time (see
// drain), each reply in its turn. What they share is under mu.
type server struct {
	// Fixed when made.
	max                        int    // the longest line served
	tools                      []tool // the catalogue served, and its tools/list entries
	toolList                   []any
	resourceList, templateList []any          // resources' list entries,
	readResults                []map[bool]any // and each fixed one's reads, legacy and 2026-07-28
	log                        *logger
	ctx                        context.Context         // every call's context is made from it;
	stop                       context.CancelCauseFunc // the first signal ends it (errStopped)
	timer                      *time.Timer             // ticks while the loop runs calls (see tick)

	// The loop's.
	in       *lineReader
	full     bool                    // room must be asked for before going on (see owe)
	cur      line                    // the line being answered, if any
	acks     []value                 // the subscriptions it opened, acknowledged after its reply
	agreed   string                  // the version initialize agreed, if any
	canAsk   bool                    // and whether, then, a tool may ask the person (see ask)
	inBatch  bool                    // a batch's element is answered: a call reports no progress
	shared   context.Context         // the context of the calls the loop runs, while none is
	unshare  context.CancelCauseFunc // cancelled or handed off: one for each saves 25% a call
	subs     []value                 // ids of the subscriptions opened (see handleListen), none once ended,
	gaps     int                     // how many of them have ended (see cancelled),
	subIndex map[string]int          // and the index in subs of each open, by key

	out   *bufio.Writer // the pen holder's (see drain):
	taken struct {      // what it took to write,
		notes    [][]byte
		replies  []reply
		question []byte // a tool's, sent once the replies before its call's are (see ask)
		opened   int    // and how many replies the batch array being written has, or -1
	}

	mu       sync.Mutex
	changed  sync.Cond            // broadcast when what follows changes so that one waiting may go on
	replies  []reply              // what is owed, in request order, from the first not yet written;
	written  int                  // how many were written before replies[0] (see toolCall.place);
	notes    [][]byte             // notifications to write at once
	held     int                  // the cost of replies and of calls waiting: the loop waits past maxHeld
	running  []*toolCall          // calls running, at most maxCalls,
	cost     int                  // of this cost in all (see toolCall.cost),
	waiting  []*toolCall          // and calls waiting for room, in order,
	index    map[string]*toolCall // by id key
	asked    int                  // how many questions tools asked (see ask),
	asking   map[string]*toolCall // and, by id key, the calls whose question waits
	eof      chan struct{}        // closed when the input ends: no answer will come
	inline   *toolCall            // the call the loop runs itself, if any
	ticking  bool                 // the timer is set
	pen      bool                 // a goroutine writes (see drain),
	again    bool                 // and more was made ready meanwhile
	idle     bool                 // the loop waits for input
	ended    bool                 // the loop has ended: the input ended, or a signal stopped it
	stopping bool                 // a signal stops mcp
	err      error                // why reading or writing failed
}

// reply is a place in the order of what mcp writes: the reply a request
// is owed (kind 'r'), made at once or when its call returns; a batch's
// array opening or closing ('[', ']'); a subscription's acknowledgement
// ('a'); or nothing (0: a call the client cancelled).
type reply struct {
	kind   byte
	ready  bool // made
	id     value
	result any
	err    *rpcError
	cost   int       // what it holds until written, counted in held
	call   *toolCall // the call it is of, from its start (see due); released once it is written
}

// The bounds on what the loop keeps while calls run (see room and
// start): past maxCalls calls running, or maxHeld of calls and replies
// held, the next call waits its turn; past maxHeld held, the loop waits.
const (
	maxCalls = 16
	maxHeld  = 16 << 20
)

// keptCost is about what a reply or a call costs beyond the bytes of its
// line: its places in the queues, its id, its result's own memory.
// Counted, it holds a run of short lines to maxHeld as it holds long ones
// (TestReadAheadBound).
const keptCost = 256

// handOffAfter is how often the timer ticks while the loop runs calls,
// and how long a call runs before it is handed off (see tick); waiting
// for the runtime's timer, about a millisecond when all else waits. One
// that ends sooner costs no goroutine, and calls share the ticks: handing
// off any call a tick lands in moved the loop to another core thousands
// of times a second, and cost the bench a tenth of its throughput.
const handOffAfter = time.Millisecond / 4

// newServer returns a server that reads requests from r, writes replies
// to w, answers lines of up to max bytes and serves the tools given.
func newServer(r io.Reader, w io.Writer, max int, tools []tool) *server {
	s := &server{max: max, tools: tools, toolList: toolList(tools), subIndex: map[string]int{}, index: map[string]*toolCall{}}
	s.asking, s.eof = map[string]*toolCall{}, make(chan struct{})
	s.resourceList, s.templateList, s.readResults = resourceLists(resources)
	s.ctx, s.stop = context.WithCancelCause(context.Background())
	s.in = newLineReader(func(p []byte) (int, error) { return s.read(r, p) }, max)
	s.out, s.taken.opened = bufio.NewWriterSize(w, 64<<10), -1
	s.changed.L = &s.mu
	s.timer = time.AfterFunc(time.Hour, s.tick)
	s.timer.Stop()
	return s
}

// errStopped is what serve returns when a signal stopped it, and the
// cause of every call's context then.
var errStopped = errors.New("stopped by a signal")

// serve answers each line until the input ends (nil), reading or writing
// fails, or a signal stops it (errStopped): once the loop has ended and
// every call has returned, it ends each subscription open and writes
// every reply owed.
func (s *server) serve() error {
	go s.loop()
	s.mu.Lock()
	for s.err == nil && (!s.ended || len(s.running)+len(s.waiting) > 0) {
		s.changed.Wait()
	}
	if s.err != nil {
		defer s.mu.Unlock()
		return s.err
	}
	for _, id := range s.subs { // the loop's no more
		if id.exists() {
			end := obj{{"resultType", "complete"}, {"_meta", obj{{metaSubscriptionID, id}}}}
			s.replies = append(s.replies, reply{kind: 'r', ready: true, id: id, result: end})
		}
	}
	s.subs = nil
	s.mu.Unlock()
	s.drain()
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.err == nil && (s.pen || len(s.replies) > 0) {
		s.changed.Wait()
	}
	switch {
	case s.err != nil:
		return s.err
	case s.stopping:
		return errStopped
	case s.in.err != io.EOF:
		return s.in.err // the loop has ended
	}
	return nil
}

// loop answers lines in order until the input ends, reading fails or a
// signal stops it, or until the call it runs is handed off (see tick).
func (s *server) loop() {
	for !s.full || s.room() {
		if s.cur.msg.exists() {
			if s.step() {
				return
			}
			continue
		}
		line, tooLong, err := s.in.next()
		if err != nil {
			s.mu.Lock()
			s.ended = true
			close(s.eof) // once: no loop reads after this one
			s.changed.Broadcast()
			s.mu.Unlock()
			return
		}
		s.cur = s.parse(line, tooLong)
	}
}

// room writes what is ready, then waits while replies and calls waiting
// still hold maxHeld, for calls to return; it reports whether the loop
// goes on: not once writing failed. The loop asks only when owe or start
// found it full.
func (s *server) room() bool {
	s.full = false
	s.drain()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held >= maxHeld {
		s.log.notice("mcp: reading paused while replies wait: %d held", len(s.replies)+len(s.waiting))
	}
	for s.held >= maxHeld && s.err == nil {
		for _, c := range s.running { // no answer can be read now: one asked since held dipped, too
			s.unask(c, errPaused)
		}
		s.changed.Wait()
	}
	return s.err == nil
}

// read is how the loop reads standard input, r: the one place it waits
// for input, so it writes what is ready first, and a signal that comes
// meanwhile stops mcp at once (see stopNow); input read after it is
// dropped.
func (s *server) read(r io.Reader, p []byte) (int, error) {
	s.drain()
	s.mu.Lock()
	if s.stopping || s.err != nil {
		s.mu.Unlock()
		return 0, errStopped
	}
	s.idle = true
	s.mu.Unlock()
	n, err := r.Read(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idle = false; s.stopping {
		return 0, errStopped
	}
	return n, err
}

// stopNow is the first signal: every call's context ends; a loop waiting
// for input ends at once, else after the lines already read.
func (s *server) stopNow() {
	s.stop(errStopped)
	s.mu.Lock()
	s.stopping, s.ended = true, s.ended || s.idle
	for _, c := range s.running { // a question waits no more, whatever its context
		s.unask(c, errStopped)
	}
	s.changed.Broadcast()
	s.mu.Unlock()
}

// owe adds r to what is owed, with the cost it holds until written, and
// notes whether the loop must wait for room (see room): once writing
// failed, or past maxHeld, or past drainEvery replies, as a batch of
// millions of errors would hold them all before the next read.
func (s *server) owe(r reply) {
	s.mu.Lock()
	s.replies, s.held = append(s.replies, r), s.held+r.cost
	s.full = s.held >= maxHeld || s.err != nil || len(s.replies) >= drainEvery
	s.mu.Unlock()
}

// drainEvery is how many replies the loop owes at most before it writes
// them (see owe).
const drainEvery = 1024

// drain writes what is ready, in order, and flushes: notifications, then
// each reply whose turn has come (see due). Whoever makes output ready
// calls it: the loop before it reads, a call that returns on its own
// goroutine, a tool's progress. One at a time writes, holding the pen,
// never mu; it writes too what others made ready meanwhile.
func (s *server) drain() {
	s.mu.Lock()
	if s.pen {
		s.again = true
		s.mu.Unlock()
		return
	}
	s.pen = true
	for {
		s.again = false
		n := s.due()
		s.mu.Unlock()
		for _, note := range s.taken.notes {
			s.out.Write(note)
		}
		clear(s.taken.notes)
		for _, r := range s.taken.replies {
			if s.taken.opened = s.writeOne(r, s.taken.opened); r.call != nil {
				r.call.release()
			}
		}
		clear(s.taken.replies)
		s.out.Write(s.taken.question)
		if n == 0 {
			s.out.Flush()
		}
		_, err := s.out.Write(nil) // the first error writing, if any
		s.mu.Lock()
		if s.err = cmp.Or(s.err, err); n == 0 && !s.again || s.err != nil {
			break
		}
	}
	s.pen = false
	s.changed.Broadcast()
	s.mu.Unlock()
}

// due takes, with mu held, the notifications to write (none inside a
// batch's array, which is one line), the replies ready to be written,
// and the question of the call whose reply is next, if it asks one (see
// ask), and returns how many.
func (s *server) due() int {
	t := &s.taken
	if t.notes = t.notes[:0]; t.opened <= 0 { // not inside a batch's array
		t.notes = append(t.notes, s.notes...)
		clear(s.notes)
		s.notes = s.notes[:0]
	}
	n := 0
	for n < len(s.replies) && s.replies[n].ready && (n == 0 || s.replies[n-1].kind != ']' || len(s.notes) == 0) {
		s.held -= s.replies[n].cost
		n++
	}
	t.replies, t.question = append(t.replies[:0], s.replies[:n]...), nil
	if n < len(s.replies) && !s.replies[n].ready && s.replies[n].call != nil && s.replies[n].call.question != nil {
		t.question, s.replies[n].call.question = s.replies[n].call.question, nil
	}
	if n > 0 { // else, with replies waiting behind a call, a copy per line read
		rest := copy(s.replies, s.replies[n:]) // most often none: replies keeps its room
		clear(s.replies[rest:])
		s.replies, s.written = s.replies[:rest], s.written+n
	}
	return n + len(t.notes) + len(t.question)
}

// writeOne writes r, given how many replies the batch array being
// written has, -1 if none, and returns that after r.
func (s *server) writeOne(r reply, opened int) int {
	w := s.out
	switch r.kind {
	case '[':
		return 0
	case ']':
		if opened > 0 {
			w.WriteString("]\n")
		}
		return -1
	case 'a':
		writeJSON(w, obj{{"jsonrpc", "2.0"}, {"method", "notifications/subscriptions/acknowledged"},
			{"params", obj{{"_meta", obj{{metaSubscriptionID, r.id}}}, {"notifications", obj{}}}}})
	case 'r':
		if opened >= 0 {
			w.WriteByte("[,"[min(opened, 1)])
			s.writeReply(r.id, r.result, r.err)
			return opened + 1
		}
		s.writeReply(r.id, r.result, r.err)
	default:
		return opened
	}
	w.WriteByte('\n')
	return opened
}

// serveUntilStopped serves on a goroutine of its own, and returns the exit
// status and why the server stopped: the end of input, a failure, or
// signals, which it is the one place to receive: the first stops mcp
// gracefully (see stopNow), a second at once.
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
			s.stopNow()
		}
	}
}

// ==== Calls: tools, and resources read by a function ====

// toolCall is a call of a tool, or a read of a resource by its function:
// the request, what it runs, its place in the order of replies, its
// context, and what its tool adds to its result.
type toolCall struct {
	mu     sync.Mutex   // guards gen, what a tool adds to its result, and its questions, from any goroutine
	gen    uint64       // which use of the toolCall (see calls): what a goroutine of an earlier one adds is dropped
	refs   atomic.Int32 // run, and the writing of its reply, each done with it once
	asking sync.Mutex   // held while a question waits for its answer: one at a time (see ask)
	callState
}

// callState is a toolCall's, but for what its reuse keeps.
type callState struct {
	id         value             // the request's
	tool       *tool             // a tool's call,
	res        *resource         // or a resource's read;
	in         arguments         // a tool's arguments, checked;
	args       value             // as given, or the URI read,
	vars       map[string]string // with its template's variables
	token      value             // the progress token, if progress is sent
	srv        *server           // the server it runs on, which asks its questions (see ask)
	canAsk     bool              // the client can ask the person
	rounds     []round           // 2026-07-28: its questions asked before, with the answers given (see ask);
	asked      int               // under mu: how many it has asked,
	pending    obj               // and the result that asks the first unanswered
	question   []byte            // legacy, under the server's mu: a question to send (see due),
	askID      string            // the id of the one waiting, if any (see ask),
	reply      chan answer       // and what ends its wait
	start      time.Time         // when it was read, for the log
	place      int               // its reply's place in the order (see written)
	cost       int               // what it holds: its arguments' bytes and keptCost
	ctx        context.Context
	cancel     context.CancelCauseFunc
	handedOff  bool // under the server's mu: the loop ran it, and went on without it;
	dropped    bool // or, waiting, the client cancelled it
	toolResult      // its result, if a tool's; under mu
	returned   bool // under mu: run returned, so nothing more is added, no progress sent
}

// calls are the toolCalls done with, to reuse: a call then allocates
// nothing of its own. A tool's goroutines that outlive it may still hold
// one, which gen tells from the call that reuses it.
var calls = sync.Pool{New: func() any { return new(toolCall) }}

// newCall returns a toolCall for st, reused if one is free.
func newCall(st callState) *toolCall {
	c := calls.Get().(*toolCall)
	c.mu.Lock()
	c.gen, c.callState = c.gen+1, st
	c.mu.Unlock()
	c.refs.Store(2)
	return c
}

// release is run's, or the writing of c's reply's: the second frees c,
// holding its line no more.
func (c *toolCall) release() {
	if c.refs.Add(-1) == 0 {
		c.id, c.in, c.args, c.vars, c.token, c.rounds, c.pending = value{}, arguments{}, value{}, nil, value{}, nil, nil
		calls.Put(c)
	}
}

// The causes of a call's context's end that are not a signal; and what
// else ends a question's wait (see ask).
var (
	errClientCancelled = errors.New("cancelled by the client")
	errTimedOut        = errors.New("time limit passed")
	errReturned        = errors.New("the tool returned")
	errPaused          = fmt.Errorf("%w: mcp stopped reading while replies wait", errCannotAsk)
)

// start gives c, a call, its place in the order of replies and runs it:
// here, on the loop's goroutine, if fewer than maxCalls run, none waits
// and its cost fits (or none runs), else on its own goroutine once there
// is room (see run). It reports whether the loop went on without it.
func (s *server) start(c *toolCall) (handedOff bool) {
	if s.shared == nil || s.shared.Err() != nil {
		s.shared, s.unshare = context.WithCancelCause(s.ctx)
	}
	c.ctx, c.cancel = s.shared, s.unshare
	s.mu.Lock()
	s.replies = append(s.replies, reply{kind: 'r', id: c.id, call: c}) // its call, for its question (see due)
	if c.place = s.written + len(s.replies) - 1; !s.fits(c) {
		c.ctx, c.cancel = context.WithCancelCause(s.ctx)
		s.waiting, s.held, s.index[c.id.key()] = append(s.waiting, c), s.held+c.cost, c
		s.full = s.held >= maxHeld || s.err != nil
		s.mu.Unlock()
		return false
	}
	if c.start.IsZero() { // as dispatch times it for -v
		c.start = time.Now()
	}
	s.running, s.cost, s.inline = append(s.running, c), s.cost+c.cost, c
	if !s.ticking {
		s.ticking = true
		s.timer.Reset(handOffAfter)
	}
	s.mu.Unlock()
	return s.run(c)
}

// fits reports, with mu held, whether c may run now (see start).
func (s *server) fits(c *toolCall) bool {
	return len(s.waiting) == 0 && len(s.running) < maxCalls && (len(s.running) == 0 || s.cost+c.cost <= maxHeld)
}

// method is the method of c's request.
func (c *toolCall) method() string {
	if c.tool != nil {
		return "tools/call"
	}
	return "resources/read"
}

// run runs c in its context, which ends when the client cancels it, a
// signal stops mcp or its tool's time limit passes; then it puts c's
// reply in its place (none if the client cancelled it), logs it, and
// starts the calls waiting that now fit. It reports whether the loop went
// on without it, if the loop ran it.
func (s *server) run(c *toolCall) (handedOff bool) {
	ctx := c.ctx
	if c.tool != nil && c.tool.timeout > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, c.tool.timeout, errTimedOut)
		defer stop()
	}
	result, err := s.outcome(c, ctx) // a tool's sets c.returned (see call)
	cause := context.Cause(ctx)
	switch {
	case cause == errClientCancelled:
		result, err = nil, errCancelled
	case cause == errTimedOut && c.tool != nil:
		c.text, c.isError, c.extras = fmt.Sprintf("tool %s did not finish within its time limit of %v", c.tool.name, c.tool.timeout), true, nil
	}
	s.mu.Lock()
	s.unask(c, errReturned) // one a goroutine of its tool asks
	r := &s.replies[c.place-s.written]
	r.ready, r.result, r.err, r.cost, r.call, s.held = true, result, err, c.cost, c, s.held+c.cost
	if err == errCancelled {
		r.kind = 0
	}
	i := slices.Index(s.running, c)
	s.running, s.cost = slices.Delete(s.running, i, i+1), s.cost-c.cost
	for len(s.waiting) > 0 {
		w := s.waiting[0]
		if !w.dropped && (len(s.running) == maxCalls || len(s.running) > 0 && s.cost+w.cost > maxHeld) {
			break
		}
		if s.waiting[0], s.waiting = nil, s.waiting[1:]; w.dropped {
			w.release() // its run's
			continue
		}
		if key := w.id.key(); s.index[key] == w {
			delete(s.index, key)
		}
		s.running, s.cost, s.held = append(s.running, w), s.cost+w.cost, s.held-w.cost
		go s.run(w)
	}
	shared := !c.handedOff && s.inline == c
	if handedOff = c.handedOff; shared {
		s.inline = nil
	} else {
		s.changed.Broadcast()
	}
	s.mu.Unlock()
	if !shared {
		c.cancel(nil) // what the tool started sees it end
		s.drain()
	}
	if s.log != nil {
		s.logged(c.method(), c.id, c.start, result, err)
	}
	c.release()
	return handedOff
}

// outcome runs c's tool or read in ctx, and returns its reply's result
// or error: a panic is Internal error, and the session goes on.
func (s *server) outcome(c *toolCall, ctx context.Context) (result any, err *rpcError) {
	defer func() {
		if p := recover(); p != nil {
			c.mu.Lock()
			c.returned = true // as call does when the tool returns
			c.mu.Unlock()
			result, err = nil, errInternal
			s.log.printf("mcp: panic in %s: %s", quoteText(c.method()), quoteText(fmt.Sprint(p)))
		}
	}()
	if c.res != nil {
		return c.read(ctx)
	}
	var report func(done, total float64, message string)
	if token, gen := c.token, c.gen; token.exists() {
		last := math.Inf(-1) // the progress last sent
		report = func(done, total float64, message string) { s.report(c, gen, token, &last, done, total, message) }
	}
	return c.call(ctx, report)
}

// tick runs every handOffAfter while the loop runs calls: when the loop
// runs a call that has run that long, a goroutine of its own takes the
// loop on, so that a call running long holds up no line after it, and
// the replies before it are written; the call's goroutine finishes it.
func (s *server) tick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.inline
	if s.ticking = c != nil; c == nil {
		return
	}
	if time.Since(c.start) >= handOffAfter {
		c.handedOff, s.inline, s.shared = true, nil, nil // c keeps its context
		go s.loop()
		go s.drain() // the replies before c
	}
	s.timer.Reset(handOffAfter)
}

// cancelCall acts on the client's cancellation of the request whose id
// has key: a call running sees its context end; one waiting for room is
// dropped, with no reply. It reports whether one did.
func (s *server) cancelCall(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.running {
		if c.id.key() == key {
			c.cancel(errClientCancelled)
			s.unask(c, errClientCancelled) // at once: a line read after is read after the client is told
			return true
		}
	}
	c := s.index[key]
	if c == nil {
		return false
	}
	delete(s.index, key)
	s.log.printf("mcp: %s id=%s cancelled before its turn", quoteText(c.method()), logID(c.id))
	c.dropped, c.id, c.args, c.in, c.token, c.rounds = true, value{}, value{}, arguments{}, value{}, nil // left in waiting: no value of its line
	c.cancel(errClientCancelled)
	s.replies[c.place-s.written] = reply{ready: true, cost: keptCost}
	c.release() // its reply's
	s.held -= c.cost
	s.changed.Broadcast()
	return true
}

// report sends c's progress for token at once, if done is past the last,
// both numbers are ones JSON can write, and c has neither returned nor
// been cancelled. A tool may call it from any goroutine.
func (s *server) report(c *toolCall, gen uint64, token value, last *float64, done, total float64, message string) {
	finite := func(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }
	c.mu.Lock()
	if c.gen != gen || c.returned || c.ctx.Err() != nil || done <= *last || !finite(done) || !finite(total) {
		c.mu.Unlock()
		return
	}
	*last = done
	ctx := c.ctx // c may be reused once its lock is let go
	params := obj{{"progressToken", token}, {"progress", done}}
	if total > 0 {
		params = append(params, member{"total", total})
	}
	if message != "" {
		params = append(params, member{"message", message})
	}
	line := []byte(quote(obj{{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", params}}) + "\n")
	s.mu.Lock()
	s.notes = append(s.notes, line) // before c returns, and so before its reply
	s.mu.Unlock()
	c.mu.Unlock()
	s.drain()
	s.mu.Lock() // a tool reporting faster than the client reads waits
	for len(s.notes) >= maxNotes && s.err == nil && ctx.Err() == nil {
		s.changed.Wait()
	}
	s.mu.Unlock()
}

// maxNotes is how many notifications may wait to be written: past it, a
// tool's progress waits (see report).
const maxNotes = 64

// answer is what ends a question's wait (see ask): the client's response,
// or why none will come.
type answer struct {
	msg value
	err error
}

// answered hands msg, the client's response to the question whose id is
// id, to the tool waiting for it; a response to no question sent and
// waiting (one mcp never asked, has not sent yet, or whose wait ended) is
// ignored.
func (s *server) answered(id, msg value) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.asking[id.key()]
	if c == nil || c.question != nil {
		s.log.printf("mcp: - id=%s a response to no question waiting: ignored", logID(id))
		return
	}
	c.reply <- answer{msg: msg} // room for one, and only one is sent
	delete(s.asking, id.key())
	c.askID = ""
}

// unask ends, with mu held, the wait of c's question, if one waits, for
// why (nil: the input ended): a response that comes now is ignored, and
// the client, if it was asked and can still read, is told why, so that it
// can stop asking.
func (s *server) unask(c *toolCall, why error) {
	if c.askID == "" {
		return
	}
	if c.question == nil && why != nil {
		note := obj{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", obj{{"requestId", c.askID}, {"reason", why.Error()}}}}
		s.notes = append(s.notes, []byte(quote(note)+"\n"))
	}
	c.reply <- answer{err: why}
	delete(s.asking, "s"+c.askID)
	c.askID, c.question = "", nil
}

// ask sends c's question, the params of an elicitation/create request, to
// the client of a legacy session, once the replies before c's are written
// (see due), and returns the result of its response. An error response is
// errCannotAsk, saying why; so is the end of input. ctx's end ends the
// wait too, with its cause, as do c's return, a signal, and reading paused
// (see unask's callers); after any of them, no question is asked, as no
// answer could end it. c's questions are asked one at a time.
func (s *server) ask(ctx context.Context, c *toolCall, question obj) (value, error) {
	c.asking.Lock()
	defer c.asking.Unlock()
	inputEnded := fmt.Errorf("%w: its input ended", errCannotAsk)
	reply, start := make(chan answer, 1), time.Now()
	s.mu.Lock()
	refused := cmp.Or(context.Cause(ctx), context.Cause(c.ctx), context.Cause(s.ctx)) // no question that no answer can end
	switch {
	case refused != nil:
	case s.ended:
		refused = inputEnded
	case s.held >= maxHeld: // reading pauses, or has
		refused = errPaused
	case !slices.Contains(s.running, c): // it returned (see run)
		refused = errReturned
	}
	if refused != nil {
		s.mu.Unlock()
		return value{}, refused
	}
	s.asked++
	id := "ask-" + strconv.Itoa(s.asked)
	s.asking["s"+id], c.askID, c.reply = c, id, reply // as value.key() has it
	c.question = []byte(quote(obj{{"jsonrpc", "2.0"}, {"id", id}, {"method", "elicitation/create"}, {"params", question}}) + "\n")
	s.mu.Unlock()
	s.drain()
	var got answer
	received := false
	select {
	case got = <-reply:
		received = true
	case <-ctx.Done():
	case <-s.eof:
	}
	s.mu.Lock()
	s.unask(c, context.Cause(ctx)) // if ctx, or the input, ended it: else one did before
	s.mu.Unlock()
	if !received {
		got = <-reply // what ended it first: an answer, or unask's why (a signal's, say)
	}
	s.drain()
	msg, err := got.msg, got.err
	if e := msg.get("error"); e.exists() {
		why := string(e.raw())
		if m := e.get("message"); m.kind() == '"' {
			why = m.text()
		}
		err = fmt.Errorf("%w: the question got the error %s", errCannotAsk, quoteText(why))
	}
	if !msg.exists() && err == nil { // unask's why was nil
		err = inputEnded
	}
	s.log.printf("mcp: asked id=%q %v %v", id, time.Since(start), cmp.Or[any](err, "answered"))
	return msg.get("result"), err
}

// readSize is how much the line reader asks each read for.
const readSize = 64 << 10

// lineReader reads lines, each in bytes of its own that nothing read
// later overwrites: what each read returns is copied to a slice of its
// size, which the lines in it share; a line that spans reads is joined.
type lineReader struct {
	read    func([]byte) (int, error)
	max     int    // the longest line returned
	buf     []byte // read into
	chunk   []byte // read, and not yet returned
	started bool   // a line was returned: no byte order mark is skipped now
	err     error  // what ended reading: io.EOF at the end
}

// newLineReader returns a lineReader that reads by read, lines of up to
// max bytes.
func newLineReader(read func([]byte) (int, error), max int) *lineReader {
	return &lineReader{read: read, max: max, buf: make([]byte, readSize)}
}

// next returns the next line without its "\n" or "\r\n", a last one
// without "\n" too, then io.EOF: the end of input is the end, though a
// terminal could be read again after Ctrl-D. A line over the limit is
// dropped as it is read, never held whole, and reported as tooLong. A
// byte order mark leading the input is skipped.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	var pieces [][]byte
	size := 0 // bytes of the line before chunk
	// The "\r" of "\r\n", and a byte order mark leading the input, are
	// trimmed once the line is whole: until then, they are slack.
	slack := len("\r")
	if !lr.started {
		slack += len("\uFEFF")
	}
	over := func() bool { return size-slack > lr.max } // lr.max+slack overflows at the largest int
	for {
		if i := bytes.IndexByte(lr.chunk, '\n'); i >= 0 {
			line, lr.chunk = lr.chunk[:i], lr.chunk[i+1:]
			break
		}
		if size += len(lr.chunk); !over() {
			pieces = append(pieces, lr.chunk)
		} else {
			pieces = nil
		}
		if lr.chunk = nil; lr.err != nil {
			if lr.err != io.EOF || size == 0 {
				return nil, false, lr.err
			}
			break
		}
		n, err := lr.read(lr.buf)
		read := lr.buf[:n]
		if over() { // dropped: what comes before its end needs no copy
			end := bytes.IndexByte(read, '\n')
			if end < 0 {
				end = len(read)
			}
			size, read = size+end, read[end:]
		}
		lr.chunk, lr.err = bytes.Clone(read), err
	}
	switch {
	case over():
		return nil, true, nil
	case size > 0:
		line = bytes.Join(append(pieces, line), nil)
	}
	if !lr.started {
		line, lr.started = bytes.TrimPrefix(line, []byte("\uFEFF")), true
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, len(line) > lr.max, nil
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
	notices chan string // the few lines that must not be dropped (see notice)
	dropped atomic.Int64
	stop    chan string // the last line, from close
	done    chan struct{}
}

// newLogger starts a logger that writes to w.
func newLogger(w io.Writer) *logger {
	l := &logger{lines: make(chan string, 1024), notices: make(chan string, 1), stop: make(chan string), done: make(chan struct{})}
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
		case line := <-l.notices:
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
	if l != nil {
		l.queue(l.lines, fmt.Sprintf(format, a...))
	}
}

// notice queues a line where a full queue does not drop it: that reading
// paused, which the loop says at most once a pause. One notice waiting
// is enough: a second is dropped.
func (l *logger) notice(format string, a ...any) {
	if l != nil {
		l.queue(l.notices, fmt.Sprintf(format, a...))
	}
}

// queue puts line on q, or drops and counts it if q is full.
func (l *logger) queue(q chan string, line string) {
	select {
	case q <- line + "\n":
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
