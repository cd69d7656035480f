// This file is the server's handling of messages, in three parts: the
// protocol (a line becomes requests; the method table; the handlers,
// which decide a reply and write nothing), reading JSON (the scanner, the
// walks, strings and numbers as JavaScript reads them) and writing JSON
// (the one encoder of replies). Requests are read straight from the
// line's bytes, replies appended to the output buffer: no allocation.

package main

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// ==== Part 1: the protocol ====

// JSON-RPC 2.0 and MCP error codes.
const (
	codeParseError         = -32700 // the line is not JSON
	codeInvalidRequest     = -32600 // JSON, but not a request object; or a line over the limit
	codeMethodNotFound     = -32601 // no such method (in the request's protocol era)
	codeInvalidParams      = -32602 // params malformed, or naming a tool or resource we lack (2026-07-28)
	codeInternalError      = -32603 // a handler failed; the server goes on
	codeResourceNotFound   = -32002 // legacy versions only; 2026-07-28 uses codeInvalidParams
	codeUnsupportedVersion = -32022 // 2026-07-28: _meta names a version we do not speak
)

// rpcError is a JSON-RPC error; the zero value is none. Client text in it
// is the JSON string the request carried, for the writer to write as
// JSON.stringify writes the string it denotes.
type rpcError struct {
	code    int
	message string // text of ours
	tool    []byte // Unknown tool: the name asked for, which ends the message
	data    string // raw JSON of ours, or ""
	uri     []byte // Resource not found: the URI asked for; data is {"uri":URI}
	version []byte // Unsupported protocol version: the one asked for, in data

	// For the log only, why params are invalid: which member, the value
	// it had (nil: none), and what it must be.
	member string
	got    []byte
	want   string
}

// The errors that carry nothing but their code and message.
var (
	errParse          = rpcError{code: codeParseError, message: "Parse error"}
	errInvalidRequest = rpcError{code: codeInvalidRequest, message: "Invalid Request"}
	errMethodNotFound = rpcError{code: codeMethodNotFound, message: "Method not found"}
	errInternal       = rpcError{code: codeInternalError, message: "Internal error"}
)

// invalidParams is Invalid params because the member of the request's
// params had the value got (nil: it had none) where it must be want.
func invalidParams(member string, got []byte, want string) rpcError {
	return rpcError{code: codeInvalidParams, message: "Invalid params", member: member, got: got, want: want}
}

// reason says, for the log, why params were invalid: "" if not known.
func (e *rpcError) reason() string {
	switch {
	case e.member == "":
		return ""
	case e.got == nil:
		return e.member + " is missing"
	}
	t := jsonType(e.got)
	article := "a "
	if strings.IndexByte("aeiou", t[0]) >= 0 {
		article = "an "
	}
	return e.member + " is " + article + t + ", not " + e.want
}

// reply is what a handler decides to answer, for the writer to write. It
// is made by errorReply, fixedReply or toolReply; the zero reply is none,
// which decide answers with Internal error.
type reply struct {
	err    rpcError   // an error, if err.code is not 0
	fixed  string     // else a fixed result, raw JSON, if not ""
	tool   toolResult // else a tool's result
	modern bool       // the tool's result in the 2026-07-28 shape
}

// errorReply is the reply that is the error e.
func errorReply(e rpcError) reply { return reply{err: e} }

// fixedReply is the reply whose result is the raw JSON result.
func fixedReply(result string) reply { return reply{fixed: result} }

// toolReply is the reply whose result is a tool's, in the 2026-07-28
// shape if modern.
func toolReply(t toolResult, modern bool) reply { return reply{tool: t, modern: modern} }

// none reports whether r is no reply at all.
func (r *reply) none() bool { return r.err.code == 0 && r.fixed == "" && r.tool.form == noText }

// Protocol versions. A request whose _meta names modernVersion is answered
// statelessly with 2026-07-28 shapes; every other request gets the legacy
// shapes, whether or not initialize came first.
const (
	modernVersion       = "2026-07-28"
	latestLegacyVersion = "2025-11-25" // what initialize answers to a version it does not know
)

// legacyVersions are the initialize-era versions we speak, newest first.
var legacyVersions = []string{latestLegacyVersion, "2025-06-18", "2025-03-26", "2024-11-05"}

// legacyIndex returns the index of v in legacyVersions, or -1.
func legacyIndex(v []byte) int {
	for i, lv := range legacyVersions {
		if string(v) == lv {
			return i
		}
	}
	return -1
}

// methods is the method table: every method we serve, whether 2026-07-28
// removed it (then it is Method not found there), and its handler, which
// is given the request with its params checked to be an object, if any.
var methods = []struct {
	name    string
	removed bool
	handle  func(*server, *request) reply
}{
	{"tools/call", false, (*server).handleToolsCall},
	{"resources/read", false, (*server).handleResourcesRead},
	{"tools/list", false, func(_ *server, req *request) reply { return listReply(req, results().toolsList) }},
	{"resources/list", false, func(_ *server, req *request) reply { return listReply(req, results().resourcesList) }},
	{"resources/templates/list", false, func(_ *server, req *request) reply { return listReply(req, results().templatesList) }},
	{"initialize", true, (*server).handleInitialize},
	{"ping", true, func(*server, *request) reply { return fixedReply("{}") }},
	// It is answered in either era, in its only shape, the 2026-07-28 one.
	{"server/discover", false, func(*server, *request) reply { return fixedReply(results().discover) }},
}

// Who we are, in initialize and server/discover results. serverVersion is
// the release version, which -version also prints.
const (
	serverName    = "shipcode-mcp"
	serverVersion = "0.1.0"
)

// Keys of the 2026-07-28 per-request _meta object.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

// fixedResults are the results that never change, encoded once.
type fixedResults struct {
	initialize                              []string // by legacyVersions
	discover                                string
	unsupported                             string // the data of Unsupported protocol version, but the version asked for
	toolsList, resourcesList, templatesList bothEras
	read                                    []bothEras // by resources
}

// results encodes the fixed results on first use, not in package
// initialisation: that runs before main installs its signal handler.
var results = sync.OnceValue(func() *fixedResults {
	capabilities := `"capabilities":{"tools":{},"resources":{}}`
	info := `{"name":` + quote(serverName) + `,"version":` + quote(serverVersion) + `}`
	supported := quoteList(append([]string{modernVersion}, legacyVersions...))
	f := &fixedResults{
		discover: `{"resultType":"complete","supportedVersions":` + supported +
			`,` + capabilities + `,"_meta":{"io.modelcontextprotocol/serverInfo":` + info + `},"ttlMs":3600000,"cacheScope":"public"}`,
		unsupported:   `{"supported":` + supported + `,"requested":`,
		toolsList:     inBothEras(toolList()),
		resourcesList: inBothEras(resourceList()),
		templatesList: inBothEras(`"resourceTemplates":[]`),
	}
	for _, v := range legacyVersions {
		f.initialize = append(f.initialize, `{"protocolVersion":`+quote(v)+`,`+capabilities+`,"serverInfo":`+info+`}`)
	}
	for _, r := range resources {
		f.read = append(f.read, inBothEras(readBody(r)))
	}
	return f
})

