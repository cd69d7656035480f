// This file is the server's handling of messages, in three parts: the
// protocol (a line becomes requests; the method table; the one place a
// reply is opened, given its error and ended), reading JSON (the scanner,
// the walks, string decoding, numbers as JavaScript reads them) and
// writing JSON (the writer, strings and numbers as JavaScript writes
// them). The protocol uses the other two; writing uses the reader's
// string decoding. Requests are read straight from the line's bytes and
// replies appended to the output buffer: a request costs no allocation.

package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"strings"
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

// rpcError is a JSON-RPC error reply: what a handler returns instead of a
// result; the zero value is none. Message and data are fixed text, but for
// client text that ends them, written by appendText: text ends the message
// (an unknown tool's name), and lit, a JSON string, ends data, which is
// then an object (an unknown URI).
type rpcError struct {
	code    int
	message string // fixed ASCII text
	text    []byte // client text, the body of a JSON string, after message
	data    string // raw JSON of data ("" for none), or its start when lit follows
	lit     []byte // a JSON string from the client that ends data's object
}

// The errors that carry nothing but their code and message.
var (
	errParse          = rpcError{code: codeParseError, message: "Parse error"}
	errInvalidRequest = rpcError{code: codeInvalidRequest, message: "Invalid Request"}
	errMethodNotFound = rpcError{code: codeMethodNotFound, message: "Method not found"}
	errInvalidParams  = rpcError{code: codeInvalidParams, message: "Invalid params"}
	errInternal       = rpcError{code: codeInternalError, message: "Internal error"}
)

// Protocol versions. A request whose _meta names modernVersion is answered
// statelessly with 2026-07-28 shapes; every other request gets the legacy
// shapes, whether or not initialize came first.
const (
	modernVersion       = "2026-07-28"
	latestLegacyVersion = "2025-11-25" // what initialize answers to a version it does not know
)

// legacyVersions are the initialize-era versions we speak, newest first.
var legacyVersions = []string{latestLegacyVersion, "2025-06-18", "2025-03-26", "2024-11-05"}

// isLegacy reports whether v is a legacy version we speak.
func isLegacy(v []byte) bool {
	for _, lv := range legacyVersions {
		if string(v) == lv {
			return true
		}
	}
	return false
}

