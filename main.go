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
	"unsafe"
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

// ==== The session ====

// server is one session on a pair of streams. Three owners share its
// state; each group of fields says whose it is:
//   - the loop: the goroutine that reads each line and answers it (see
//     loop). It runs a call itself, until a tick finds the call still
//     running and hands the loop to a new goroutine (see handOff);
//   - the pen: the goroutine that writes (see drain). The loop holds it
//     while nothing is owed before its next reply (see direct);
//   - mu: whoever holds it.
type server struct {
	// Fixed when made.
	max                        int    // the longest line served
	tools                      []tool // the catalogue served, and its tools/list entries
	toolList                   []any
	resourceList, templateList []any          // resources' list entries,
	readResults                []map[bool]any // and each fixed one's reads, legacy and 2026-07-28
	completes                  bool           // a template completes its variables (see handleComplete)
	log                        *logger
	ctx                        context.Context         // every call's context is made from it;
	stop                       context.CancelCauseFunc // the first signal ends it (errStopped)
	timer                      *time.Timer             // ticks while the loop runs calls (see tick)
	eof                        chan struct{}           // closed when the input ends: no answer will come

	// The loop's.
	in       *lineReader
	doc      doc     // the line in hand,
	line     line    // read as one message or a batch,
	req      request // and the message answered
	direct   bool    // the loop holds the pen, and owes nothing before its next reply
	agreed   string  // the version initialize agreed, if any,
	canAsk   bool    // and whether, then, a tool may ask the person (see ask)
	subs     []value // ids of the subscriptions opened (see handleListen), none once ended,
	gaps     int     // how many of them have ended (see cancelled),
	subIndex map[string]int
	acks     []value // and those the line in hand opened, acknowledged after it

	// The tick's (see tick): the call the loop runs, and how many it ran.
	inline  atomic.Pointer[call]
	started atomic.Uint64
	ticking atomic.Bool
	seen    uint64        // started, at the last tick
	every   time.Duration // from this tick to the next

	// The pen's.
	out *bufio.Writer

	// Under mu; arr is the loop's too while direct.
	mu        sync.Mutex
	changed   sync.Cond            // broadcast when what follows changes
	owed      []slot               // the replies owed behind a call, in order
	written   int                  // how many slots have left owed: a slot's place less it is its index
	dead      int                  // how many are nothing (cancelled): past half, they go (see compact)
	first     int                  // the index of the first that may be a call waiting its turn
	held      int                  // what owed holds (see slot.cost)
	arr       byte                 // where the stream is in a batch's array (see emit)
	ready     []piece              // what the pen writes next, in order,
	later     []piece              // and once the batch's array the stream is in ends
	unwritten int                  // bytes in ready and later
	notes     int                  // progress notifications in them (see report)
	running   int                  // calls running,
	long      int                  // of which handed off (see tick), running long,
	cost      int                  // their lines' bytes in all,
	waiting   int                  // and calls waiting their turn in owed (see startWaiting),
	waitCost  int                  // their lines' bytes in all
	calls     map[string]*call     // calls off the loop, running or waiting, by id key
	asking    map[string]*question // questions waiting for their answers, by id
	asked     int                  // how many questions tools asked
	pen       bool                 // a goroutine writes (see drain),
	again     bool                 // and more was made ready meanwhile
	idle      bool                 // the loop waits for input
	ended     bool                 // the loop has ended: the input ended, or a signal stopped it
	stopping  bool                 // a signal stops mcp
	err       error                // why reading or writing failed
}

// slot is a place in the order of replies, owed behind a call: a reply
// ('r'), made (its JSON, or its call's result, once made) or for its call
// to make, or a subscription's acknowledgement; where a batch's array
// opens or closes ('[', ']'); or nothing (0), a call the client
// cancelled.
type slot struct {
	reply []byte // the reply's JSON, made,
	call  *call  // or the call that makes it,
	made  bool   // once it has (see finish)
	kind  byte
}

// piece is what the pen writes: bytes, or a call's reply; and whether it
// is a progress notification (see report).
type piece struct {
	b    []byte
	call *call
	note bool
}

// cost is what sl holds, as held counts it, beside its place in owed
// (see holding): its reply, made, or its call's result, as long as it is
// written. A call waiting to run is counted apart (see waitCost).
func (sl slot) cost() int {
	if sl.made {
		return sl.call.x.size
	}
	return cap(sl.reply)
}

// The bounds on what the loop keeps while calls run: past maxCalls calls
// running, or maxArgs of their lines, the next call waits its turn in
// owed, and past maxArgs of calls waiting, it is refused at once (see
// busy), as is any request past maxHeld of replies owed; past maxHeld
// unwritten, reading waits for the pen.
const (
	maxCalls = 16
	maxArgs  = 16 << 20
	maxHeld  = 4 << 20
)

// tickEvery is how often the timer ticks while the loop runs calls: a
// call it finds running at two ticks in a row is handed off (see tick).
// A call that ends sooner costs no goroutine and no clock reading.
const tickEvery = time.Millisecond / 4