// bothEras is a result in its legacy shape and in its 2026-07-28 one,
// which leads with resultType and, as the catalogue is fixed for the
// life of the process, ends with cache hints that let any client keep it
// an hour.
type bothEras struct{ legacy, modern string }

// inBothEras returns the result with the given members in both shapes.
func inBothEras(members string) bothEras {
	return bothEras{"{" + members + "}", `{"resultType":"complete",` + members + `,"ttlMs":3600000,"cacheScope":"public"}`}
}

// in returns the result in the shape of the request's era.
func (b bothEras) in(req *request) string {
	if req.modern {
		return b.modern
	}
	return b.legacy
}

// request is one JSON-RPC request, decoded: slices of the line it came
// in, raw JSON values, nil when absent; the last wins when a member
// repeats, as in JavaScript's JSON.parse (see scanner.slots).
type request struct {
	id     []byte // raw JSON string or number; nil for a notification
	method []byte // the method's JSON string, as sent
	modern bool   // _meta names 2026-07-28: answer with its shapes

	// params, and the members of an object params that handlers read
	// (tool is params.name, of tools/call), and of its _meta.
	params, tool, arguments, uri, protocolVersion, cursor []byte
	version, capabilities                                 []byte
	argumentsAt                                           int // where arguments is, to walk it
}

// answer writes the replies to one line, a message, a batch or neither
// (blank lines are skipped), and ends them with the one newline a line of
// replies gets. tooLong is a line over the limit, whose bytes are gone.
func (s *server) answer(line []byte, tooLong bool) {
	defer s.sc.release()
	i := skipSpace(line, 0)
	end, ok := i, false
	if !tooLong && i < len(line) {
		if end, ok = s.sc.scan(line, i); ok && skipSpace(line, end) < len(line) {
			end, ok = skipSpace(line, end), false // more after the value
		}
	}
	wrote := true
	switch {
	case tooLong:
		if s.tooLong.code == 0 {
			s.tooLong = errInvalidRequest
			s.tooLong.data = quote("message longer than " + strconv.Itoa(s.max) + " bytes")
		}
		s.putReply(nil, errorReply(s.tooLong))
		if s.log != nil {
			s.log.printf("mcp: - line over %d bytes skipped", s.max)
		}
	case i == len(line):
		wrote = false
	case !ok:
		s.putReply(nil, errorReply(errParse))
		if s.log != nil {
			s.log.printf("mcp: - id=null error %d: %s", codeParseError, notJSON(line, end))
		}
	case line[i] == '[':
		wrote = s.handleBatch(i)
	default:
		wrote = s.handleMessage(&walk{at: i, end: end}, -1)
	}
	if wrote {
		s.out.endLine()
	}
}

// notJSON says, for the log, why a line is not JSON, given where the scan
// stopped.
func notJSON(line []byte, at int) string {
	if at >= len(line) {
		return "the line ends inside a JSON value (each message must be on one line)"
	}
	return fmt.Sprintf("the line is not JSON: %q at byte %d", line[at:at+1], at)
}

// handleBatch answers the JSON array at offset at of the line, a batch of
// messages, with one array of replies in the same order, leaving out
// notifications, and reports whether it wrote anything: not if no reply
// is owed. The replies are written out as they are made, so that however
// many a batch owes, they are never held at once. It stops at a failed
// write.
func (s *server) handleBatch(at int) bool {
	replies, elems := 0, 0
	for w := s.sc.walk(at); s.out.err == nil && s.sc.nextElement(&w); elems++ {
		if s.handleMessage(&w, replies) {
			replies++
			s.out.spill()
		}
	}
	switch {
	case replies > 0:
		s.out.endBatch()
	case elems == 0:
		s.putReply(nil, errorReply(errInvalidRequest))
		s.log.request(nil, nil, time.Time{}, &errInvalidRequest, false)
	}
	return replies > 0 || elems == 0
}

// handleMessage answers the message the walk w is at (the line's, or a
// batch's element, which it scans again to record its members) if it is
// owed a reply, and reports whether it wrote one: requests and invalid
// messages are owed one; notifications and the client's own responses
// are not. In a batch, replies is how many of its replies were written
// before; otherwise it is -1.
func (s *server) handleMessage(w *walk, replies int) bool {
	s.sc.newMessage()
	if replies >= 0 { // the line's scan recorded no element's members
		w.end, _ = s.sc.scan(s.sc.line, w.at)
	}
	req := &s.req
	*req = request{}
	ok := s.decodeEnvelope(w.at, req)
	if ok && req.id == nil {
		return false
	}
	var start time.Time
	if s.log != nil {
		start = time.Now()
	}
	var r reply
	if ok {
		r = s.decide(req)
	} else {
		r = errorReply(errInvalidRequest)
	}
	if replies >= 0 {
		s.out.element(replies == 0)
	}
	s.putReply(req.id, r)
	s.log.request(req.method, req.id, start, &r.err, r.tool.isError)
	return true
}

// putReply writes r, the reply to the request with the given id. If
// writing it panics, the request gets Internal error in its place, and
// the session goes on; unless some of the reply was written out already
// (only one of more than flushSize can be): then the line cannot be made
// whole, and the session ends with errCutReply.
func (s *server) putReply(id []byte, r reply) {
	m := s.out.mark()
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if s.log != nil {
			s.log.printf("mcp: panic while writing the reply to id=%s: %s", logID(id), logQuote([]byte(fmt.Sprint(p))))
		}
		if !s.out.takeBack(m) {
			s.out.err = errCutReply
			return
		}
		s.out.reply(id, &reply{err: errInternal})
	}()
	s.out.reply(id, &r)
}

// errCutReply is why the session ends when a reply was cut by a panic
// after some of it was written.
var errCutReply = errors.New("a reply was cut short by a panic after part of it was written")

// decodeEnvelope reads the message the scan at offset at recorded into
// req, which is empty, and reports whether it is a request or
// notification. A response from the client is neither, but is owed
// nothing: then req.id is left nil and it reports true. When the message
// is invalid, req.id keeps its id if that was valid.
func (s *server) decodeEnvelope(at int, req *request) bool {
	sc := &s.sc
	if sc.line[at] != '{' {
		return false
	}
	jsonrpc, method := sc.slot(slotJSONRPC), sc.slot(slotMethod)
	if req.id = sc.slot(slotID); method == nil && sc.slot(slotResponse) != nil {
		req.id = nil // a response: owed nothing
		return true
	}
	if id := req.id; id != nil && id[0] != '"' && id[0] != '-' && !isDigit(id[0]) {
		req.id = nil // not an id: the reply's is null
		return false
	}
	if method == nil || method[0] != '"' || jsonrpc == nil || jsonrpc[0] != '"' || string(sc.decode(jsonrpc)) != "2.0" {
		return false
	}
	req.method, req.params = method, sc.slot(slotParams)
	req.tool, req.arguments, req.uri = sc.slot(slotTool), sc.slot(slotArguments), sc.slot(slotURI)
	req.protocolVersion, req.cursor = sc.slot(slotProtocolVersion), sc.slot(slotCursor)
	req.version, req.capabilities = sc.slot(slotVersion), sc.slot(slotCapabilities)
	req.argumentsAt = sc.slots[slotArguments][0]
	return true
}