// methods is the method table: every method we serve and its handler.
// call looks a method up in order, so the calls come first: with
// initialize first, the benchmark mix took 1.3% more instructions
// (callgrind, 100,000 requests, at bef886d).
var methods = []struct {
	name   string
	handle func(*server, *request) rpcError
}{
	{"tools/call", (*server).handleToolsCall},
	{"resources/read", (*server).handleResourcesRead},
	{"tools/list", func(s *server, req *request) rpcError { return s.handleList(req, toolsListBody) }},
	{"resources/list", func(s *server, req *request) rpcError { return s.handleList(req, resourcesListBody) }},
	{"resources/templates/list", func(s *server, req *request) rpcError { return s.handleList(req, templatesListBody) }},
	{"initialize", (*server).handleInitialize},
	{"ping", (*server).handlePing},
	{"server/discover", (*server).handleDiscover},
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

// Result fragments that never change, encoded once at start-up so a
// request for them only splices in its id.
const (
	capabilitiesJSON = `{"tools":{},"resources":{}}`
	serverInfoJSON   = `{"name":"` + serverName + `","version":"` + serverVersion + `"}`

	// initializeTail follows "protocolVersion":"V".
	initializeTail = `,"capabilities":` + capabilitiesJSON + `,"serverInfo":` + serverInfoJSON + `}`
)

var (
	// supportedVersionsJSON lists every version we speak, newest first.
	supportedVersionsJSON = quoteList(append([]string{modernVersion}, legacyVersions...))

	// discoverBody is the server/discover result between resultType and the
	// cache fields, in the order of the specification's example.
	discoverBody = `,"supportedVersions":` + supportedVersionsJSON +
		`,"capabilities":` + capabilitiesJSON +
		`,"_meta":{"io.modelcontextprotocol/serverInfo":` + serverInfoJSON + `}`

	// cacheTail ends every cacheable 2026-07-28 result: the catalogue is
	// fixed for the life of the process, so any client may keep it an hour.
	cacheTail = `,"ttlMs":3600000,"cacheScope":"public"`

	// discoverResult is the whole server/discover result.
	discoverResult = `"result":{"resultType":"complete"` + discoverBody + cacheTail + "}"

	// The bodies of the three list results.
	toolsListBody     = toolList()
	resourcesListBody = resourceList()
	templatesListBody = `"resourceTemplates":[]`
)

// request is one JSON-RPC request, decoded: slices of the line it came in,
// raw JSON values, nil when absent; the last wins when a member repeats,
// as in JavaScript's JSON.parse.
type request struct {
	id     []byte // raw JSON string or number; nil for a notification
	method []byte // decoded method name, see text
	modern bool   // _meta names 2026-07-28: answer with its shapes

	// params and the members of an object params that handlers read.
	params, meta, name, arguments, uri, protocolVersion, cursor []byte
	// Where params, meta and arguments are in the line, to walk them.
	paramsAt, metaAt, argumentsAt int
}

// answer writes the replies to one line, a message, a batch or neither
// (blank lines are skipped), and ends them with the one newline a line of
// replies gets. tooLong is a line over the limit, whose bytes are gone.
func (s *server) answer(line []byte, tooLong bool) {
	mark := s.pos()
	i := skipSpace(line, 0)
	end := -1
	if !tooLong && i < len(line) {
		end = s.scan(line, i)
	}
	switch {
	case tooLong:
		e := errInvalidRequest
		e.data = `"message longer than ` + strconv.Itoa(s.max) + ` bytes"`
		s.replyError(nil, e)
		if s.log != nil {
			s.log.printf("mcp: - line over %d bytes skipped", s.max)
		}
	case i == len(line):
	case end < 0 || skipSpace(line, end) != len(line):
		s.replyError(nil, errParse)
		s.log.request(nil, nil, time.Time{}, codeParseError)
	case line[i] == '[':
		s.handleBatch(i)
	default:
		s.handleMessage(line[i:end], i)
	}
	if s.pos() > mark {
		s.buf = append(s.buf, '\n')
	}
}

// handleBatch answers the JSON array at offset at of the line, a batch of
// messages, with one array of replies in the same order, leaving out
// notifications; if no reply is owed, it writes nothing. Once it owes a
// reply, the array is written out as it grows, so a batch of a million
// elements needs no more memory than one. It stops at a failed write or a
// broken reply, after which nothing more can be written.
func (s *server) handleBatch(at int) {
	mark := s.pos()
	s.buf = append(s.buf, '[')
	elems, replies := 0, 0
	for w := s.walk(at); s.err == nil && s.nextElement(&w); elems++ {
		sep := s.pos()
		if replies > 0 {
			s.buf = append(s.buf, ',')
		}
		before := s.pos()
		if s.handleMessage(w.val, w.at); s.pos() == before {
			s.takeBack(sep)
		} else {
			replies++
			s.spill()
		}
	}
	switch {
	case replies > 0:
		s.buf = append(s.buf, ']')
	case s.takeBack(mark) && elems == 0:
		s.replyError(nil, errInvalidRequest)
		s.log.request(nil, nil, time.Time{}, codeInvalidRequest)
	}
}

// handleMessage answers the message msg, valid JSON at offset at of the
// line, if it is owed a reply: requests and invalid messages are;
// notifications and the client's own responses are not.
func (s *server) handleMessage(msg []byte, at int) {
	s.decoded = s.decoded[:0]
	req := &s.req
	*req = request{}
	if !s.decodeEnvelope(msg, at, req) {
		s.replyError(req.id, errInvalidRequest)
		s.log.request(nil, req.id, time.Time{}, codeInvalidRequest)
		return
	}
	if req.id != nil {
		s.dispatch(req)
	}
}

// decodeEnvelope reads the JSON-RPC members of msg into req and reports
// whether msg is a request or notification. A response from the client is
// neither, but is owed nothing: then req.id is left nil and it reports
// true. When msg is invalid, req.id keeps its id if that was valid.
func (s *server) decodeEnvelope(msg []byte, at int, req *request) bool {
	if msg[0] != '{' {
		return false
	}
	var jsonrpc, method []byte
	answer := false // the message carries "result" or "error"
	for w := s.walk(at); s.next(&w); {
		switch string(w.name) {
		case "jsonrpc":
			jsonrpc = w.val
		case "id":
			req.id = w.val
		case "method":
			method = w.val
		case "params":
			req.params, req.paramsAt = w.val, w.at
		case "result", "error":
			answer = true
		}
	}
	if method == nil && answer {
		req.id = nil
		return true
	}
	if id := req.id; id != nil && id[0] != '"' && id[0] != '-' && !isDigit(id[0]) {
		req.id = nil
		return false
	}
	if method == nil || method[0] != '"' || jsonrpc == nil || jsonrpc[0] != '"' || string(s.text(jsonrpc)) != "2.0" {
		return false
	}
	req.method = s.text(method)
	return true
}

// dispatch decodes a request's params, calls its method's handler and
// writes the reply: the handler's result, or the error it returned, in
// place of anything it wrote. If the handler panics, whatever it wrote is
// taken back and the request gets Internal error instead; if part of it
// was already written, the session ends (see errBrokenReply).
func (s *server) dispatch(req *request) {
	mark := s.pos()
	var start time.Time
	if s.log != nil {
		start = time.Now()
	}
	code := codeInternalError // what the log says if the handler panics
	defer func() {
		if p := recover(); p != nil {
			if s.takeBack(mark) {
				s.replyError(req.id, errInternal)
			} else if s.err == nil {
				s.err = errBrokenReply // and nothing more is written
			}
			if s.log != nil {
				s.log.printf("mcp: panic in %s: %v", logText(req.method), p)
			}
		}
		s.log.request(req.method, req.id, start, code)
	}()
	s.openReply(req.id)
	body := s.pos()
	err := s.decodeParams(req)
	if err.code == 0 {
		err = s.call(req)
	}
	if err.code != 0 {
		s.takeBack(body)
		s.appendError(err)
	}
	s.buf = append(s.buf, '}')
	code = err.code
}

// call finds the request's method in the table and calls its handler.
func (s *server) call(req *request) rpcError {
	for _, m := range methods {
		if string(req.method) == m.name {
			return m.handle(s, req)
		}
	}
	return errMethodNotFound
}

// decodeParams finds the members of an object params that handlers read,
// in one pass, and decides the request's era from params._meta (2026-07-28
// requests name their version there), which any method may fail.
func (s *server) decodeParams(req *request) rpcError {
	if req.params != nil && req.params[0] == '{' {
		for w := s.walk(req.paramsAt); s.next(&w); {
			switch string(w.name) {
			case "_meta":
				req.meta, req.metaAt = w.val, w.at
			case "name":
				req.name = w.val
			case "arguments":
				req.arguments, req.argumentsAt = w.val, w.at
			case "uri":
				req.uri = w.val
			case "protocolVersion":
				req.protocolVersion = w.val
			case "cursor":
				req.cursor = w.val
			}
		}
	}
	return s.decodeMeta(req)
}

// Errors for a _meta that lacks a member it needs, or has it mistyped.
var (
	errNoMetaVersion = rpcError{code: codeInvalidParams, message: "Invalid params",
		data: `{"required":"_meta.` + metaProtocolVersion + `"}`}
	errNoMetaCapabilities = rpcError{code: codeInvalidParams, message: "Invalid params",
		data: `{"required":"_meta.` + metaClientCapabilities + `"}`}
)

// decodeMeta sets req.modern from params._meta: a request that names
// 2026-07-28 there must also carry the client's capabilities; one that
// names a legacy version we speak, or none, is legacy; server/discover
// must name one.
func (s *server) decodeMeta(req *request) rpcError {
	var version, caps []byte
	if req.meta != nil && req.meta[0] == '{' {
		for w := s.walk(req.metaAt); s.next(&w); {
			switch string(w.name) {
			case metaProtocolVersion:
				version = w.val
			case metaClientCapabilities:
				caps = w.val
			}
		}
	}
	switch {
	case version == nil && string(req.method) == "server/discover", version != nil && version[0] != '"':
		return errNoMetaVersion
	case version == nil:
		return rpcError{}
	}
	v := s.text(version)
	switch {
	case string(v) == modernVersion && (caps == nil || caps[0] != '{'):
		return errNoMetaCapabilities
	case string(v) == modernVersion:
		req.modern = true
		return rpcError{}
	case isLegacy(v):
		return rpcError{}
	}
	return rpcError{code: codeUnsupportedVersion, message: "Unsupported protocol version", data: unsupportedData, lit: version}
}

// unsupportedData starts the data of an Unsupported protocol version error.
var unsupportedData = `{"supported":` + supportedVersionsJSON + `,"requested":`

// legacyOnly is the check of the methods 2026-07-28 removed.
func legacyOnly(req *request) rpcError {
	switch {
	case req.modern:
		return errMethodNotFound
	case req.params != nil && req.params[0] != '{': // every method takes an object
		return errInvalidParams
	}
	return rpcError{}
}

// handleInitialize answers the legacy handshake with the client's version
// when we speak it, else our newest legacy version.
func (s *server) handleInitialize(req *request) rpcError {
	if err := legacyOnly(req); err.code != 0 {
		return err
	}
	var version []byte
	if v := req.protocolVersion; v != nil && v[0] == '"' {
		version = s.text(v)
	}
	s.buf = append(s.buf, `"result":{"protocolVersion":"`...)
	if isLegacy(version) {
		s.buf = append(s.buf, version...)
	} else {
		s.buf = append(s.buf, latestLegacyVersion...)
	}
	s.buf = append(s.buf, '"')
	s.buf = append(s.buf, initializeTail...)
	return rpcError{}
}

// handlePing answers {}.
func (s *server) handlePing(req *request) rpcError {
	if err := legacyOnly(req); err.code != 0 {
		return err
	}
	s.buf = append(s.buf, `"result":{}`...)
	return rpcError{}
}

// handleDiscover tells a client which versions and capabilities we have.
// It is answered in either era (the version in _meta only has to be one we
// speak), always with the 2026-07-28 shape: its only shape.
func (s *server) handleDiscover(req *request) rpcError {
	s.buf = append(s.buf, discoverResult...)
	return rpcError{}
}

// handleList answers tools/list, resources/list and
// resources/templates/list with the catalogue's body. We never paginate,
// so any cursor is one we did not issue.
func (s *server) handleList(req *request, body string) rpcError {
	if req.params != nil && req.params[0] != '{' || req.cursor != nil {
		return errInvalidParams
	}
	s.openResult(req)
	s.buf = append(s.buf, body...)
	s.closeCacheable(req)
	return rpcError{}
}

// handleToolsCall validates the arguments against the tool's inputSchema
// and runs the tool. Malformed params are a protocol error; arguments that
// break the schema are a tool result with isError, which names the tool,
// the argument and the fault, so a model can correct itself.
func (s *server) handleToolsCall(req *request) rpcError {
	name, args := req.name, req.arguments
	if req.params == nil || req.params[0] != '{' || name == nil || name[0] != '"' || args != nil && args[0] != '{' {
		return errInvalidParams
	}
	t := findTool(s.text(name))
	if t == nil {
		return rpcError{code: codeInvalidParams, message: "Unknown tool: ", text: name[1 : len(name)-1]}
	}
	if len(s.vals) < len(t.args) {
		s.vals = make([][]byte, len(t.args))
	}
	vals := s.vals[:len(t.args)]
	defer clear(vals) // slices of the line, which may be huge: do not keep it
	var extra []byte  // the first argument the schema does not allow
	if args != nil {
		for w := s.walk(req.argumentsAt); s.next(&w); {
			if a := t.argIndex(w.name); a >= 0 {
				vals[a] = w.val
			} else if extra == nil {
				extra = w.key
			}
		}
	}
	s.openResult(req)
	s.buf = append(s.buf, `"content":[{"type":"text","text":"`...)
	mark := s.pos()
	if t.appendProblems(&s.writer, vals, extra); s.pos() > mark {
		s.buf = append(s.buf, `"}],"isError":true}`...)
	} else {
		t.run(&s.writer, vals)
		s.buf = append(s.buf, `"}],"isError":false}`...)
	}
	return rpcError{}
}

// handleResourcesRead answers one resource's contents. An unknown URI is
// -32002 in legacy versions and -32602 in 2026-07-28, with the URI as data.
func (s *server) handleResourcesRead(req *request) rpcError {
	if req.params == nil || req.params[0] != '{' || req.uri == nil || req.uri[0] != '"' {
		return errInvalidParams
	}
	r := findResource(s.text(req.uri))
	if r == nil {
		code := codeResourceNotFound
		if req.modern {
			code = codeInvalidParams
		}
		return rpcError{code: code, message: "Resource not found", data: `{"uri":`, lit: req.uri}
	}
	s.openResult(req)
	s.buf = append(s.buf, r.readBody...)
	s.closeCacheable(req)
	return rpcError{}
}

// openResult starts a result object; 2026-07-28 results lead with resultType.
func (s *server) openResult(req *request) {
	if req.modern {
		s.buf = append(s.buf, `"result":{"resultType":"complete",`...)
	} else {
		s.buf = append(s.buf, `"result":{`...)
	}
}

// closeCacheable ends a list or read result; 2026-07-28 adds cache hints.
func (s *server) closeCacheable(req *request) {
	if req.modern {
		s.buf = append(s.buf, cacheTail...)
	}
	s.buf = append(s.buf, '}')
}

// openReply writes the start of every reply, up to the comma after its id:
// the id as it came, or null. Numbers keep their digits (no trip through
// float64); strings are written as JSON.stringify writes them.
func (s *server) openReply(id []byte) {
	s.buf = append(s.buf, `{"jsonrpc":"2.0","id":`...)
	switch {
	case id == nil:
		s.buf = append(s.buf, "null"...)
	case id[0] == '"':
		s.appendString(id)
	default:
		s.buf = append(s.buf, id...)
	}
	s.buf = append(s.buf, ',')
}

// replyError writes a whole error reply, for a message that never reached
// dispatch or whose handler failed.
func (s *server) replyError(id []byte, e rpcError) {
	s.openReply(id)
	s.appendError(e)
	s.buf = append(s.buf, '}')
}

// ==== Part 2: reading JSON ====

// scanner validates a line once, in full, before anything is read from
// it, and notes where its shallow objects, arrays and members are, by
// their offsets in the line, which it keeps: the walks that follow (walk,
// next, nextElement) take offsets, not slices, so only that line can be
// walked with its notes, and mostly do not read it again. It also holds
// the space strings are decoded into. All it returns is valid until the
// next line is scanned.
type scanner struct {
	line    []byte         // the line last scanned
	stack   nesting        // containers open while scanning
	open    [spanDepth]int // the span of each open container down to spanDepth, or -1
	spans   []span         // objects and arrays of the line, in order
	members []member       // members of the objects in spans
	pending int            // the noted member whose value comes next, or -1
	decoded []byte         // strings of the message in hand, decoded, see text
	name    []byte         // the member name last decoded, see next
}

// How much scan notes: objects and arrays down to spanDepth (deep enough
// for a batch element's tool arguments and _meta), at most maxSpans of
// them and maxMembers members a line. Past those, the walks read the
// text again, which is slower but the same. Noting buys a quarter of the
// instructions per request (100,000 requests of the benchmark mix: 785M
// instructions, 1,066M without, measured at 3f5a4bf), as walks that find
// a member or step over an object no longer read its text a second time.
const (
	spanDepth  = 5
	maxSpans   = 1 << 12
	maxMembers = 1 << 15
)

// span is an object or array that scan found in the line.
type span struct {
	start, n int  // its offset in the line and its length
	noted    bool // an object all of whose members are noted
	first    int  // its first noted member, or -1
	last     int  // its last noted member so far, or -1
}

// member is a member of an object that scan noted: where its key and
// value are in the line, and the object's next member.
type member struct {
	key, keyEnd int
	val, valEnd int
	escaped     bool // the key has escapes to decode
	next        int  // -1 after the last
}

// scan returns the index just past the JSON value that starts at b[i], or
// -1 if there is none, and keeps b as the line the walks read. It keeps
// its own stack (see nesting) instead of recursing, so a value nested a
// million deep is only as costly as its length.
func (sc *scanner) scan(b []byte, i int) int {
	sc.line, sc.stack.n, sc.spans, sc.members, sc.pending = b, 0, sc.spans[:0], sc.members[:0], -1
	for {
		// A value starts at i.
		if i = skipSpace(b, i); i >= len(b) {
			return -1
		}
		if sc.pending >= 0 {
			sc.members[sc.pending].val = i
			sc.pending = -1
		}
		opened := false
		switch b[i] {
		case '{', '[':
			i, opened = sc.openContainer(b, i)
		case '"':
			i, _ = scanString(b, i)
		case 't', 'f', 'n':
			i = scanLiteral(b, i)
		default:
			i = scanNumber(b, i)
		}
		if !opened && i >= 0 {
			if i = sc.valueEnded(b, i); sc.stack.n == 0 {
				return i // the whole value, or -1
			}
		}
		if i >= 0 && sc.stack.top() == '}' {
			i = sc.scanMemberKey(b, i)
		}
		if i < 0 {
			return -1
		}
	}
}

// openContainer reads the '{' or '[' at b[i]. An empty one is a whole
// value: it returns the index past it. Otherwise it pushes the container,
// notes it if it is shallow, and returns the index past the opener with
// opened set.
func (sc *scanner) openContainer(b []byte, i int) (next int, opened bool) {
	start, closer := i, b[i]+2 // '}' or ']'
	if i = skipSpace(b, i+1); i < len(b) && b[i] == closer {
		return i + 1, false
	}
	sc.stack.push(closer)
	if d := sc.stack.n; d <= spanDepth {
		sc.open[d-1] = -1
		if len(sc.spans) < maxSpans {
			sc.open[d-1] = len(sc.spans)
			sc.spans = append(sc.spans, span{start: start, noted: closer == '}', first: -1, last: -1})
		}
	}
	return start + 1, true
}

// valueEnded is called when a value ended just before b[i]: it closes
// containers until one has more to come, and returns the index past the
// ',' before it (or past the last closer, when the stack is empty), or -1.
func (sc *scanner) valueEnded(b []byte, i int) int {
	for depth := sc.stack.n; depth > 0; depth = sc.stack.n {
		k := -1 // the noted span of the container, if any
		if depth <= spanDepth {
			k = sc.open[depth-1]
		}
		closer := sc.stack.top()
		if closer == '}' && k >= 0 && sc.spans[k].noted {
			// The value that ended is the object's last noted member's:
			// its end is i, before any space, so walks can slice it out.
			sc.members[sc.spans[k].last].valEnd = i
		}
		if i = skipSpace(b, i); i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			return i + 1
		case closer:
			if k >= 0 {
				sc.spans[k].n = i + 1 - sc.spans[k].start
			}
			sc.stack.n--
			i++
		default:
			return -1
		}
	}
	return i
}