// newServer returns a server that reads requests from r, writes replies
// to w, answers lines of up to max bytes and serves the tools given.
func newServer(r io.Reader, w io.Writer, max int, tools []tool) *server {
	s := &server{max: max, tools: tools, toolList: toolList(tools), subIndex: map[string]int{}, eof: make(chan struct{})}
	s.calls, s.asking = map[string]*call{}, map[string]*question{}
	s.resourceList, s.templateList, s.readResults = resourceLists(resources)
	s.completes = slices.ContainsFunc(resources, func(r resource) bool { return r.complete != nil })
	s.ctx, s.stop = context.WithCancelCause(context.Background())
	s.in = newLineReader(func(p []byte) (int, error) { return s.read(r, p) }, max)
	s.out = bufio.NewWriterSize(w, 64<<10)
	s.changed.L = &s.mu
	s.timer, s.every = time.AfterFunc(time.Hour, s.tick), tickEvery
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
	s.pen, s.direct = true, true // the loop's, to begin with
	go s.loop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.err == nil && (!s.ended || s.running+s.waiting > 0) {
		s.changed.Wait()
	}
	for _, id := range s.subs { // the loop's no more
		if id.exists() && s.err == nil {
			s.emit(slot{kind: 'r', reply: render(func(w *bufio.Writer) {
				writeReply(w, id, obj{{"resultType", "complete"}, {"_meta", obj{{metaSubscriptionID, id}}}}, nil)
			})})
		}
	}
	for s.err == nil && (s.pen || len(s.ready) > 0) {
		if !s.pen {
			s.pen = true
			s.write(true)
			s.pen = false
		} else {
			s.changed.Wait()
		}
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

// loop answers each message in order until the input ends, reading fails
// or a signal stops it; or until, while it runs a call, it is handed to
// another goroutine (see handOff), and this one finishes the call.
func (s *server) loop() {
	for {
		if !s.line.next(&s.req) {
			if s.endLine(); !s.readLine() {
				return
			}
			continue
		}
		if s.req.inBatch && !s.direct && s.req.owesReply() && s.busy() {
			s.room() // a batch's replies, one line, cannot be refused one by one (see busy)
		}
		if c, in := s.answer(&s.req); c != nil && !s.runInline(c, in) {
			return
		}
	}
}

// readLine reads the next line and makes it the line in hand: a message,
// or a batch. A blank line is skipped; a line over the limit, one that is
// not JSON, and an empty batch get their error here. At the end of input,
// when reading fails or a signal stops mcp, it ends the loop and reports
// false.
func (s *server) readLine() bool {
	s.doc, s.line, s.req = doc{}, line{}, request{} // the last line goes before the next is read
	b, tooLong, err := s.in.next()
	if err != nil {
		s.release()
		s.mu.Lock()
		s.ended = true
		close(s.eof) // once: no loop reads after this one
		s.changed.Broadcast()
		s.mu.Unlock()
		return false
	}
	s.doc = doc{line: b}
	d := &s.doc
	s.line = line{d: d}
	v, at, ok := d.parse(0, len(b), &s.line.req)
	switch {
	case tooLong:
		s.log.printf("mcp: - line over %d bytes skipped", s.max)
		s.reply(value{}, nil, &rpcError{code: codeInvalidRequest, message: "Invalid Request", data: "message longer than " + strconv.Itoa(s.max) + " bytes"})
	case skipSpace(b, 0) == len(b):
	case !ok:
		s.log.printf("mcp: - id=null error %d: %s", codeParseError, notJSON(b, at))
		s.reply(value{}, nil, errParse)
	case v.kind() != '[':
		return true // a message
	case b[skipSpace(b, v.start+1)] == ']':
		s.log.printf("mcp: - id=null error %d", codeInvalidRequest)
		s.reply(value{}, nil, errInvalidRequest)
	default:
		s.line = line{d: d, batch: true, at: skipSpace(b, v.start+1)}
		return true
	}
	s.line = line{}
	return true
}

// notJSON says, for the log, why a line is not JSON: its byte at cannot
// be there, or, at its end, the line ends too soon.
func notJSON(line []byte, at int) string {
	if at < len(line) {
		return fmt.Sprintf("the line is not JSON: %q at byte %d", line[at:at+1], at)
	}
	return "the line ends inside a JSON value (each message must be on one line)"
}

// line is the line in hand (see loop): one message, read already, or a
// batch, whose elements are read one by one.
type line struct {
	d      *doc
	req    request // the message's, until next returns it
	batch  bool
	opened bool // the batch's reply array has its place (see owes)
	at     int  // the index in d of the batch's next element, or -1; 0 once a message's is returned
}

// next reads the line's next message into req (see doc.parse), if any.
func (l *line) next(req *request) bool {
	switch {
	case l.d == nil || l.at < 0 || !l.batch && l.at > 0:
		return false
	case !l.batch:
		l.at, *req = 1, l.req
		return true
	}
	b := l.d.line
	item := l.d.value(l.at)
	if l.at = skipSpace(b, item.end); b[l.at] == ',' {
		l.at = skipSpace(b, l.at+1)
	} else {
		l.at = -1
	}
	*req = request{inBatch: true}
	l.d.parse(item.start, item.end, req)
	return true
}

// owes opens the reply array of the batch in hand, if it has not: a
// reply to one of its elements comes.
func (s *server) owes() {
	if s.line.batch && !s.line.opened {
		s.line.opened = true
		s.place(slot{kind: '['})
	}
}

// endLine ends the line in hand: a batch's array closes, if it opened;
// the subscriptions the line opened are acknowledged.
func (s *server) endLine() {
	if s.line.opened {
		s.place(slot{kind: ']'})
	}
	s.line = line{}
	for _, id := range s.acks {
		s.place(slot{kind: 'r', reply: render(func(w *bufio.Writer) {
			writeJSON(w, obj{{"jsonrpc", "2.0"}, {"method", "notifications/subscriptions/acknowledged"},
				{"params", obj{{"_meta", obj{{metaSubscriptionID, id}}}, {"notifications", obj{}}}}})
		})})
	}
	s.acks = s.acks[:0]
}

// answer answers a message: a request gets its reply, made now, or by the
// call returned, which the loop then runs; a notification acts; a
// client's response answers the question it names (see answered). Past
// maxHeld owed, a request is refused at once (see busy).
func (s *server) answer(req *request) (*call, arguments) {
	switch {
	case req.response():
		s.answered(req)
		return nil, arguments{}
	case !req.valid():
		s.logged("", req.id, time.Time{}, decide(nil, errInvalidRequest))
		s.owes()
		s.reply(req.id, nil, errInvalidRequest)
		return nil, arguments{}
	case !req.id.exists():
		if req.method.is("notifications/cancelled") {
			s.cancelled(req.p.requestID)
		}
		return nil, arguments{}
	}
	s.owes()
	var start time.Time
	if s.log != nil {
		start = time.Now()
	}
	d := decide(nil, errBusy)
	if s.direct || !s.busy() {
		d = s.handle(req)
	}
	if c := d.call; c != nil {
		c.id, c.doc = req.id, s.doc
		if c.adopt(&s.doc, &d.in); s.log != nil {
			c.extra().start = start
		}
		return c, d.in
	} else if !d.open {
		s.reply(req.id, d.result, d.err)
	}
	s.logged(req.method.text(), req.id, start, d)
	return nil, arguments{}
}

// errBusy refuses a request that mcp cannot hold (see busy).
var errBusy = &rpcError{code: codeBusy, message: "Server busy", data: "the replies owed behind calls still running hold " + strconv.Itoa(maxHeld>>20) +
	" MiB: retry once they return, or cancel them"}

// busy reports whether owed holds maxHeld: a request is then refused
// with errBusy, written at once, out of its turn, so that mcp holds no
// more and reads on: a cancel acts, an answer is taken. The request's log
// line says error -32010.
func (s *server) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.holding() >= maxHeld
}

// holding is what owed holds: its places, and held. With mu held.
func (s *server) holding() int {
	return s.held + cap(s.owed)*int(unsafe.Sizeof(slot{}))
}

// reply makes the reply to a request the loop answers now: written at
// once if nothing is owed before it and the pen is free (see direct),
// else owed after what is. A refusal (errBusy), and any error while
// owed holds maxHeld, is written at once, out of turn: held no more.
func (s *server) reply(id value, result any, err *rpcError) {
	if s.direct || s.takePen() {
		s.emitDirect(id, result, err)
		return
	}
	b := render(func(w *bufio.Writer) { writeReply(w, id, result, err) })
	s.mu.Lock()
	if err == errBusy || err != nil && s.holding() >= maxHeld {
		s.note(b, false)
	} else {
		s.owed, s.held = append(s.owed, slot{kind: 'r', reply: b}), s.held+cap(b)
		s.move()
	}
	s.mu.Unlock()
}

// place puts sl in the order of replies: written, if the loop holds the
// pen with nothing owed (see direct), else owed, and emitted once what
// is before it is.
func (s *server) place(sl slot) {
	switch {
	case !s.direct:
		s.mu.Lock()
		s.owed, s.held = append(s.owed, sl), s.held+sl.cost()
		s.move()
		s.mu.Unlock()
	case sl.kind == 'r':
		s.emitDirect(value{}, sl.reply, nil)
	case sl.kind == '[':
		s.arr = '['
	default: // ']'
		if s.arr == ',' {
			s.out.WriteString("]\n")
		}
		s.arr = 0
	}
}

// takePen makes the loop direct, if nothing is owed or waits for a
// batch's array to end, and the pen is free: it holds the pen from now
// on, and writes first what is ready.
func (s *server) takePen() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.owed) > 0 || s.pen || len(s.later) > 0 {
		return false
	}
	s.pen, s.direct = true, true
	s.write(false)
	return true
}