// decide returns the reply to a request: the error its _meta or params
// earn, or what its method's handler returns. Every method takes an
// object as params, or none. A handler that panics, or returns no reply,
// gets Internal error, and the session goes on: nothing of its reply was
// written yet.
func (s *server) decide(req *request) (r reply) {
	defer func() {
		if p := recover(); p != nil {
			r = errorReply(errInternal)
			if s.log != nil {
				s.log.printf("mcp: panic in %s: %s", logString(req.method), logQuote([]byte(fmt.Sprint(p))))
			}
		}
	}()
	method := s.sc.decode(req.method)
	if err := s.era(req, string(method) == "server/discover"); err.code != 0 {
		return errorReply(err)
	}
	for _, m := range methods {
		switch {
		case string(method) != m.name:
		case m.removed && req.modern:
			return errorReply(errMethodNotFound)
		case req.params != nil && req.params[0] != '{':
			return errorReply(invalidParams("params", req.params, "an object"))
		default:
			if r = m.handle(s, req); r.none() {
				panic("the handler returned no reply")
			}
			return r
		}
	}
	return errorReply(errMethodNotFound)
}

// era sets req.modern from params._meta: a request that names 2026-07-28
// there must also carry the client's capabilities; one that names a
// legacy version we speak, or none, is legacy; server/discover (discover)
// must name one.
func (s *server) era(req *request, discover bool) rpcError {
	version, caps := req.version, req.capabilities
	switch {
	case version == nil && discover, version != nil && version[0] != '"':
		return metaRequired("_meta."+metaProtocolVersion, version, "a string")
	case version == nil:
		return rpcError{}
	}
	v := s.sc.decode(version)
	switch {
	case string(v) == modernVersion && (caps == nil || caps[0] != '{'):
		return metaRequired("_meta."+metaClientCapabilities, caps, "an object")
	case string(v) == modernVersion:
		req.modern = true
		return rpcError{}
	case legacyIndex(v) >= 0:
		return rpcError{}
	}
	return rpcError{code: codeUnsupportedVersion, message: "Unsupported protocol version", version: version}
}

// metaRequired is Invalid params for a _meta member that is missing or
// mistyped, whose data names the member.
func metaRequired(member string, got []byte, want string) rpcError {
	e := invalidParams(member, got, want)
	e.data = `{"required":` + quote(member) + `}`
	return e
}

// handleInitialize answers the legacy handshake with the client's version
// when we speak it, else our newest legacy version.
func (s *server) handleInitialize(req *request) reply {
	i := 0
	if v := req.protocolVersion; v != nil && v[0] == '"' {
		i = max(legacyIndex(s.sc.decode(v)), 0)
	}
	return fixedReply(results().initialize[i])
}

// listReply answers a list method with its catalogue's result. We never
// paginate, so any cursor is one we did not issue.
func listReply(req *request, list bothEras) reply {
	if req.cursor != nil {
		return errorReply(invalidParams("params.cursor", req.cursor, "absent: mcp issues no cursors"))
	}
	return fixedReply(list.in(req))
}

// handleToolsCall checks the arguments against the tool's inputSchema and
// runs the tool. Malformed params are a protocol error; arguments that
// break the schema are a tool result with isError, which names the tool,
// the argument and the fault, so a model can correct itself.
func (s *server) handleToolsCall(req *request) reply {
	name, args := req.tool, req.arguments
	switch {
	case name == nil || name[0] != '"':
		return errorReply(invalidParams("params.name", name, "a string"))
	case args != nil && args[0] != '{':
		return errorReply(invalidParams("params.arguments", args, "an object"))
	}
	t := findTool(s.sc.decode(name))
	if t == nil {
		return errorReply(rpcError{code: codeInvalidParams, message: "Unknown tool: ", tool: name[1 : len(name)-1]})
	}
	if len(s.vals) < len(t.args) {
		s.vals = make([][]byte, len(t.args))
	}
	vals := s.vals[:len(t.args)]
	defer clear(vals) // slices of the line, which may be huge: do not keep it
	var extra []byte  // the first argument the schema does not allow
	if args != nil {
		for w := s.sc.walk(req.argumentsAt); s.sc.next(&w); {
			if a := t.argIndex(w.key); a >= 0 {
				vals[a] = s.sc.value(&w)
			} else if extra == nil {
				extra = w.keyLit
			}
		}
	}
	if s.scratch = t.problems(s.scratch[:0], vals, extra); len(s.scratch) > 0 {
		return toolReply(toolResult{form: plainText, text: s.scratch, isError: true}, req.modern)
	}
	r := t.run(arguments{t.args, vals})
	if r.form == noText {
		panic("the tool returned no result (toolResult{})")
	}
	return toolReply(r, req.modern)
}

// handleResourcesRead answers one resource's contents. An unknown URI is
// -32002 in legacy versions and -32602 in 2026-07-28, with the URI as data.
func (s *server) handleResourcesRead(req *request) reply {
	if req.uri == nil || req.uri[0] != '"' {
		return errorReply(invalidParams("params.uri", req.uri, "a string"))
	}
	if i := findResource(s.sc.decode(req.uri)); i >= 0 {
		return fixedReply(results().read[i].in(req))
	}
	code := codeResourceNotFound
	if req.modern {
		code = codeInvalidParams
	}
	return errorReply(rpcError{code: code, message: "Resource not found", uri: req.uri})
}

// ==== Part 2: reading JSON ====
//
// A line is validated in full by scan, which records on the way where
// the members handlers read are; walks read the rest they need (a tool's
// arguments, a batch's elements) from its text; strings and numbers are
// decoded as JavaScript decodes them.

// ---- The scan ----

// scanner validates a line and, in the same pass, records where the
// members that handlers read are (see slot); it then walks what they read
// further (see walk) and decodes strings (see decode). It owns the line
// and the space strings are decoded into; all it returns is valid until
// the next line is scanned.
type scanner struct {
	line    []byte           // the line last scanned
	stack   nesting          // containers open while scanning
	slots   [numSlots][2]int // where each recorded value starts and ends; {0, 0}: none
	kinds   [5]byte          // for depths 1 to 4, the kind of the open container (inMessage...)
	open    [5]int           // for depths 1 to 4, the slot whose value the open container is, or -1
	pending int              // the slot whose value starts next, or -1
	decoded []byte           // strings of the message in hand, decoded, see decode
	key     []byte           // the member key last decoded, see scanKey and next
}

// The members whose values scan records, the last of each when one
// repeats (as JSON.parse keeps it), by the object they are in: the
// message (the value scanned, if an object), its params, and params._meta.
// Recording them as the line is validated saves reading the line again:
// callgrind, the 100,000 requests of the bench mix, 964M instructions
// when walks found them, 771M now.
const (
	slotJSONRPC = iota // in the message
	slotID
	slotMethod
	slotParams
	slotResponse // "result" or "error": the message is a client's response
	slotTool     // in params: name
	slotArguments
	slotURI
	slotProtocolVersion
	slotCursor
	slotMeta         // _meta
	slotVersion      // in _meta: io.modelcontextprotocol/protocolVersion
	slotCapabilities // io.modelcontextprotocol/clientCapabilities
	numSlots
)