// scanMemberKey reads an object member's `"key":` from b[i] on, notes the
// member if its object is noted, and returns the index past the colon, or
// -1.
func (sc *scanner) scanMemberKey(b []byte, i int) int {
	key := skipSpace(b, i)
	if key >= len(b) || b[key] != '"' {
		return -1
	}
	keyEnd, escaped := scanString(b, key)
	if keyEnd < 0 {
		return -1
	}
	if i = skipSpace(b, keyEnd); i >= len(b) || b[i] != ':' {
		return -1
	}
	if d := sc.stack.n; d <= spanDepth && sc.open[d-1] >= 0 {
		sc.pending = sc.noteMember(sc.open[d-1], key, keyEnd, escaped)
	}
	return i + 1
}

// noteMember adds a member to the noted object spans[k] and returns it, or
// -1 if the object is past noting (then none of its members count).
func (sc *scanner) noteMember(k, key, keyEnd int, escaped bool) int {
	sp := &sc.spans[k]
	if !sp.noted {
		return -1
	}
	if len(sc.members) == maxMembers {
		sp.noted = false
		return -1
	}
	m := len(sc.members)
	sc.members = append(sc.members, member{key: key, keyEnd: keyEnd, escaped: escaped, next: -1})
	if sp.last >= 0 {
		sc.members[sp.last].next = m
	} else {
		sp.first = m
	}
	sp.last = m
	return m
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

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isDigit reports whether c is an ASCII digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skipSpace returns the index of the first non-space byte of b at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// scanLiteral returns the index just past the true, false or null at
// b[i], or -1.
func scanLiteral(b []byte, i int) int {
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(b[i:], []byte(lit)) {
			return i + len(lit)
		}
	}
	return -1
}