// release lets go of the pen, if the loop holds it, once what it wrote
// and what is ready is written; the loop calls it before it waits for
// input, so that a client that waits gets each reply at once.
func (s *server) release() {
	if !s.direct {
		s.drain()
		return
	}
	s.mu.Lock()
	s.write(true)
	s.pen, s.direct = false, false
	s.changed.Broadcast()
	s.mu.Unlock()
}

// emitDirect writes the reply to id, or one already made (result is then
// its JSON, a []byte), as the stream has it (see emit), the loop holding
// the pen.
func (s *server) emitDirect(id value, result any, err *rpcError) {
	if s.arr != 0 {
		s.out.WriteByte(s.arr) // "[" before the first, "," before the others
		s.arr = ','
	}
	if b, made := result.([]byte); made {
		s.out.Write(b)
	} else {
		writeReply(s.out, id, result, err)
	}
	if s.arr == 0 {
		s.out.WriteByte('\n')
	}
}

// emit hands the pen sl, the next slot of the stream, as the stream has
// it: a batch's replies in one array, "[" before the first written and
// "," before each other, and "]\n" after the last, if any was; any other
// reply on a line of its own. While the stream is in an array, what is
// written at once waits (see note). With mu held, or by the loop while
// direct.
func (s *server) emit(sl slot) {
	put := func(p piece) {
		s.ready, s.unwritten = append(s.ready, p), s.unwritten+len(p.b)
	}
	switch sl.kind {
	case '[':
		s.arr = '['
	case ']':
		if s.arr == ',' {
			put(piece{b: []byte("]\n")})
		}
		s.arr = 0
		s.ready, s.later = append(s.ready, s.later...), s.later[:0]
	case 'r':
		if s.arr != 0 {
			put(piece{b: []byte{s.arr}}) // "[" before the first, "," before the others
			s.arr = ','
		}
		if sl.reply == nil {
			s.ready, s.unwritten = append(s.ready, piece{call: sl.call}), s.unwritten+sl.call.x.size
		} else {
			put(piece{b: sl.reply})
		}
		if s.arr == 0 {
			put(piece{b: []byte("\n")})
		}
	}
}

// note has b, a notification, a question or a refusal, written at once,
// or once the batch's array the stream is in ends; note says it is a
// progress notification (see report). With mu held.
func (s *server) note(b []byte, note bool) {
	b = append(b, '\n')
	if s.notes += map[bool]int{true: 1}[note]; s.arr == ',' {
		s.later = append(s.later, piece{b: b, note: note})
	} else {
		s.ready = append(s.ready, piece{b: b, note: note})
	}
	s.unwritten += len(b)
}