// The kinds of object whose members scan records; inOther is any other
// object or array.
const (
	inOther = iota
	inMessage
	inParams
	inMeta
)

// slotOf returns the slot of the member key of an object of the given
// kind, or -1 if none is recorded.
func slotOf(kind byte, key []byte) int {
	switch kind {
	case inMessage:
		switch string(key) {
		case "jsonrpc":
			return slotJSONRPC
		case "id":
			return slotID
		case "method":
			return slotMethod
		case "params":
			return slotParams
		case "result", "error":
			return slotResponse
		}
	case inParams:
		switch string(key) {
		case "name":
			return slotTool
		case "arguments":
			return slotArguments
		case "uri":
			return slotURI
		case "protocolVersion":
			return slotProtocolVersion
		case "cursor":
			return slotCursor
		case "_meta":
			return slotMeta
		}
	case inMeta:
		switch string(key) {
		case metaProtocolVersion:
			return slotVersion
		case metaClientCapabilities:
			return slotCapabilities
		}
	}
	return -1
}

// slot returns the recorded value, raw JSON, or nil if there is none.
func (sc *scanner) slot(k int) []byte {
	if v := sc.slots[k]; v[1] > 0 {
		return sc.line[v[0]:v[1]]
	}
	return nil
}

// scan checks that a JSON value starts at b[i] and returns the index just
// past it, with ok; if there is none, it returns the index of the first
// byte that cannot be part of one (len(b) if the line ends first). It
// keeps b as the line the walks read, and its own stack instead of
// recursing, so a value nested a million deep is only as costly as its
// length.
func (sc *scanner) scan(b []byte, i int) (end int, ok bool) {
	sc.line, sc.stack.n, sc.slots, sc.pending = b, 0, [numSlots][2]int{}, -1
	for {
		// A value starts at i.
		if i = skipSpace(b, i); i >= len(b) {
			return i, false
		}
		sc.valueStarts(i)
		switch c := b[i]; c {
		case '{', '[':
			if j := skipSpace(b, i+1); j < len(b) && b[j] == c+2 {
				i, ok = j+1, true // empty: the value ends here
				break
			}
			if sc.enter(c + 2); c == '{' {
				i, ok = sc.scanKey(b, i+1)
			} else {
				i, ok = i+1, true
			}
			if !ok {
				return i, false
			}
			continue // a member's or element's value starts at i
		case '"':
			i, _, ok = scanString(b, i)
		case 't', 'f', 'n':
			i, ok = scanLiteral(b, i)
		default:
			i, ok = scanNumber(b, i)
		}
		if ok {
			sc.valueEnds(sc.pending, i)
			i, ok = sc.valueEnded(b, i)
		}
		if !ok || sc.stack.n == 0 {
			return i, ok
		}
	}
}

// valueStarts records where the value of the member scanKey last read
// starts, if it is recorded. A new params or _meta replaces an earlier
// one: what that one's members recorded is forgotten.
func (sc *scanner) valueStarts(i int) {
	switch k := sc.pending; k {
	case -1:
		return
	case slotParams:
		clear(sc.slots[slotTool:])
	case slotMeta:
		clear(sc.slots[slotVersion:])
	}
	sc.slots[sc.pending] = [2]int{i, 0}
}

// valueEnds records that the value of slot k (if not -1) ends before b[i].
func (sc *scanner) valueEnds(k, i int) {
	if k >= 0 {
		sc.slots[k][1] = i
	}
	sc.pending = -1
}

// enter opens a container that closer ('}' or ']') will close, and notes,
// down to depth 4 (the value of a member of _meta), what kind it is and
// whose value.
func (sc *scanner) enter(closer byte) {
	sc.stack.push(closer)
	if d := sc.stack.n; d < len(sc.kinds) {
		kind := byte(inOther)
		switch {
		case closer != '}':
		case d == 1:
			kind = inMessage
		case sc.pending == slotParams:
			kind = inParams
		case sc.pending == slotMeta:
			kind = inMeta
		}
		sc.kinds[d], sc.open[d], sc.pending = kind, sc.pending, -1
	}
}

// valueEnded is called when a value ended just before b[i]: it closes the
// containers that end there, and returns the index where the next value
// starts (past a ',', and in an object past the next key), or past the
// last closer when none is left open.
func (sc *scanner) valueEnded(b []byte, i int) (int, bool) {
	for sc.stack.n > 0 {
		if i = skipSpace(b, i); i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			if sc.stack.top() == '}' {
				return sc.scanKey(b, i+1)
			}
			return i + 1, true
		case sc.stack.top():
			if d := sc.stack.n; d < len(sc.kinds) {
				sc.valueEnds(sc.open[d], i+1)
			}
			sc.stack.n--
			i++
		default:
			return i, false
		}
	}
	return i, true
}

// scanKey checks an object member's `"key":` from b[i] on and returns the
// index past the colon. In an object whose members are recorded, the
// member's value is next: pending is its slot, or -1. A key is decoded to
// be looked up only if it has escapes and is short enough to match (see
// maxLookup).
func (sc *scanner) scanKey(b []byte, i int) (int, bool) {
	if i = skipSpace(b, i); i >= len(b) || b[i] != '"' {
		return i, false
	}
	key := i
	end, escaped, ok := scanString(b, i)
	if !ok {
		return end, false
	}
	if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
		return i, false
	}
	if d := sc.stack.n; d < len(sc.kinds) && sc.kinds[d] != inOther {
		name := b[key+1 : end-1]
		if escaped && len(name) <= maxLookup {
			sc.key = unquote(sc.key[:0], name)
			name = sc.key
		}
		sc.pending = slotOf(sc.kinds[d], name)
	}
	return i + 1, true
}

// nesting is the stack of containers open while scanning, a bit for each,
// so that 64 MiB of '[' needs 8 MiB of stack rather than 64 MiB.
type nesting struct {
	bits []uint64 // bit i%64 of bits[i/64] is 1 if container i is an object
	n    int      // containers open
}

// push opens a container that closer ('}' or ']') will close.
func (st *nesting) push(closer byte) {
	if st.n/64 == len(st.bits) {
		st.bits = append(st.bits, 0)
	}
	bit := uint64(1) << (st.n % 64)
	if closer == '}' {
		st.bits[st.n/64] |= bit
	} else {
		st.bits[st.n/64] &^= bit
	}
	st.n++
}

// top returns the closer of the innermost open container.
func (st *nesting) top() byte {
	if st.bits[(st.n-1)/64]>>((st.n-1)%64)&1 != 0 {
		return '}'
	}
	return ']'
}

// scanLiteral checks the true, false or null at b[i] and returns the
// index past it.
func scanLiteral(b []byte, i int) (int, bool) {
	lit := "null"
	switch b[i] {
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	}
	for k := range len(lit) {
		if i+k >= len(b) || b[i+k] != lit[k] {
			return i + k, false
		}
	}
	return i + len(lit), true
}