// scanNumber returns the index just past the JSON number at b[i], or -1.
func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i = skipDigits(b, i+1); b[i-1] == '.' {
			return -1 // no digit after the point
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i < len(b)-1 && (b[i+1] == '+' || b[i+1] == '-') {
			i++
		}
		if i = skipDigits(b, i+1); !isDigit(b[i-1]) {
			return -1 // no digit in the exponent
		}
	}
	return i
}

// skipDigits returns the index of the first non-digit at or after i.
func skipDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// nextSpecial returns the index of the first byte at or after i that is
// '"', '\\' or a control character, or, with high, a byte of a multi-byte
// UTF-8 sequence; len(b) if there is none. Testing eight bytes at a time
// buys a fifth of a 16 MiB echo through pipes (median of 9: 29-33 ms,
// 37-38 ms a byte at a time; limit takes 24-29 ms) and 2% of the
// instructions of the usual mix (788M against 805M for 100,000 requests),
// both measured at 3f5a4bf.
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

// scanString returns the index just past the JSON string at b[i], or -1,
// and whether it has escapes. Bytes that are not UTF-8 are allowed here;
// they read as U+FFFD.
func scanString(b []byte, i int) (end int, escaped bool) {
	for i++; ; {
		i = nextSpecial(b, i, false)
		if i >= len(b) {
			return -1, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped
		case c == '\\':
			escaped = true
			switch {
			case i+1 < len(b) && strings.IndexByte(shortEscapes+"/", b[i+1]) >= 0:
				i += 2
			case i+6 <= len(b) && b[i+1] == 'u' && hex4(b[i+2:i+6]) >= 0:
				i += 6
			default:
				return -1, false
			}
		default: // a control character
			return -1, false
		}
	}
}