// move emits the slots at the head of owed whose replies are made, in
// order; then owed has the rest. With mu held.
func (s *server) move() {
	n := 0
	for ; n < len(s.owed) && (s.owed[n].kind != 'r' || s.owed[n].reply != nil || s.owed[n].made); n++ {
		s.held -= s.owed[n].cost()
		if s.emit(s.owed[n]); s.owed[n].kind == 0 {
			s.dead--
		}
	}
	if n > 0 {
		clear(s.owed[:n])
		s.owed, s.written, s.first = s.owed[n:], s.written+n, max(0, s.first-n)
		if cap(s.owed) > 2*len(s.owed)+64 { // holding counts its places: those spare go
			s.owed = slices.Clone(s.owed)
		}
	}
	if s.held < 0 || s.waitCost < 0 {
		panic(fmt.Sprintf("mcp: held %d, waiting %d: miscounted", s.held, s.waitCost))
	}
}

// room waits, before an element of a batch that owes a reply, while owed
// holds maxHeld or unwritten is as much, until calls return or the pen
// writes: the one wait of reading past maxHeld, as a batch's replies, one
// line, cannot be refused one by one; but not while a question waits,
// whose answer, read later, may be what the calls wait for.
func (s *server) room() {
	s.drain()
	s.mu.Lock()
	for (s.holding() >= maxHeld || s.unwritten >= maxHeld) && s.err == nil && len(s.asking) == 0 {
		s.changed.Wait()
	}
	s.mu.Unlock()
}

// drain writes what is ready, in order, and flushes once nothing more
// is: whoever makes output ready calls it. One goroutine at a time holds
// the pen, never mu while it writes; it writes too what others made
// ready meanwhile.
func (s *server) drain() {
	s.mu.Lock()
	if s.pen {
		s.again = true
		s.mu.Unlock()
		return
	}
	s.pen = true
	s.write(true)
	s.pen = false
	s.changed.Broadcast()
	s.mu.Unlock()
}

// write writes ready, the pen held, until nothing more is, and then
// flushes, if flush; it lets go of mu while it writes, and takes it
// again.
func (s *server) write(flush bool) {
	for {
		s.again = false
		take := s.ready
		s.ready = nil
		s.mu.Unlock()
		n, notes := 0, 0
		for _, p := range take {
			if c := p.call; c != nil {
				writeReply(s.out, c.id, c.x.result, c.x.err)
				n += c.x.size
			} else {
				s.out.Write(p.b)
				n += len(p.b)
			}
			notes += map[bool]int{true: 1}[p.note]
		}
		if len(take) == 0 && flush {
			s.out.Flush()
		}
		_, err := s.out.Write(nil) // the first error writing, if any
		s.mu.Lock()
		s.unwritten, s.notes, s.err = s.unwritten-n, s.notes-notes, cmp.Or(s.err, err)
		s.changed.Broadcast()
		if len(take) == 0 && !s.again || s.err != nil {
			return
		}
	}
}

// read is how the loop reads standard input, r: the one place it waits
// for input, so it writes first what it owes (see release), and, while
// maxHeld is still to be written, waits for the pen; a signal that comes
// meanwhile stops mcp at once (see stopNow), and input read after it is
// dropped.
func (s *server) read(r io.Reader, p []byte) (int, error) {
	s.release()
	s.mu.Lock()
	for s.unwritten >= maxHeld && s.err == nil && !s.stopping { // the client reads no replies: no more requests
		s.changed.Wait()
	}
	if s.stopping || s.err != nil {
		s.mu.Unlock()
		return 0, errStopped
	}
	s.idle = true
	s.mu.Unlock()
	n, err := r.Read(p)
	s.mu.Lock()
	s.idle = false
	stopping := s.stopping
	s.mu.Unlock()
	if stopping {
		return 0, errStopped
	}
	s.takePen()
	return n, err
}

// stopNow is the first signal: every call's context ends; a loop waiting
// for input ends at once, else after the lines already read.
func (s *server) stopNow() {
	s.stop(errStopped)
	s.mu.Lock()
	s.stopping, s.ended = true, s.ended || s.idle
	s.changed.Broadcast()
	s.mu.Unlock()
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
			go s.stopNow() // a write blocked may hold mu for long: not here
		}
	}
}

// ==== Calls: tools, and resources read by a function ====

// call is a call of a tool, or a read of a resource by its function: the
// request, what it runs, its context, and what its tool adds to its
// result. The loop makes it; whoever runs it owns it; mu guards what a
// tool's goroutines, a cancel and a question touch meanwhile. What few
// calls need is apart (see more): most make a struct this small.
type call struct {
	srv      *server
	doc      doc       // its line, which its values are of (see adopt)
	id       value     // the request's
	tool     *tool     // a tool's call,
	res      *resource // or a resource's read;
	args     value     // its arguments as given, or the URI read
	x        *more     // made with it, if it needs any, or by whoever runs it (see extra)
	place    int       // its reply's in the order, once it has one (see server.written)
	started  bool      // under the server's mu: it runs or ran, and holds no place in owed
	canAsk   bool      // the client can ask the person,
	oldForms bool      // in 2025-06-18's forms (see schema)
	long     bool      // under the server's mu: it was handed off, running long

	mu         sync.Mutex // guards what follows, and x's questions
	cx         *callCtx   // its context, made on first use (see context)
	asking     sync.Mutex // held while a question waits (see ask)
	toolResult            // its result, if a tool's
	returned   bool       // run returned: nothing more is added, no progress sent
}

// callCtx is a call's context, and why it ended, if it did before the
// context was made.
type callCtx struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	why    error
}