// scanNumber checks the JSON number at b[i] and returns the index past it.
func scanNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		if i = skipDigits(b, i+1); b[i-1] == '.' {
			return i, false // no digit after the point
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i < len(b)-1 && (b[i+1] == '+' || b[i+1] == '-') {
			i++
		}
		if i = skipDigits(b, i+1); !isDigit(b[i-1]) {
			return i, false // no digit in the exponent
		}
	}
	return i, true
}

// skipDigits returns the index of the first non-digit at or after i.
func skipDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// isDigit reports whether c is an ASCII digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skipSpace returns the index of the first byte of b at or after i that
// is not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString checks the JSON string at b[i] and returns the index past
// it, and whether it has escapes. Bytes that are not UTF-8 are allowed
// here; they read as U+FFFD.
func scanString(b []byte, i int) (end int, escaped, ok bool) {
	for i++; ; {
		if i = nextSpecial(b, i, false); i >= len(b) {
			return i, false, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, true
		case c != '\\': // a control character
			return i, false, false
		case i+1 == len(b):
			return i + 1, false, false
		case strings.IndexByte(shortEscapes+"/", b[i+1]) >= 0:
			i += 2
		case b[i+1] != 'u':
			return i + 1, false, false
		default: // \u and four hex digits
			j := i + 2
			for j < min(i+6, len(b)) && unhex(b[j]) >= 0 {
				j++
			}
			if j < i+6 {
				return j, false, false // a byte that is not a hex digit, or the end
			}
			i = j
		}
		escaped = true
	}
}

// JSON's one-letter escapes, and the characters they stand for.
const (
	shortEscapes = "bfnrt\"\\"
	shortEscaped = "\b\f\n\r\t\"\\"
)

// hex4 returns the value of the four hex digits that b starts with.
func hex4(b []byte) rune {
	return unhex(b[0])<<12 | unhex(b[1])<<8 | unhex(b[2])<<4 | unhex(b[3])
}

// unhex returns the value of the hex digit c, or -1.
func unhex(c byte) rune {
	switch lc := c | 0x20; {
	case isDigit(c):
		return rune(c - '0')
	case lc >= 'a' && lc <= 'f':
		return rune(lc - 'a' + 10)
	}
	return -1
}

// nextSpecial returns the index of the first byte at or after i that is
// '"', '\\' or a control character, or, with high, a byte of a multi-byte
// UTF-8 sequence; len(b) if there is none. It tests eight bytes at a time:
// with a byte at a time, BenchmarkEcho16MiB takes a third longer.
func nextSpecial(b []byte, i int, high bool) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		m := specialMask(x)
		if high {
			m |= x & highs
		}
		if m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 || high && c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// Constants for testing eight bytes at a time.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// specialMask marks, with its high bit, the first byte of x (in memory
// order) that is '"', '\\' or a control character, and maybe later ones:
// a borrow can only run on past the first. It is zero if there are none.
func specialMask(x uint64) uint64 {
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	return ((q-ones)&^q | (bs-ones)&^bs | (x-ones*0x20)&^x) & highs
}

// release lets go of the line, and of a stack that a deep one grew, so
// that a big line can be collected once answered.
func (sc *scanner) release() {
	sc.line = nil
	if cap(sc.stack.bits) > 1<<10 {
		sc.stack.bits = nil
	}
}

// ---- Walks ----

// walk steps through the members of an object, or the elements of an
// array, of the scanned line, reading its text. After a step that
// reports true, at is where the member's value, or the element, starts
// in the line, and for a member keyLit is its key as sent and key the
// key decoded (see next). A value is read by value, which steps over it,
// or by a walk into it, whose end the caller then sets as this walk's
// end: the next step goes on from there, so that nothing is read twice.
// Offsets, not slices, so that no other line can be walked by mistake.
type walk struct {
	key, keyLit []byte
	at          int // where the value starts
	end         int // where it ends, -1 until known; once the walk is done, past its closer
}

// walk starts a walk over the object or array at offset at of the line.
func (sc *scanner) walk(at int) walk { return walk{at: at, end: at + 1} }

// next steps to the next member of an object. Its key is decoded only if
// it has escapes and could match a name we know (see maxLookup), into
// space that the next step reuses: the walks look keys up, they never
// keep them.
func (sc *scanner) next(w *walk) bool {
	i := sc.skipComma(sc.valueEnd(w))
	if sc.line[i] == '}' {
		w.end = i + 1
		return false
	}
	k := skipString(sc.line, i)
	w.keyLit, w.key = sc.line[i:k], sc.line[i+1:k-1]
	w.at, w.end = skipSpace(sc.line, skipSpace(sc.line, k)+1), -1
	if len(w.key) <= maxLookup && bytes.IndexByte(w.key, '\\') >= 0 {
		sc.key = unquote(sc.key[:0], w.key)
		w.key = sc.key
	}
	return true
}

// nextElement steps to the next element of an array.
func (sc *scanner) nextElement(w *walk) bool {
	i := sc.skipComma(sc.valueEnd(w))
	if sc.line[i] == ']' {
		w.end = i + 1
		return false
	}
	w.at, w.end = i, -1
	return true
}

// value returns the value the walk is at, raw JSON, and steps over it.
func (sc *scanner) value(w *walk) []byte {
	return sc.line[w.at:sc.valueEnd(w)]
}

// valueEnd returns the offset past the value the walk is at, stepping
// over it unless a walk into it did.
func (sc *scanner) valueEnd(w *walk) int {
	if w.end < 0 {
		w.end = sc.skipValue(w.at)
	}
	return w.end
}

// skipComma returns the offset of the member or element, or the closer,
// that follows offset i (just past the opener or a value).
func (sc *scanner) skipComma(i int) int {
	if i = skipSpace(sc.line, i); sc.line[i] == ',' {
		i = skipSpace(sc.line, i+1)
	}
	return i
}

// skipValue returns the offset just past the valid JSON value at offset i
// of the line.
func (sc *scanner) skipValue(i int) int {
	b := sc.line
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		for depth := 0; ; i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

// skipString returns the index just past the valid JSON string at b[i]:
// past the first '"' that does not end a run of backslashes of odd
// length, each found by bytes.IndexByte, 32 bytes at a time on amd64,
// as a string a walk steps over (an echo's text) can be as long as the
// line.
func skipString(b []byte, i int) int {
	for i++; ; i++ {
		i += bytes.IndexByte(b[i:], '"')
		k := i
		for b[k-1] == '\\' {
			k--
		}
		if (i-k)%2 == 0 {
			return i + 1
		}
	}
}

// ---- Strings ----

// maxName is the longest name, key, URI or version we look client text up
// against (checkCatalogue and TestNamesFitLookup check every one), and
// maxLookup the longest string body that can denote one: an escape is at
// most 6 bytes for each byte it stands for. A longer body matches nothing
// whether decoded or not, and is not decoded, whatever a client sends.
const (
	maxName   = 128
	maxLookup = 6 * maxName
)

// decode returns the decoded contents of the JSON string lit, for
// comparing with names we know: in place when it has no escapes or is too
// long to match (see maxLookup), else decoded into space kept until the
// next message. A message decodes at most a few strings this way
// (jsonrpc, method, a version, a tool name or URI), so that space stays
// small.
func (sc *scanner) decode(lit []byte) []byte {
	body := lit[1 : len(lit)-1]
	if len(body) > maxLookup || bytes.IndexByte(body, '\\') < 0 {
		return body
	}
	start := len(sc.decoded)
	sc.decoded = unquote(sc.decoded, body)
	return sc.decoded[start:len(sc.decoded):len(sc.decoded)]
}

// newMessage lets go of the strings decode decoded for the last message.
func (sc *scanner) newMessage() { sc.decoded = sc.decoded[:0] }

// unquote appends the decoded contents of a JSON string body to dst, in
// WTF-8: UTF-8 that also carries lone surrogates, so none is lost.
func unquote(dst, body []byte) []byte {
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			r, n := readEscape(body, i)
			if r >= 0xD800 && r < 0xE000 {
				dst = append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
			} else {
				dst = utf8.AppendRune(dst, r)
			}
			i += n
		default:
			r, n, _ := decodeRune(body[i:], false)
			dst = utf8.AppendRune(dst, r)
			i += n
		}
	}
	return dst
}