// hex4 returns the value of four hex digits, or -1.
func hex4(b []byte) rune {
	v, err := strconv.ParseUint(string(b[:4]), 16, 16)
	if err != nil {
		return -1
	}
	return rune(v)
}

// skipString returns the index just past the valid JSON string at b[i].
func skipString(b []byte, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++ // the byte after the backslash, even '"', is part of the escape
		}
	}
	return i + 1
}

// skipValue returns the offset just past the valid JSON value at offset i
// of the line. Objects and arrays that scan noted are stepped over at once.
func (sc *scanner) skipValue(i int) int {
	b := sc.line
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		if k := sc.spanAt(i); k >= 0 {
			return i + sc.spans[k].n
		}
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
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && !isSpace(b[i]) {
		i++
	}
	return i
}

// spanAt returns the span scan noted for the object or array at offset at
// of the line, or -1. Spans are in the order of their offsets.
func (sc *scanner) spanAt(at int) int {
	lo, hi := 0, len(sc.spans)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if sc.spans[mid].start < at {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(sc.spans) && sc.spans[lo].start == at {
		return lo
	}
	return -1
}

// walk steps through the members of an object, or the elements of an
// array, of the line. After a step that reports true, key and name (for
// members: raw, and decoded, see next), val (raw) and at (val's offset)
// are what it stepped to.
type walk struct {
	key, name, val []byte
	at             int
	m              int // the next noted member, -1 at the end
	i              int // where the text is read from; -1 when notes are
}

// walk starts a walk over the object or array at offset at of the line:
// by scan's notes for an object it noted, else by reading the text.
func (sc *scanner) walk(at int) walk {
	if k := sc.spanAt(at); k >= 0 && sc.spans[k].noted {
		return walk{m: sc.spans[k].first, i: -1}
	}
	return walk{m: -1, i: at + 1}
}

// next steps to the next member of an object. A member's name is decoded
// (see text) only if its key has escapes, into space that the next step
// reuses: the walks look names up, they never keep them.
func (sc *scanner) next(w *walk) bool {
	escaped := false
	if w.i < 0 {
		if w.m < 0 {
			return false
		}
		m := &sc.members[w.m]
		w.m, escaped = m.next, m.escaped
		w.key, w.val, w.at = sc.line[m.key:m.keyEnd], sc.line[m.val:m.valEnd], m.val
	} else {
		i := sc.skipComma(w.i)
		if sc.line[i] == '}' {
			return false
		}
		k := skipString(sc.line, i)
		v := skipSpace(sc.line, skipSpace(sc.line, k)+1)
		w.i = sc.skipValue(v)
		w.key, w.val, w.at = sc.line[i:k], sc.line[v:w.i], v
		escaped = bytes.IndexByte(w.key, '\\') >= 0
	}
	w.name = w.key[1 : len(w.key)-1]
	if escaped && len(w.key) <= maxLookup {
		sc.name = unquote(sc.name[:0], w.name)
		w.name = sc.name
	}
	return true
}

// nextElement steps to the next element of an array.
func (sc *scanner) nextElement(w *walk) bool {
	i := sc.skipComma(w.i)
	if sc.line[i] == ']' {
		return false
	}
	w.i = sc.skipValue(i)
	w.val, w.at = sc.line[i:w.i], i
	return true
}

// skipComma returns the offset of the member or element, or the closer,
// that follows offset i (just past the opener or a value).
func (sc *scanner) skipComma(i int) int {
	if i = skipSpace(sc.line, i); sc.line[i] == ',' {
		i = skipSpace(sc.line, i+1)
	}
	return i
}

// readEscape decodes the escape at s[i] (a backslash) and returns the
// character and the escape's length. A \u pair that forms a surrogate pair
// reads as one character; a lone surrogate is returned as it is, as
// JavaScript keeps it.
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

// JSON's one-letter escapes, and the characters they stand for.
const (
	shortEscapes = "bfnrt\"\\"
	shortEscaped = "\b\f\n\r\t\"\\"
)

// decodeRune decodes the UTF-8 character at the start of b (not empty).
// For bytes that are not UTF-8 it reports !ok and the length of the
// maximal invalid subpart, which reads as one U+FFFD, as in the WHATWG
// Encoding standard that JavaScript's TextDecoder and Node's Buffer follow:
// the longest start of b (of at most 3 bytes) that, completed with
// continuation bytes, is a character. (This equals Unicode's table 3-7
// rules on every 1- to 3-byte sequence and every 4-byte one led by
// F0-F4, checked once, exhaustively, against a table-driven version.)
func decodeRune(b []byte) (r rune, n int, ok bool) {
	r, n = utf8.DecodeRune(b)
	if r != utf8.RuneError || n > 1 {
		return r, n, true
	}
	for n = min(len(b), 3); n > 1; n-- {
		q := [4]byte{0x80, 0x80, 0x80, 0x80}
		copy(q[:], b[:n])
		if r, size := utf8.DecodeRune(q[:]); r != utf8.RuneError && size > n {
			break
		}
	}
	return utf8.RuneError, n, false
}

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
			r, n, _ := decodeRune(body[i:])
			dst = utf8.AppendRune(dst, r)
			i += n
		}
	}
	return dst
}