// more is what a call needs only at times: made with it for progress,
// a template's variables, a 2026-07-28 retry or the log; else by whoever
// runs it, once it waits its turn or its reply is owed behind others.
type more struct {
	in      arguments         // its arguments, while it waits its turn
	vars    map[string]string // a template's variables
	token   value             // the progress token, if progress is sent
	last    float64           // the progress last sent (see report)
	rounds  []round           // 2026-07-28: its questions asked before, answered (see ask),
	asked   int               // how many it asked now,
	pending obj               // and the result that asks the first unanswered
	start   time.Time         // when it was read, with -v
	result  any               // its reply, once made off the loop (see finish),
	err     *rpcError
	size    int // and its length, as owed counts it
}

// extra returns c's more, made now if need be.
func (c *call) extra() *more {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.x == nil {
		c.x = &more{}
	}
	return c.x
}

// cost is what c holds while it waits its turn: its line, and itself.
func (c *call) cost() int {
	return len(c.doc.line) + int(unsafe.Sizeof(*c)) + int(unsafe.Sizeof(more{}))
}

// The causes of a call's context's end that are not a signal; and what
// else ends a question's wait (see ask).
var (
	errClientCancelled = errors.New("cancelled by the client")
	errTimedOut        = errors.New("time limit passed")
	errReturned        = errors.New("the tool returned")
)

// context returns c's context: made on first use from the session's, so
// that a tool that never looks at it costs none (one made for each call
// cost the bench a tenth of its speed), and ended already if c has.
func (c *call) context() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cx == nil {
		c.cx = &callCtx{}
	}
	if cx := c.cx; cx.ctx == nil {
		cx.ctx, cx.cancel = context.WithCancelCause(c.srv.ctx)
		if c.returned {
			cx.why = cmp.Or(cx.why, errReturned)
		}
		if cx.why != nil {
			cx.cancel(cx.why)
		}
	}
	return c.cx.ctx
}

// end ends c's context for why, if it has not ended.
func (c *call) end(why error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.cx == nil && why == errReturned: // returned says so, if a context is made later
	case c.cx == nil:
		c.cx = &callCtx{why: why}
	default:
		c.cx.why = cmp.Or(c.cx.why, why)
		if c.cx.cancel != nil {
			c.cx.cancel(why)
		}
	}
}

// ended reports, with mu held, whether c returned or was cancelled.
func (c *call) ended() bool { return c.returned || c.cx != nil && c.cx.why != nil }

// callContext is a call as the context its tool runs in (see
// call.context), which the context package reads through its methods:
// context.Cause and the contexts made from it work as on the one made.
type callContext call

func (x *callContext) Deadline() (time.Time, bool) { return (*call)(x).context().Deadline() }
func (x *callContext) Done() <-chan struct{}       { return (*call)(x).context().Done() }
func (x *callContext) Err() error                  { return (*call)(x).context().Err() }
func (x *callContext) Value(key any) any           { return (*call)(x).context().Value(key) }

// adopt gives c's values, and in's, c's own doc, of the same line as
// the loop's, which reads the next line into its own.
func (c *call) adopt(from *doc, in *arguments) {
	to := func(v *value) {
		if v.d == from {
			v.d = &c.doc
		}
	}
	to(&c.id)
	to(&c.args)
	if c.x != nil {
		to(&c.x.token)
		for i := range c.x.rounds {
			to(&c.x.rounds[i].answer)
		}
	}
	for i := range in.first {
		to(&in.first[i])
	}
	for i := range in.more {
		to(&in.more[i])
	}
}

// own keeps in, the arguments of c, which waits its turn, and gives c a
// copy of its line if it shares a read's buffer (see lineReader), so
// that it holds nothing else read with it; a longer line is its own.
func (c *call) own(in arguments) {
	if c.extra().in = in; len(c.doc.line) < readSize {
		c.doc.line = bytes.Clone(c.doc.line)
	}
}

// method is the method of c's request.
func (c *call) method() string {
	if c.tool != nil {
		return "tools/call"
	}
	return "resources/read"
}

// runInline runs c, a call the loop answers now, on the loop's goroutine
// if it may run now; on one of its own while a call handed off runs (see
// handOff), as one behind a call that runs long may too; else it waits
// its turn (see startWaiting). It reports false if the loop was handed off while c
// ran: this goroutine has finished c then, and is the loop's no more.
func (s *server) runInline(c *call, in arguments) bool {
	cost := c.cost()
	s.mu.Lock()
	if s.waiting > 0 || s.running == maxCalls || s.running > 0 && s.cost+cost > maxArgs {
		if s.waitCost > 0 && s.waitCost+cost > maxArgs { // those waiting hold as much already
			s.mu.Unlock()
			s.reply(c.id, nil, errBusy)
			s.logged(c.method(), c.id, c.start(), decide(nil, errBusy))
			return true
		}
		c.own(in)
		if s.waiting, s.waitCost, c.place = s.waiting+1, s.waitCost+cost, s.written+len(s.owed); s.calls[c.id.key()] == nil {
			s.calls[c.id.key()] = c // a cancel ends the call of an id read first
		}
		if s.direct { // the pen, and what the loop wrote with it, which the next drain writes
			s.pen = false
		}
		s.owed, s.direct = append(s.owed, slot{kind: 'r', call: c}), false
		s.mu.Unlock()
		return true
	}
	if s.long > 0 { // behind a call that runs long, another may: off the loop at once
		s.detach(c)
		s.mu.Unlock()
		c.extra().in = in // not a closure's: in would be allocated for every call
		go s.runOff(c)
		s.drain()
		return true
	}
	s.mu.Unlock()
	s.started.Add(1)
	s.inline.Store(c)
	if !s.ticking.Swap(true) {
		s.timer.Reset(tickEvery)
	}
	result, err := s.run(c, in)
	if !s.inline.CompareAndSwap(c, nil) {
		s.finish(c, result, err)
		return false
	}
	if s.direct && c.x != nil && c.x.token.exists() {
		s.mu.Lock()
		s.write(false) // its progress, before its reply
		s.mu.Unlock()
	}
	if s.direct || s.takePen() {
		s.emitDirect(c.id, result, err)
	} else { // owed, it holds its result until written, not a copy (see finish)
		x := c.extra()
		x.result, x.err, x.size = result, err, size(func(w *bufio.Writer) { writeReply(w, c.id, result, err) })
		s.place(slot{kind: 'r', call: c, made: true})
	}
	s.logged(c.method(), c.id, c.start(), decide(result, err))
	return true
}