// readEscape decodes the escape at s[i] (a backslash) of a valid JSON
// string's body and returns the character and the escape's length. A \u
// pair that forms a surrogate pair reads as one character; a lone
// surrogate is returned as it is, as JavaScript keeps it.
func readEscape(s []byte, i int) (r rune, n int) {
	if c := s[i+1]; c != 'u' {
		if j := strings.IndexByte(shortEscapes, c); j >= 0 {
			return rune(shortEscaped[j]), 2
		}
		return rune(c), 2 // '/'
	}
	r = hex4(s[i+2:])
	if r >= 0xD800 && r < 0xDC00 && i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
		if lo := hex4(s[i+8:]); lo >= 0xDC00 && lo < 0xE000 {
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12
		}
	}
	return r, 6
}

// decodeRune decodes the character at the start of b (not empty) and
// reports ok if its n bytes are its UTF-8, to be copied as they are. Bytes
// that are not UTF-8 read as one U+FFFD for each maximal invalid subpart,
// as in the WHATWG Encoding standard that JavaScript's TextDecoder and
// Node's Buffer follow: the longest start of b (of at most 3 bytes) that,
// completed with continuation bytes, is a character. With wtf8, the three
// bytes WTF-8 gives a surrogate are a character too, and a high one
// followed by a low one the character the pair stands for; neither is
// UTF-8, so ok is false. (TestDecodeRune checks every sequence of up to
// three bytes against a decoder written from the standard's algorithm,
// FuzzToolText the rest.)
func decodeRune(b []byte, wtf8 bool) (r rune, n int, ok bool) {
	r, n = utf8.DecodeRune(b)
	if r != utf8.RuneError || n > 1 {
		return r, n, true
	}
	if wtf8 {
		if r, n := surrogate(b); n > 0 {
			return r, n, false
		}
	}
	for n = min(len(b), 3); n > 1; n-- {
		q := [4]byte{0x80, 0x80, 0x80, 0x80}
		copy(q[:], b[:n])
		if r, size := utf8.DecodeRune(q[:]); r != utf8.RuneError && size > n {
			break
		}
		if _, size := surrogate(q[:]); wtf8 && size > n {
			break
		}
	}
	return utf8.RuneError, n, false
}

// surrogate decodes a surrogate in the three bytes WTF-8 gives it at the
// start of b, or a high and a low one in six into the character they
// stand for; n is 0 if b does not start with one.
func surrogate(b []byte) (r rune, n int) {
	if len(b) < 3 || b[0] != 0xED || b[1] < 0xA0 || b[1] > 0xBF || b[2]&0xC0 != 0x80 {
		return 0, 0
	}
	r = 0xD000 | rune(b[1]&0x3F)<<6 | rune(b[2]&0x3F)
	if lo, m := surrogate(b[3:]); r < 0xDC00 && m == 3 && lo >= 0xDC00 {
		return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 6
	}
	return r, 3
}

// ---- Numbers ----

// parseNumber reads a valid JSON number as JavaScript's Number() does: the
// double nearest to its decimal value (ties to even), whatever its length;
// out of range is ±Infinity or ±0, never an error. Its cost is reading
// the literal plus a bounded amount: one floating-point operation in
// Clinger's exact range, else at most a few thousand word operations (see
// exact). strconv.ParseFloat falls back to arithmetic on up to 800 decimal
// digits for some short literals (1e309, 5e-324) and allocates its errors;
// here every shape of BenchmarkNumbers costs at most about twice what
// 1.5 costs per byte of request (the subnormals, 5e-324).
func parseNumber(lit []byte) float64 {
	f := readDecimal(lit).float()
	if lit[0] == '-' {
		return -f // -0 too
	}
	return f
}

// decimal is a number's magnitude as its literal gives it: 0.D x 10^point,
// where D is its significant digits, from the first to the last nonzero.
// w holds the literal's first 19 digits from D's first (which fit a
// uint64), nw of them: past D's last, those are zeros.
type decimal struct {
	digits []byte // the literal from D's first digit to its last, maybe with the '.'
	n      int    // how many digits D has
	point  int64  // where the decimal point falls, in digits from D's first
	w      uint64
	nw     int
}

// readDecimal reads a valid JSON number literal. Its exponent saturates
// far beyond any that matters, so no number of digits can overflow point.
func readDecimal(lit []byte) decimal {
	var d decimal
	i, first, inInt := 0, -1, true
	if lit[0] == '-' {
		i++
	}
	for sig := 0; i < len(lit) && lit[i] != 'e' && lit[i] != 'E'; i++ {
		switch c := lit[i]; {
		case c == '.':
			inInt = false
		case c == '0' && first < 0: // a leading zero
			if !inInt {
				d.point--
			}
		default:
			if first < 0 {
				first = i
			}
			if inInt {
				d.point++
			}
			if sig++; c != '0' {
				d.n, d.digits = sig, lit[first:i+1]
			}
			if d.nw < 19 {
				d.w, d.nw = d.w*10+uint64(c-'0'), d.nw+1
			}
		}
	}
	if i < len(lit) { // the exponent
		neg, x := lit[i+1] == '-', int64(0)
		for _, c := range lit[i+1:] {
			if isDigit(c) && x < 1<<50 { // past any literal's length: out of range
				x = x*10 + int64(c-'0')
			}
		}
		if neg {
			x = -x
		}
		d.point += x
	}
	return d
}

// float returns the double nearest to d.
func (d decimal) float() float64 {
	switch {
	case d.n == 0 || d.point < -323: // under 10^-324, less than half the smallest double
		return 0
	case d.point > 309: // at least 10^309, past the largest (1.8e308)
		return math.Inf(1)
	}
	// d is w x 10^q to nw digits, exactly if they are all its digits (w
	// may end in 0s that are not among D's, which changes nothing).
	q := int(d.point) - d.nw
	switch {
	case d.nw >= d.n && d.w < 1<<53 && q >= -22 && q <= 22:
		// Clinger's fast path: w and 10^|q| are doubles, so one rounding.
		if q < 0 {
			return float64(d.w) / math.Pow10(-q)
		}
		return float64(d.w) * math.Pow10(q)
	case q < -300: // in two steps, neither of which underflows
		return d.exact(float64(d.w) * math.Pow10(q+300) * 1e-300)
	}
	return d.exact(float64(d.w) * math.Pow10(q))
}