// maxLookup bounds the strings decoded to be looked up: a name, key, URI
// or version we know is at most 64 bytes, and an escape is at most 6
// bytes for each byte it stands for, so a longer literal matches nothing
// whether decoded or not, and is not decoded, whatever a client sends.
const maxLookup = 6 * 64

// text returns the decoded contents of the JSON string lit, for comparing
// with names we know: in place when it has no escapes or is too long to
// match (see maxLookup), else decoded into space kept until the next
// message. A message decodes at most a few strings this way (jsonrpc,
// method, a version, a tool name or URI), so that space stays small.
func (sc *scanner) text(lit []byte) []byte {
	body := lit[1 : len(lit)-1]
	if len(lit) > maxLookup || bytes.IndexByte(body, '\\') < 0 {
		return body
	}
	start := len(sc.decoded)
	sc.decoded = unquote(sc.decoded, body)
	return sc.decoded[start:len(sc.decoded):len(sc.decoded)]
}

// parseNumber reads a valid JSON number as JavaScript's Number() does: the
// double nearest to its decimal value (ties to even), whatever its length;
// out of range is ±Infinity or ±0, never an error.
//
// strconv.ParseFloat alone is not enough for long literals: its exact
// fallback keeps 800 digits and forgets the rest of the integer part, so
// 1 followed by 800 zeros and e-800 reads as 0.1, and it stops reading an
// exponent after a few digits, so 0.(9,692 zeros)9e100000 reads as 9e307
// (golang/go#42436). It is exact for any literal of at most
// shortNumber bytes, where neither can happen; longer ones are first
// normalised by shortenNumber.
func parseNumber(raw []byte) float64 {
	if len(raw) <= shortNumber {
		// Converting at most 32 bytes to a string here costs no
		// allocation: the compiler uses a buffer on the stack.
		f, _ := strconv.ParseFloat(string(raw), 64)
		return f
	}
	var buf [keptDigits + 32]byte
	short, inf := shortenNumber(buf[:0], raw)
	f := 0.0
	switch {
	case inf:
		f = math.Inf(1)
	case short != nil:
		f, _ = strconv.ParseFloat(string(short), 64)
	}
	if raw[0] == '-' {
		f = -f // -0 too
	}
	return f
}