// start is when c was read, with -v.
func (c *call) start() time.Time {
	if c.x == nil {
		return time.Time{}
	}
	return c.x.start
}

// tick runs while the loop runs calls, every tickEvery, or up to 16 times
// less often while many calls come and go (a run of quick calls, which
// its wake-ups would slow): a call it finds running at two ticks in a
// row is handed off (see handOff): after a millisecond or two, as the
// runtime, idle, wakes a timer a millisecond late. Ticks stop once a
// whole one passes without a call.
func (s *server) tick() {
	c, n := s.inline.Load(), s.started.Load()
	switch {
	case c == nil && n == s.seen: // idle for a tick: stop, unless a call started meanwhile
		s.every = tickEvery
		if s.ticking.Store(false); s.started.Load() == n || s.ticking.Swap(true) {
			return
		}
	case c != nil && n == s.seen:
		s.handOff(c)
		s.every = tickEvery
	case n-s.seen > 1:
		s.every = min(2*s.every, 16*tickEvery)
	}
	s.seen = n
	s.timer.Reset(s.every)
}

// handOff hands the loop, which runs c, to a new goroutine, so that a call
// running long holds up no line after it; c's goroutine finishes c (see
// runInline). c's reply is given a place, and the pen let go of, once
// what the loop wrote is written.
func (s *server) handOff(c *call) {
	s.mu.Lock() // before c's goroutine, finished, takes it (see finish)
	if !s.inline.CompareAndSwap(c, nil) {
		s.mu.Unlock()
		return // it returned, or was handed off already
	}
	s.detach(c)
	c.long, s.long = true, s.long+1
	s.mu.Unlock()
	go s.loop()
	s.drain()
}

// detach gives c, which runs off the loop from now on, its place in
// owed; the loop, if direct, lets go of the pen, and what it wrote with
// it is written by the next drain. With mu held.
func (s *server) detach(c *call) {
	c.place, c.started = s.written+len(s.owed), true
	s.owed = append(s.owed, slot{kind: 'r', call: c})
	if s.running, s.cost = s.running+1, s.cost+c.cost(); s.calls[c.id.key()] == nil {
		s.calls[c.id.key()] = c // a cancel ends the call of an id read first
	}
	if s.direct {
		s.pen = false
	}
	s.direct = false
}

// run runs c's tool or read in its context, and returns its reply's
// result or error: a panic is Internal error, and the session goes on.
// Its context ends as it returns (errReturned), if it has not.
func (s *server) run(c *call, in arguments) (result any, err *rpcError) {
	if c.tool != nil && c.tool.timeout > 0 { // its stop runs after the end below: the cause stays errReturned
		ctx := c.context()
		var stop context.CancelFunc
		c.mu.Lock()
		c.cx.ctx, stop = context.WithTimeoutCause(ctx, c.tool.timeout, errTimedOut)
		c.mu.Unlock()
		defer stop()
	}
	defer func() {
		if p := recover(); p != nil {
			result, err = nil, errInternal
			s.log.printf("mcp: panic in %s: %s", quoteText(c.method()), quoteText(fmt.Sprint(p)))
		}
		c.mu.Lock()
		c.returned = true
		c.mu.Unlock()
		c.end(errReturned)
	}()
	if c.res != nil {
		return c.read((*callContext)(c))
	}
	return c.call((*callContext)(c), in)
}

// finish puts the reply of c, which ran off the loop, in its place, none
// if the client cancelled it: written by the pen from c's result, which
// it holds until then, counted by its length if it must wait for the
// replies before it. Then it starts the calls that wait and now fit, and
// writes what is ready.
func (s *server) finish(c *call, result any, err *rpcError) {
	x := c.extra()
	x.result, x.err = result, err
	s.mu.Lock()
	if i := c.place - s.written; i > 0 && i < len(s.owed) && s.owed[i].call == c {
		s.mu.Unlock()
		x.size = size(func(w *bufio.Writer) { writeReply(w, c.id, result, err) })
		s.mu.Lock()
	}
	if s.running, s.cost = s.running-1, s.cost-c.cost(); c.long {
		s.long--
	}
	if key := c.id.key(); s.calls[key] == c {
		delete(s.calls, key)
	}
	if i := c.place - s.written; i >= 0 && i < len(s.owed) && s.owed[i].call == c {
		s.held -= s.owed[i].cost()
		s.owed[i].made = true
		s.held += s.owed[i].cost()
	} else { // cancelled: its place is gone
		err = errCancelled // for the log
	}
	s.startWaiting()
	s.move()
	s.changed.Broadcast()
	s.mu.Unlock()
	s.drain()
	s.logged(c.method(), c.id, c.start(), decide(result, err))
}

// runOff runs c, with the arguments it keeps, on a goroutine of its own.
func (s *server) runOff(c *call) {
	result, err := s.run(c, c.x.in)
	s.finish(c, result, err)
}

// size returns how long what write writes is, written nowhere.
func size(write func(w *bufio.Writer)) int {
	var n counter
	w := bufio.NewWriterSize(&n, 512)
	write(w)
	w.Flush()
	return int(n)
}

// counter is a writer that counts what it is given.
type counter int

func (n *counter) Write(p []byte) (int, error) {
	*n += counter(len(p))
	return len(p), nil
}