// keptDigits is how many significant digits exact uses. Every double, and
// every point halfway between two, is a decimal of at most 767
// significant digits; so the digits past 768 can only say whether the
// value is above such a point or exactly on it, and one more digit, 1 if
// any of them is not 0, says that.
const keptDigits = 768

// exact returns the double nearest to d, given f, a double within a few
// units in the last place of it (or +Inf, standing for the largest): it
// compares d exactly with the points halfway between f and its
// neighbours, and steps f until d lies between the two. That costs
// building d's integers (see integers) and a few comparisons: at most a
// few thousand multiplications of 64-bit words.
func (d decimal) exact(f float64) float64 {
	const inf = 0x7FF << 52 // the bits of +Inf, one step past the largest double
	u := math.Float64bits(min(f, math.MaxFloat64))
	x := d.integers()
	for u != inf {
		if c := x.cmp(halfway(u)); c >= 0 {
			if c == 0 {
				return math.Float64frombits(u + u&1) // a tie goes to the even one
			}
			u++
			continue
		}
		if u == 0 {
			return 0
		}
		switch c := x.cmp(halfway(u - 1)); {
		case c == 0:
			return math.Float64frombits(u - u&1)
		case c > 0:
			return math.Float64frombits(u)
		}
		u--
	}
	return math.Inf(1)
}

// halfway returns the point halfway between the doubles whose bits are u
// and u+1, as h x 2^e.
func halfway(u uint64) (h uint64, e int) {
	exp, frac := int(u>>52), u&(1<<52-1)
	if exp == 0 { // subnormal: frac x 2^-1074
		return 2*frac + 1, -1075
	}
	return 2*(frac|1<<52) + 1, exp - 1076
}

// exactDecimal is a decimal as integers: x x 2^e / p, p a power of 5.
type exactDecimal struct {
	x, p nat
	e    int
}

// integers returns d as x x 2^e / p: with its first keptDigits digits and
// a last one for the rest, D x 10^E, so x = D x 5^E and p = 1 when E >= 0,
// else x = D and p = 5^-E; e = E.
func (d decimal) integers() exactDecimal {
	var z exactDecimal
	chunk, nc, k := uint64(0), 0, 0 // chunk holds nc digits not yet in x; k are taken
	for _, c := range d.digits {
		if c == '.' || k == keptDigits {
			continue
		}
		chunk, nc, k = chunk*10+uint64(c-'0'), nc+1, k+1
		if nc == 19 {
			z.x.mulAdd(1e19, chunk)
			chunk, nc = 0, 0
		}
	}
	z.x.mulAdd(uint64(math.Pow10(nc)), chunk)
	if d.n > keptDigits {
		z.x.mulAdd(10, 1)
		k++
	}
	z.e = int(d.point) - k
	z.p.mulAdd(1, 1)
	if z.e >= 0 {
		z.x.mulPow5(z.e)
	} else {
		z.p.mulPow5(-z.e)
	}
	return z
}

// cmp compares the decimal with h x 2^e: -1, 0 or +1.
func (z *exactDecimal) cmp(h uint64, e int) int {
	x, y := z.x, z.p // x x 2^z.e against y x 2^e, y = p x h
	y.mulAdd(h, 0)
	if z.e > e {
		x.shl(z.e - e)
	} else {
		y.shl(e - z.e)
	}
	return x.cmp(&y)
}

// nat is a natural number in 64-bit words, least significant first, with
// room for any that exact compares: D has at most 769 digits (2,555
// bits) and 5^-E at most 2,537 bits (E >= -323-769); h x 5^-E is under
// 2,600 bits, and a side shifted to meet the other is within a few bits
// of it, as f is near d.
type nat struct {
	w [44]uint64
	n int // words in use; the last is not 0
}

// mulAdd sets z to z x m + a.
func (z *nat) mulAdd(m, a uint64) {
	for i := range z.w[:z.n] {
		hi, lo := bits.Mul64(z.w[i], m)
		lo, c := bits.Add64(lo, a, 0)
		z.w[i], a = lo, hi+c
	}
	if a != 0 {
		z.w[z.n] = a
		z.n++
	}
}

// mulPow5 multiplies z by 5^k, 5^27 at a time, the most that fits a word.
func (z *nat) mulPow5(k int) {
	for ; k > 0; k -= 27 {
		m := uint64(1)
		for range min(k, 27) {
			m *= 5
		}
		z.mulAdd(m, 0)
	}
}

// shl shifts z left by s bits.
func (z *nat) shl(s int) {
	if b := uint(s % 64); b > 0 {
		carry := uint64(0)
		for i := range z.w[:z.n] {
			z.w[i], carry = z.w[i]<<b|carry, z.w[i]>>(64-b)
		}
		if carry != 0 {
			z.w[z.n] = carry
			z.n++
		}
	}
	words := s / 64
	copy(z.w[words:words+z.n], z.w[:z.n])
	clear(z.w[:words])
	z.n += words
}

// cmp compares z with y: -1, 0 or +1.
func (z *nat) cmp(y *nat) int {
	if z.n != y.n {
		return cmp.Compare(z.n, y.n)
	}
	for i := z.n - 1; i >= 0; i-- {
		if z.w[i] != y.w[i] {
			return cmp.Compare(z.w[i], y.w[i])
		}
	}
	return 0
}

// ==== Part 3: writing JSON ====
//
// Every string is written as JSON.stringify writes it (see appendBody),
// every number as String(n) writes it (see appendNumber).

// writer holds the output not yet written. Replies are appended to buf
// and written in batches (see flushSize); a long one is written in pieces
// as it is made (see spill), so no reply is ever held whole. Nothing but
// the writer touches buf.
type writer struct {
	buf     []byte
	out     func([]byte) error // writes all of its argument (server.send)
	err     error              // the first failed write; later output is dropped
	flushes int                // times buf was written or dropped, see mark
}

// spill writes the output so far once it passes flushSize.
func (w *writer) spill() {
	if len(w.buf) >= flushSize {
		w.flush()
	}
}

// flush writes the pending output. After a failure, output is dropped and
// the first error is kept and returned.
func (w *writer) flush() error {
	if len(w.buf) > 0 {
		if w.err == nil {
			w.err = w.out(w.buf)
		}
		w.flushes++
	}
	w.buf = w.buf[:0]
	return w.err
}

// mark is a place in the output, where a reply begins, see takeBack.
type mark struct{ flushes, at int }

// mark returns the place where the next output begins.
func (w *writer) mark() mark { return mark{w.flushes, len(w.buf)} }

// takeBack drops the output since m and reports whether it could: not if
// some of it was written already.
func (w *writer) takeBack(m mark) bool {
	if w.flushes != m.flushes {
		return false
	}
	w.buf = w.buf[:m.at]
	return true
}

// element begins the next reply of a batch: '[' before the first, ','
// before the others.
func (w *writer) element(first bool) {
	if first {
		w.buf = append(w.buf, '[')
	} else {
		w.buf = append(w.buf, ',')
	}
}

// endBatch ends a batch's replies.
func (w *writer) endBatch() { w.buf = append(w.buf, ']') }