// shortNumber is the longest literal that strconv.ParseFloat reads
// exactly as it is: 31 digits are far from its 800, and an exponent it
// stops reading at 10,000 cannot be brought back into range by a shift of
// at most 31 places.
const shortNumber = 32

// keptDigits is how many significant digits shortenNumber keeps. Every
// double, and every point halfway between two, is a decimal of at most 767
// significant digits; so the digits past 768 can only say whether the
// value is above such a point or exactly on it, and one sticky digit, 1 if
// any of them is not 0, says that. 768+1 digits fit ParseFloat's 800.
const keptDigits = 768

// shortenNumber writes the valid JSON number lit, without its sign, as
// "0.DDDe±E" with at most keptDigits+1 significant digits and an exponent
// computed exactly, to dst. It returns nil when the value is zero or
// rounds to zero, and inf when it is beyond the largest double, so that
// ParseFloat is only given exponents it reads whole.
func shortenNumber(dst, lit []byte) (short []byte, inf bool) {
	i := 0
	if lit[0] == '-' {
		i++
	}
	// point is where the decimal point falls, counted in digits from the
	// first significant one: the value is 0.DDD x 10^point.
	point, sig, sticky := int64(0), 0, false
	dst = append(dst, '0', '.')
	inInt := true
	for ; i < len(lit) && lit[i] != 'e' && lit[i] != 'E'; i++ {
		switch c := lit[i]; {
		case c == '.':
			inInt = false
		case c == '0' && sig == 0: // a leading zero
			if !inInt {
				point--
			}
		default:
			if inInt {
				point++
			}
			if sig < keptDigits {
				dst = append(dst, c)
			} else if c != '0' {
				sticky = true
			}
			sig++
		}
	}
	if sig == 0 {
		return nil, false
	}
	if sticky {
		dst = append(dst, '1')
	}
	exp := point + readExponent(lit[i:])
	// 0.1 x 10^310 is over the largest double (1.8e308); 10^-324 is under
	// half the smallest (4.9e-324), so it rounds to zero.
	switch {
	case exp > 310:
		return nil, true
	case exp < -324:
		return nil, false
	}
	dst = append(dst, 'e')
	return strconv.AppendInt(dst, exp, 10), false
}

// readExponent returns the value of the exponent part ("e-12", or empty
// for none) of a valid JSON number, saturating far beyond any exponent
// that matters so that no number of digits can overflow it.
func readExponent(e []byte) int64 {
	if len(e) == 0 {
		return 0
	}
	e = e[1:]
	neg := e[0] == '-'
	if e[0] == '-' || e[0] == '+' {
		e = e[1:]
	}
	var x int64
	for _, c := range e {
		if x < 1<<50 { // past any literal's length: the value is out of range
			x = x*10 + int64(c-'0')
		}
	}
	if neg {
		return -x
	}
	return x
}