// startWaiting starts, with mu held, the calls waiting in owed, in order,
// while they fit: fewer than maxCalls running, and maxArgs of their lines
// (or only one).
func (s *server) startWaiting() {
	for ; s.waiting > 0 && s.first < len(s.owed); s.first++ {
		i := s.first
		c := s.owed[i].call
		if c == nil || c.started {
			continue
		} else if s.running == maxCalls || s.running > 0 && s.cost+c.cost() > maxArgs {
			return
		}
		s.waiting, s.waitCost, s.running, s.cost, c.started = s.waiting-1, s.waitCost-c.cost(), s.running+1, s.cost+c.cost(), true
		go s.runOff(c)
	}
}

// cancelled acts on the client's notifications/cancelled, as the loop
// reads it: a call it names that runs off the loop ends, and one waiting
// its turn is dropped, with no reply, and so its question; a
// subscription ends, with none. Once more than half of subs have ended,
// those go: a session that opens and cancels subscriptions without end
// holds no more than twice those open.
func (s *server) cancelled(id value) {
	key := id.key()
	s.mu.Lock()
	if c := s.calls[key]; c != nil {
		delete(s.calls, key)
		sl := &s.owed[c.place-s.written]
		if !c.started {
			s.waiting, s.waitCost = s.waiting-1, s.waitCost-c.cost()
			s.log.printf("mcp: %s id=%s cancelled before its turn", quoteText(c.method()), logID(c.id))
		}
		s.held -= sl.cost()
		*sl, s.dead = slot{}, s.dead+1
		for _, q := range s.asking {
			if q.call == c {
				s.unask(q, answer{err: errClientCancelled}) // at once: a line read after is read after the client is told
			}
		}
		s.move()
		s.compact()
		s.changed.Broadcast()
		s.mu.Unlock()
		c.end(errClientCancelled)
		s.drain()
		return
	}
	s.mu.Unlock()
	i, ok := s.subIndex[key]
	if !ok {
		return
	}
	s.subs[i], s.gaps = value{}, s.gaps+1
	delete(s.subIndex, key)
	if s.gaps > len(s.subs)/2 {
		s.subs, s.gaps = slices.DeleteFunc(s.subs, func(sub value) bool { return !sub.exists() }), 0
		for j, sub := range s.subs {
			s.subIndex[sub.key()] = j
		}
	}
}

// compact drops, with mu held, the places of calls cancelled from owed
// once they are more than half of it: a client that cancels calls
// waiting without end leaves nothing of them behind.
func (s *server) compact() {
	if s.dead <= len(s.owed)/2 {
		return
	}
	live := s.owed[:0]
	for _, sl := range s.owed {
		if sl.kind == 0 {
			continue
		} else if sl.call != nil {
			sl.call.place = s.written + len(live)
		}
		live = append(live, sl)
	}
	clear(s.owed[len(live):])
	s.owed, s.dead, s.first = live, 0, 0
}