// endLine ends the line of replies to one line of requests.
func (w *writer) endLine() { w.buf = append(w.buf, '\n') }

// reply writes r, the reply to the request with the given id (nil for
// null). The id comes back as it came: a number keeps its digits (no trip
// through float64), a string is written as JSON.stringify writes it.
func (w *writer) reply(id []byte, r *reply) {
	w.buf = append(w.buf, `{"jsonrpc":"2.0","id":`...)
	switch {
	case id == nil:
		w.buf = append(w.buf, "null"...)
	case id[0] == '"':
		w.jsonString(id[1:len(id)-1], fromRequest)
	default:
		w.body(id, fromRequest) // digits, written as they came
	}
	switch {
	case r.err.code != 0:
		w.error(&r.err)
	case r.fixed != "":
		w.buf = append(append(w.buf, `,"result":`...), r.fixed...)
	default:
		w.toolResult(&r.tool, r.modern)
	}
	w.buf = append(w.buf, '}')
}

// toolResult writes a reply's result member for a tool's result: its text
// as the one content block, and whether it reports an error.
func (w *writer) toolResult(t *toolResult, modern bool) {
	head := `,"result":{"content":[{"type":"text","text":`
	if modern {
		head = `,"result":{"resultType":"complete","content":[{"type":"text","text":`
	}
	w.buf = append(w.buf, head...)
	if t.form == numberText {
		w.buf = append(appendNumber(append(w.buf, '"'), t.number), '"')
	} else {
		w.jsonString(t.text, t.form)
	}
	w.buf = strconv.AppendBool(append(w.buf, `}],"isError":`...), t.isError)
	w.buf = append(w.buf, '}')
}

// error writes a reply's error member.
func (w *writer) error(e *rpcError) {
	w.buf = strconv.AppendInt(append(w.buf, `,"error":{"code":`...), int64(e.code), 10)
	w.buf = append(w.buf, `,"message":"`...)
	w.body([]byte(e.message), plainText)
	w.body(e.tool, fromRequest)
	w.buf = append(w.buf, '"')
	switch {
	case e.uri != nil:
		w.buf = append(w.buf, `,"data":{"uri":`...)
		w.jsonString(e.uri[1:len(e.uri)-1], fromRequest)
		w.buf = append(w.buf, '}')
	case e.version != nil:
		w.buf = append(append(w.buf, `,"data":`...), results().unsupported...)
		w.jsonString(e.version[1:len(e.version)-1], fromRequest)
		w.buf = append(w.buf, '}')
	case e.data != "":
		w.buf = append(append(w.buf, `,"data":`...), e.data...)
	}
	w.buf = append(w.buf, '}')
}

// bodyChunk is how much of a string is appended at a time before spill
// may write out what is pending.
const bodyChunk = 64 << 10

// jsonString writes s as a JSON string, see body.
func (w *writer) jsonString(s []byte, form textForm) {
	w.buf = append(w.buf, '"')
	w.body(s, form)
	w.buf = append(w.buf, '"')
}

// body writes s, plain text or (form fromRequest) a JSON string's body
// from the request, as the body of a JSON string (see appendBody), in
// pieces of bodyChunk bytes, writing out what is pending after each: it
// can be as long as a line, and three times longer once written (each
// byte that is not UTF-8 becomes U+FFFD), so it is never held whole. A
// piece that is UTF-8 with nothing to escape is copied as it is, which
// bytes.IndexByte (32 bytes at a time) and utf8.Valid (8) tell sooner
// than appendBody: without it, BenchmarkEcho16MiB takes half as long again.
func (w *writer) body(s []byte, form textForm) {
	for len(s) > 0 {
		n := len(s)
		if n > bodyChunk {
			n = bodyChunk
			for k := 0; k < 3 && s[n]&0xC0 == 0x80; k++ {
				n-- // to the start of a character, if the text is UTF-8
			}
		}
		chunk := s[:n]
		switch {
		case form == fromRequest && bytes.IndexByte(chunk, '\\') < 0 && utf8.Valid(chunk),
			form == plainText && nextSpecial(chunk, 0, false) == n && utf8.Valid(chunk):
			w.buf = append(w.buf, chunk...)
		default:
			w.buf, n = appendBody(w.buf, s, n, form == fromRequest)
		}
		s = s[n:]
		w.spill()
	}
}

// appendBody appends the start of s, up to the first character boundary
// at or after limit, as the body of a JSON string, and returns how many
// bytes of s that took. s is plain text, or (fromJSON) the body of a JSON
// string that the scan validated, whose escapes it decodes first. Either
// way it writes what JSON.stringify writes for the string JavaScript
// reads: '"' and '\\' escaped, \b \f \n \r \t by name, other control
// characters as \u00xx, lone surrogates as \udxxx, the rest as UTF-8 (no
// HTML escaping; U+2028 and U+2029 raw). Bytes that are not UTF-8 read as
// U+FFFD by the WHATWG rule, but in plain text the three bytes WTF-8
// gives a surrogate read as that surrogate (see decodeRune). Runs that
// need no change are copied whole.
func appendBody(dst, s []byte, limit int, fromJSON bool) ([]byte, int) {
	limit = min(limit, len(s))
	run, i := 0, 0 // s[run:i] is copied as it is
	for {
		if i < limit {
			i = nextSpecial(s[:limit], i, true)
		}
		if i >= limit {
			return append(dst, s[run:i]...), i
		}
		r, n := rune(s[i]), 1 // '"', a control character, or '\\' in plain text
		switch {
		case r == '\\' && fromJSON:
			r, n = readEscape(s, i)
		case r >= utf8.RuneSelf:
			var ok bool
			if r, n, ok = decodeRune(s[i:], !fromJSON); ok {
				i += n
				continue
			}
		}
		dst = appendRune(append(dst, s[run:i]...), r)
		i += n
		run = i
	}
}

// quote returns the text s, of ours, as a JSON string.
func quote(s string) string {
	b, _ := appendBody([]byte{'"'}, []byte(s), len(s), false)
	return string(append(b, '"'))
}

// quoteList returns a JSON array of the strings in list.
func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ",") + "]"
}

// appendRune appends one character of a JSON string body.
func appendRune(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	switch i := strings.IndexRune(shortEscaped, r); {
	case i >= 0:
		return append(dst, '\\', shortEscapes[i])
	case r < 0x20 || r >= 0xD800 && r < 0xE000:
		return append(dst, '\\', 'u', hex[r>>12], hex[r>>8&0xF], hex[r>>4&0xF], hex[r&0xF])
	}
	return utf8.AppendRune(dst, r)
}

// appendNumber appends f as JavaScript's String(f) writes it (ECMAScript
// Number::toString): the shortest digits that read back as f, in plain
// decimal from 1e-6 up to 1e21 and in exponent form outside, the layout
// encoding/json also uses; NaN, ±Infinity and -0 (written "0") are
// JavaScript's own.
func appendNumber(dst []byte, f float64) []byte {
	switch {
	case f != f:
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		return append(dst, '0')
	}
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if n := len(dst); format == 'e' && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2] = dst[n-1] // e-07 is e-7 in JavaScript
		dst = dst[:n-1]
	}
	return dst
}