// ==== Part 3: writing JSON ====
//
// Strings are written as JSON.stringify writes them: '"' and '\\' escaped,
// \b \f \n \r \t by name, other control characters as \u00xx, lone
// surrogates as \udxxx, and everything else as raw UTF-8 (no HTML escaping,
// U+2028 and U+2029 raw). Numbers are written as String(n) writes them.

// writer holds the output not yet written. Replies are appended to buf
// whole lines at a time and written in batches (see flushSize); a long
// reply is written in pieces as it is made (see spill), so positions in
// the output are counted from its start (see pos), and what was already
// written can no longer be taken back.
type writer struct {
	buf     []byte
	out     func([]byte) error // writes all of its argument (server.write)
	flushed int64              // bytes written, or dropped, before buf[0]
	err     error              // the first failed write; later output is dropped
}

// pos is the position in the output just past what has been appended.
// It never goes back but by takeBack, so marks taken with it stay valid.
func (w *writer) pos() int64 { return w.flushed + int64(len(w.buf)) }

// takeBack removes what was appended since mark, if it was not written
// yet, and reports whether it could.
func (w *writer) takeBack(mark int64) bool {
	if mark < w.flushed {
		return false
	}
	w.buf = w.buf[:mark-w.flushed]
	return true
}

// spill writes the output so far once it passes flushSize, so a long
// reply is written as it is made instead of held whole. Only call it where
// nothing before it will be taken back.
func (w *writer) spill() {
	if len(w.buf) >= flushSize {
		w.flush()
	}
}

// flush writes the pending output. After a failure, output is dropped and
// the first error is kept and returned.
func (w *writer) flush() error {
	if len(w.buf) > 0 && w.err == nil {
		w.err = w.out(w.buf)
	}
	w.flushed += int64(len(w.buf))
	w.buf = w.buf[:0]
	return w.err
}

// textChunk is how much of a client's text appendText encodes at a time
// before it lets spill write out what is pending.
const textChunk = 64 << 10

// appendString appends the valid JSON string lit that came from the
// client, as JSON.stringify would write the string it denotes, in pieces
// (see appendText).
func (w *writer) appendString(lit []byte) {
	w.buf = append(w.buf, '"')
	w.appendText(lit[1 : len(lit)-1])
	w.buf = append(w.buf, '"')
}

// appendText appends the body of a valid JSON string that came from the
// client, in the canonical form, writing out what is pending every
// textChunk bytes of it: a client's text can be as long as a line, and
// three times longer once written (each byte that is not UTF-8 becomes
// U+FFFD), so it is never held whole. The reply it is part of can then no
// longer be taken back, which is why a client's text only ever ends a
// reply, after everything that can fail. A chunk with no escape that is
// UTF-8 is copied as it is, checked by the vectorised bytes.IndexByte and
// utf8.Valid; any other goes through appendEscaped.
func (w *writer) appendText(body []byte) {
	for len(body) > 0 {
		n := len(body)
		if n > textChunk {
			n = textChunk
			for k := 0; k < 3 && body[n]&0xC0 == 0x80; k++ {
				n-- // to the start of a character, if the text is UTF-8
			}
		}
		if chunk := body[:n]; bytes.IndexByte(chunk, '\\') < 0 && utf8.Valid(chunk) {
			w.buf = append(w.buf, chunk...)
		} else {
			n = w.appendEscaped(body, n)
		}
		body = body[n:]
		w.spill()
	}
}

// appendEscaped appends the start of body, a string's body, in the
// canonical form, up to the first character boundary at or after limit,
// and returns how many bytes of body that took. Runs that need no change
// are copied whole.
func (w *writer) appendEscaped(body []byte, limit int) int {
	run, i := 0, 0 // body[run:i] is copied as it is
	for {
		if i < limit {
			i = nextSpecial(body[:limit], i, true)
		}
		if i >= limit {
			w.buf = append(w.buf, body[run:i]...)
			return i
		}
		var r rune
		var n int
		var ok bool
		if body[i] == '\\' {
			r, n = readEscape(body, i)
		} else if r, n, ok = decodeRune(body[i:]); ok { // a multi-byte character
			i += n
			continue
		}
		// An escape, or bytes that are not UTF-8 (U+FFFD, utf8.RuneError).
		w.buf = appendRune(append(w.buf, body[run:i]...), r)
		i += n
		run = i
	}
}

// appendError writes a reply's error member.
func (w *writer) appendError(e rpcError) {
	w.buf = append(w.buf, `"error":{"code":`...)
	w.buf = strconv.AppendInt(w.buf, int64(e.code), 10)
	w.buf = append(w.buf, `,"message":"`...)
	w.buf = append(w.buf, e.message...)
	w.appendText(e.text)
	w.buf = append(w.buf, '"')
	if e.data != "" {
		w.buf = append(w.buf, `,"data":`...)
		w.buf = append(w.buf, e.data...)
		if e.lit != nil {
			w.appendString(e.lit)
			w.buf = append(w.buf, '}')
		}
	}
	w.buf = append(w.buf, '}')
}

// appendPlain appends the text s as the body of a JSON string: for the
// catalogues, encoded at start-up, and for tools that write text of their
// own (a client's text is written with appendText).
func appendPlain(dst []byte, s string) []byte {
	for _, r := range s {
		dst = appendRune(dst, r)
	}
	return dst
}

// quote returns the text s as a JSON string.
func quote(s string) string { return `"` + string(appendPlain(nil, s)) + `"` }

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