// report sends c's progress at once, if the client asked for it (a
// token), done is past the last, both numbers are ones JSON can write,
// and c has neither returned nor been cancelled; then, while maxNotes
// wait to be written, it waits. A tool may call it from any goroutine.
func (s *server) report(c *call, done, total float64, message string) {
	finite := func(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }
	c.mu.Lock()
	if x := c.x; x == nil || !x.token.exists() || c.ended() || done <= x.last || !finite(done) || !finite(total) {
		c.mu.Unlock()
		return
	}
	params := obj{{"progressToken", c.x.token}, {"progress", done}}
	if c.x.last = done; total > 0 {
		params = append(params, member{"total", total})
	}
	if message != "" {
		params = append(params, member{"message", message})
	}
	b := render(func(w *bufio.Writer) {
		writeJSON(w, obj{{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", params}})
	})
	s.mu.Lock()
	s.note(b, true) // before c returns, and so before its reply
	s.mu.Unlock()
	c.mu.Unlock()
	s.drain()
	ended := c.context().Done()
	defer context.AfterFunc(c.context(), func() { s.mu.Lock(); s.changed.Broadcast(); s.mu.Unlock() })()
	s.mu.Lock() // a tool reporting faster than the client reads waits, while its call runs
	for s.notes >= maxNotes && s.err == nil && !closed(ended) {
		s.changed.Wait()
	}
	s.mu.Unlock()
}

// closed reports whether ch is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// maxNotes is how many progress notifications may wait to be written:
// past it, a tool's progress waits (see report).
const maxNotes = 64

// ==== Questions to the person (see arguments.ask) ====

// question is a tool's question waiting for its answer: its id, its
// call, and what ends its wait (see unask).
type question struct {
	id    string
	call  *call
	reply chan answer
}

// answer is what ends a question's wait: the client's response, or why
// none will come (nil: the input ended).
type answer struct {
	msg value
	err error
}

// ask sends a question, params of an elicitation/create request, to
// the client of a legacy session at once, whatever replies are owed, and
// returns the result of its response. An error response is errCannotAsk,
// saying why; so is the end of input. The end of ctx or of c's context
// (the client's cancel, a signal, c's time limit, or its return) ends
// the wait too, with its cause; after any of them, no question is asked,
// as no answer could end it. c's questions are asked one at a time.
func (s *server) ask(ctx context.Context, c *call, params obj) (value, error) {
	c.asking.Lock()
	defer c.asking.Unlock()
	cctx := c.context()
	inputEnded := fmt.Errorf("%w: its input ended", errCannotAsk)
	refused := cmp.Or(context.Cause(ctx), context.Cause(cctx)) // ctx may be c's, whose methods take c.mu
	c.mu.Lock()                                                // c cannot return, nor the loop write its reply, while its question is sent
	s.mu.Lock()
	if refused == nil && c.returned {
		refused = errReturned
	} else if refused == nil && s.ended {
		refused = inputEnded
	}
	if refused != nil {
		s.mu.Unlock()
		c.mu.Unlock()
		return value{}, refused
	}
	s.asked++
	q, start := &question{id: "ask-" + strconv.Itoa(s.asked), call: c, reply: make(chan answer, 1)}, time.Now()
	s.asking[q.id] = q
	s.note(render(func(w *bufio.Writer) {
		writeJSON(w, obj{{"jsonrpc", "2.0"}, {"id", q.id}, {"method", "elicitation/create"}, {"params", params}})
	}), false)
	s.mu.Unlock()
	c.mu.Unlock()
	s.handOff(c) // if the loop runs c: it reads the answer
	s.drain()
	var why error // what ended the wait here, if not an answer
	select {
	case <-ctx.Done():
		why = context.Cause(ctx)
	case <-cctx.Done():
		why = context.Cause(cctx)
	case <-s.eof:
	case got := <-q.reply:
		q.reply <- got
	}
	s.mu.Lock()
	s.unask(q, answer{err: why})
	s.mu.Unlock()
	s.drain()
	got := <-q.reply // what ended it first: an answer, or unask's why
	msg, err := got.msg, got.err
	if e := msg.get("error"); e.exists() {
		why := string(e.raw())
		if m := e.get("message"); m.kind() == '"' {
			why = m.text()
		}
		err = fmt.Errorf("%w: the question got the error %s", errCannotAsk, quoteText(why))
	}
	if !msg.exists() && err == nil {
		err = inputEnded
	}
	s.log.printf("mcp: asked id=%q %v %v", q.id, time.Since(start), cmp.Or[any](err, "answered"))
	return msg.get("result"), err
}

// unask ends q's wait with a, unless it has ended: the client's answer,
// or why none will come, which the client is told (not at the end of
// input), so that it can stop asking. With mu held.
func (s *server) unask(q *question, a answer) {
	if s.asking[q.id] != q {
		return
	}
	delete(s.asking, q.id)
	if a.err != nil {
		s.note(render(func(w *bufio.Writer) {
			writeJSON(w, obj{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", obj{{"requestId", q.id}, {"reason", a.err.Error()}}}})
		}), false)
	}
	q.reply <- a // room for one, and this is the one
}

// answered hands a client's response to the question of its id that
// waits; a response to none (never asked, or whose wait ended), and one
// that is not a JSON-RPC 2.0 response, result or error, are ignored.
func (s *server) answered(req *request) {
	var q *question
	s.mu.Lock()
	if req.jsonrpc.is("2.0") && req.id.kind() == '"' && req.result.exists() != req.error.exists() && !req.inBatch {
		if q = s.asking[req.id.text()]; q != nil {
			s.unask(q, answer{msg: req.msg.keep()})
		}
	}
	s.mu.Unlock()
	if q == nil {
		s.log.printf("mcp: - id=%s a response to no question waiting: ignored", logID(req.id))
	}
}

// ==== Reading lines ====

// readSize is how much the line reader asks each read for.
const readSize = 64 << 10

// lineReader reads lines, each in bytes that nothing read later
// overwrites: it reads into a buffer until it is full, then into a new
// one; a line that spans buffers is joined into bytes of its own. A line
// is held by whatever keeps it, and no more.
type lineReader struct {
	read    func([]byte) (int, error)
	max     int    // the longest line returned
	buf     []byte // read into: buf[at:] is read and not returned
	at      int
	started bool  // a line was returned: no byte order mark is skipped now
	err     error // what ended reading: io.EOF at the end
}

// newLineReader returns a lineReader that reads by read, lines of up to
// max bytes.
func newLineReader(read func([]byte) (int, error), max int) *lineReader {
	return &lineReader{read: read, max: max}
}

// next returns the next line without its "\n" or "\r\n", a last one
// without "\n" too, then io.EOF: the end of input is the end, though a
// terminal could be read again after Ctrl-D. A line over the limit is
// dropped as it is read, never held whole, and reported as tooLong. A
// byte order mark leading the input is skipped.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	// The "\r" of "\r\n", and a byte order mark leading the input, are
	// trimmed once the line is whole: until then, they are slack.
	slack := len("\r")
	if !lr.started {
		slack += len("\uFEFF")
	}
	var pieces [][]byte // of the line, in buffers read before
	size := 0           // their bytes, or, once over the limit, those dropped
	mine := false       // buf holds nothing but this line: dropped, it is read into again
	for {
		if i := bytes.IndexByte(lr.buf[lr.at:], '\n'); i >= 0 {
			line, lr.at = lr.buf[lr.at:lr.at+i:lr.at+i], lr.at+i+1
			break
		} else if lr.err == io.EOF && (lr.at < len(lr.buf) || size > 0) {
			line, lr.at = lr.buf[lr.at:len(lr.buf):len(lr.buf)], len(lr.buf)
			break
		} else if lr.err != nil {
			return nil, false, lr.err
		}
		if size+len(lr.buf)-lr.at-slack > lr.max { // over: what is read of it goes
			size, pieces, lr.at = size+len(lr.buf)-lr.at, nil, len(lr.buf)
		}
		switch {
		case cap(lr.buf)-len(lr.buf) >= readSize/8: // room for a read
		case mine && pieces == nil && lr.at == len(lr.buf): // all dropped: read into it again
			lr.buf, lr.at = lr.buf[:0], 0
		default: // about full: the line goes on in a new one
			if rest := lr.buf[lr.at:]; len(rest) > 0 {
				size, pieces = size+len(rest), append(pieces, rest)
			}
			lr.buf, lr.at, mine = make([]byte, 0, readSize), 0, true
		}
		n, err := lr.read(lr.buf[len(lr.buf):cap(lr.buf)])
		lr.buf, lr.err = lr.buf[:len(lr.buf)+n], err
	}
	if size+len(line)-slack > lr.max {
		return nil, true, nil
	} else if pieces != nil {
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
