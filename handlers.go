// This file is the wire: how a line becomes requests, the method switch
// with one handler per method, and how replies are written. Requests are
// read straight from the line's bytes and replies appended to the output
// buffer, so a request costs no allocation and no reflection.

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

// Protocol versions. A request whose _meta names modernVersion is answered
// statelessly with 2026-07-28 shapes; every other request gets the legacy
// shapes, whether or not initialize came first.
const (
	modernVersion       = "2026-07-28"
	latestLegacyVersion = "2025-11-25" // what initialize answers to a version it does not know
)

// legacyVersions are the initialize-era versions we speak, newest first.
var legacyVersions = []string{latestLegacyVersion, "2025-06-18", "2025-03-26", "2024-11-05"}

// legacyVersionList and methodList are for the usage text.
var (
	legacyVersionList = strings.Join(legacyVersions, ", ")
	methodList        = "initialize, ping, server/discover, tools/list, tools/call, resources/list, resources/read, resources/templates/list"
)

// Who we are, in initialize and server/discover results.
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
	supportedVersionsJSON = string(appendStringArray(nil, append([]string{modernVersion}, legacyVersions...)))

	// discoverBody is the server/discover result between resultType and the
	// cache fields, in the order of the specification's example.
	discoverBody = `,"supportedVersions":` + supportedVersionsJSON +
		`,"capabilities":` + capabilitiesJSON +
		`,"_meta":{"io.modelcontextprotocol/serverInfo":` + serverInfoJSON + `}`

	// cacheTail ends every cacheable 2026-07-28 result: the catalogue is
	// fixed for the life of the process, so any client may keep it an hour.
	cacheTail = `,"ttlMs":3600000,"cacheScope":"public"`

	toolsListBody     = appendToolList(nil)     // "tools":[...]
	resourcesListBody = appendResourceList(nil) // "resources":[...]
)

// request is one JSON-RPC request, as slices of the line it came in.
type request struct {
	id     []byte // raw JSON string or number; nil for a notification
	method []byte // decoded method name
	params []byte // raw params value; nil when absent
	modern bool   // _meta names 2026-07-28: answer with its shapes

	// The members of params that some handler reads, as raw JSON values
	// (nil when absent), found in one pass over params.
	meta, name, arguments, uri, protocolVersion, cursor []byte
}

// readParams finds the members of an object params that handlers read;
// when a name repeats, the last one counts, as in JavaScript's JSON.parse.
func (s *server) readParams(req *request) {
	if req.params == nil || req.params[0] != '{' {
		return
	}
	for f := s.fields(req.params); ; {
		_, name, val, ok := s.next(&f)
		if !ok {
			return
		}
		switch string(name) {
		case "_meta":
			req.meta = val
		case "name":
			req.name = val
		case "arguments":
			req.arguments = val
		case "uri":
			req.uri = val
		case "protocolVersion":
			req.protocolVersion = val
		case "cursor":
			req.cursor = val
		}
	}
}

// handleLine answers one line: a message, a batch, or neither. Blank lines
// are skipped.
func (s *server) handleLine(line []byte) {
	i := skipSpace(line, 0)
	if i == len(line) {
		return
	}
	end := s.scan(line, i)
	if end < 0 || skipSpace(line, end) != len(line) {
		s.replyError(nil, codeParseError, "Parse error")
		s.out = append(s.out, '\n')
		return
	}
	msg := line[i:end]
	if msg[0] == '[' {
		s.handleBatch(msg)
		return
	}
	mark := s.pos()
	s.handleMessage(msg)
	if s.pos() > mark {
		s.out = append(s.out, '\n')
	}
}

// handleBatch answers a JSON array of messages with one array of replies
// in the same order, leaving out notifications; if no reply is owed, it
// writes nothing. Once it owes a reply, the array is written out as it
// grows, so a batch of a million elements needs no more memory than one.
func (s *server) handleBatch(batch []byte) {
	mark := s.pos()
	if batch[skipSpace(batch, 1)] == ']' {
		s.replyError(nil, codeInvalidRequest, "Invalid Request")
		s.out = append(s.out, '\n')
		return
	}
	s.out = append(s.out, '[')
	replies := 0
	for i := 1; ; {
		elem, next := s.nextElement(batch, i)
		if next < 0 {
			break
		}
		i = next
		sep := s.pos()
		if replies > 0 {
			s.out = append(s.out, ',')
		}
		before := s.pos()
		s.handleMessage(elem)
		if s.pos() == before {
			s.takeBack(sep)
		} else {
			replies++
			s.spill()
		}
	}
	if replies == 0 {
		s.takeBack(mark)
		return
	}
	s.out = append(s.out, "]\n"...)
}

// handleMessage answers one message (valid JSON) if it is owed a reply:
// requests and invalid messages are; notifications and the client's own
// responses are not.
func (s *server) handleMessage(msg []byte) {
	if msg[0] != '{' {
		s.replyError(nil, codeInvalidRequest, "Invalid Request")
		return
	}
	var req request
	var jsonrpc, method []byte
	answer := false // the message carries "result" or "error"
	for f := s.fields(msg); ; {
		_, name, val, ok := s.next(&f)
		if !ok {
			break
		}
		switch string(name) {
		case "jsonrpc":
			jsonrpc = val
		case "id":
			req.id = val
		case "method":
			method = val
		case "params":
			req.params = val
		case "result", "error":
			answer = true
		}
	}
	if method == nil && answer {
		return
	}
	idOK := req.id == nil || req.id[0] == '"' || req.id[0] == '-' || isDigit(req.id[0])
	if !idOK || method == nil || method[0] != '"' || !s.textIs(jsonrpc, "2.0") {
		if !idOK {
			req.id = nil
		}
		s.replyError(req.id, codeInvalidRequest, "Invalid Request")
		return
	}
	if req.id == nil {
		return
	}
	req.method = method[1 : len(method)-1]
	if len(req.method) <= maxLookup && bytes.IndexByte(req.method, '\\') >= 0 {
		req.method = unquote(nil, req.method)
	}
	s.dispatch(&req)
}

// dispatch is the method switch. The handler appends its result or error
// after the reply's id; if it panics, whatever it wrote is taken back and
// the request gets Internal error instead.
func (s *server) dispatch(req *request) {
	mark := s.pos()
	var start time.Time
	if s.log != nil {
		start = time.Now()
	}
	s.code = 0
	defer func() {
		if p := recover(); p != nil {
			if s.takeBack(mark) {
				s.replyError(req.id, codeInternalError, "Internal error")
			} else {
				s.broken = true
			}
			s.log.printf("mcp: panic in %s: %v", logField(req.method), p)
		}
		if s.log != nil {
			s.logRequest(req, start)
		}
	}()
	s.out = append(s.out, `{"jsonrpc":"2.0","id":`...)
	s.appendID(req.id)
	s.out = append(s.out, ',')
	s.readParams(req)
	if s.readMeta(req) {
		switch string(req.method) {
		case "initialize":
			s.handleInitialize(req)
		case "ping":
			s.handlePing(req)
		case "server/discover":
			s.handleDiscover(req)
		case "tools/list":
			s.handleToolsList(req)
		case "tools/call":
			s.handleToolsCall(req)
		case "resources/list":
			s.handleResourcesList(req)
		case "resources/read":
			s.handleResourcesRead(req)
		case "resources/templates/list":
			s.handleResourceTemplatesList(req)
		default:
			s.fail(codeMethodNotFound, "Method not found")
		}
	}
	s.out = append(s.out, '}')
}

// readMeta decides the request's era from params._meta (2026-07-28 requests
// name their version there) and reports whether to go on; if not, it has
// written the error.
func (s *server) readMeta(req *request) bool {
	var version, caps []byte
	if meta := req.meta; meta != nil && meta[0] == '{' {
		for f := s.fields(meta); ; {
			_, name, val, ok := s.next(&f)
			if !ok {
				break
			}
			switch string(name) {
			case metaProtocolVersion:
				version = val
			case metaClientCapabilities:
				caps = val
			}
		}
	}
	if version == nil {
		if string(req.method) == "server/discover" {
			s.failMissingMeta(metaProtocolVersion)
			return false
		}
		return true
	}
	if version[0] != '"' {
		s.failMissingMeta(metaProtocolVersion)
		return false
	}
	v := s.text(version)
	if string(v) == modernVersion {
		if caps == nil || caps[0] != '{' {
			s.failMissingMeta(metaClientCapabilities)
			return false
		}
		req.modern = true
		return true
	}
	for _, lv := range legacyVersions {
		if string(v) == lv {
			return true
		}
	}
	s.errorStart(codeUnsupportedVersion, "Unsupported protocol version")
	s.out = append(s.out, `,"data":{"supported":`...)
	s.out = append(s.out, supportedVersionsJSON...)
	s.out = append(s.out, `,"requested":`...)
	s.appendString(version)
	s.out = append(s.out, "}}"...)
	return false
}

// failMissingMeta answers a request that lacks a _meta field it needs,
// or has it with the wrong type.
func (s *server) failMissingMeta(field string) {
	s.errorStart(codeInvalidParams, "Invalid params")
	s.out = append(s.out, `,"data":{"required":"_meta.`...)
	s.out = append(s.out, field...)
	s.out = append(s.out, `"}}`...)
}

// handleInitialize answers the legacy handshake with the client's version
// when we speak it, else our newest legacy version.
func (s *server) handleInitialize(req *request) {
	if req.modern {
		s.fail(codeMethodNotFound, "Method not found")
		return
	}
	if !s.paramsObject(req) {
		return
	}
	version := latestLegacyVersion
	if v := req.protocolVersion; v != nil && v[0] == '"' {
		t := s.text(v)
		for _, lv := range legacyVersions {
			if string(t) == lv {
				version = lv
			}
		}
	}
	s.out = append(s.out, `"result":{"protocolVersion":"`...)
	s.out = append(s.out, version...)
	s.out = append(s.out, '"')
	s.out = append(s.out, initializeTail...)
}

// handlePing answers {} (legacy only: 2026-07-28 removed ping).
func (s *server) handlePing(req *request) {
	if req.modern {
		s.fail(codeMethodNotFound, "Method not found")
		return
	}
	if !s.paramsObject(req) {
		return
	}
	s.out = append(s.out, `"result":{}`...)
}

// handleDiscover tells a 2026-07-28 client which versions and capabilities
// we have.
func (s *server) handleDiscover(req *request) {
	s.out = append(s.out, `"result":{"resultType":"complete"`...)
	s.out = append(s.out, discoverBody...)
	s.out = append(s.out, cacheTail...)
	s.out = append(s.out, '}')
}

// handleToolsList answers the tool catalogue. We never paginate, so any
// cursor is one we did not issue.
func (s *server) handleToolsList(req *request) {
	if !s.paramsObject(req) || !s.noCursor(req) {
		return
	}
	s.openResult(req)
	s.out = append(s.out, toolsListBody...)
	s.closeCacheable(req)
}

// handleToolsCall validates the arguments against the tool's inputSchema
// and runs the tool. Malformed params are a protocol error; arguments that
// break the schema are a tool result with isError, which names the tool,
// the argument and the fault, so a model can correct itself.
func (s *server) handleToolsCall(req *request) {
	if req.params == nil || req.params[0] != '{' {
		s.fail(codeInvalidParams, "Invalid params")
		return
	}
	name, args := req.name, req.arguments
	if name == nil || name[0] != '"' || args != nil && args[0] != '{' {
		s.fail(codeInvalidParams, "Invalid params")
		return
	}
	t := findTool(s.text(name))
	if t == nil {
		s.errorStartRaw(codeInvalidParams)
		s.out = append(s.out, `"Unknown tool: `...)
		s.appendText(name[1 : len(name)-1])
		s.out = append(s.out, `"}`...)
		return
	}
	vals := s.vals[:len(t.args)]
	clear(vals)
	var extra []byte // the first argument the schema does not allow
	if args != nil {
		for f := s.fields(args); ; {
			key, name, val, ok := s.next(&f)
			if !ok {
				break
			}
			if a := t.argIndex(name); a >= 0 {
				vals[a] = val
			} else if extra == nil {
				extra = key
			}
		}
	}
	s.openResult(req)
	s.out = append(s.out, `"content":[{"type":"text","text":"`...)
	mark := s.pos()
	t.appendProblems(s, vals, extra)
	failed := s.pos() > mark
	if !failed {
		t.run(s, vals)
	}
	clear(vals) // slices of the line, which may be huge: do not keep it
	if failed {
		s.out = append(s.out, `"}],"isError":true}`...)
	} else {
		s.out = append(s.out, `"}],"isError":false}`...)
	}
}

// handleResourcesList answers the resource catalogue.
func (s *server) handleResourcesList(req *request) {
	if !s.paramsObject(req) || !s.noCursor(req) {
		return
	}
	s.openResult(req)
	s.out = append(s.out, resourcesListBody...)
	s.closeCacheable(req)
}

// handleResourcesRead answers one resource's contents. An unknown URI is
// -32002 in legacy versions and -32602 in 2026-07-28, with the URI as data.
func (s *server) handleResourcesRead(req *request) {
	if req.params == nil || req.params[0] != '{' {
		s.fail(codeInvalidParams, "Invalid params")
		return
	}
	uri := req.uri
	if uri == nil || uri[0] != '"' {
		s.fail(codeInvalidParams, "Invalid params")
		return
	}
	r := findResource(s.text(uri))
	if r == nil {
		code := codeResourceNotFound
		if req.modern {
			code = codeInvalidParams
		}
		s.errorStart(code, "Resource not found")
		s.out = append(s.out, `,"data":{"uri":`...)
		s.appendString(uri)
		s.out = append(s.out, "}}"...)
		return
	}
	s.openResult(req)
	s.out = append(s.out, r.readBody...)
	s.closeCacheable(req)
}

// handleResourceTemplatesList answers that we have no resource templates.
func (s *server) handleResourceTemplatesList(req *request) {
	if !s.paramsObject(req) || !s.noCursor(req) {
		return
	}
	s.openResult(req)
	s.out = append(s.out, `"resourceTemplates":[]`...)
	s.closeCacheable(req)
}

// paramsObject reports whether params are absent or an object, as every
// MCP method requires; if not, it writes Invalid params.
func (s *server) paramsObject(req *request) bool {
	if req.params != nil && req.params[0] != '{' {
		s.fail(codeInvalidParams, "Invalid params")
		return false
	}
	return true
}

// noCursor reports whether a list request carries no cursor; we never
// issue one, so any cursor is invalid.
func (s *server) noCursor(req *request) bool {
	if req.cursor != nil {
		s.fail(codeInvalidParams, "Invalid params")
		return false
	}
	return true
}

// openResult starts a result object; 2026-07-28 results lead with resultType.
func (s *server) openResult(req *request) {
	if req.modern {
		s.out = append(s.out, `"result":{"resultType":"complete",`...)
	} else {
		s.out = append(s.out, `"result":{`...)
	}
}

// closeCacheable ends a list or read result; 2026-07-28 adds cache hints.
func (s *server) closeCacheable(req *request) {
	if req.modern {
		s.out = append(s.out, cacheTail...)
	}
	s.out = append(s.out, '}')
}

// fail writes an error member for the request in hand.
func (s *server) fail(code int, message string) {
	s.errorStart(code, message)
	s.out = append(s.out, '}')
}

// errorStart writes an error member up to its message, leaving it open
// for data.
func (s *server) errorStart(code int, message string) {
	s.errorStartRaw(code)
	s.out = appendQuoted(s.out, message)
}

// errorStartRaw writes an error member up to the colon before its message.
func (s *server) errorStartRaw(code int) {
	s.code = code
	s.out = append(s.out, `"error":{"code":`...)
	s.out = strconv.AppendInt(s.out, int64(code), 10)
	s.out = append(s.out, `,"message":`...)
}

// replyError writes a whole error reply (no newline) for a message that
// never reached dispatch, or whose handler failed.
func (s *server) replyError(id []byte, code int, message string) {
	s.out = append(s.out, `{"jsonrpc":"2.0","id":`...)
	s.appendID(id)
	s.out = append(s.out, ',')
	s.fail(code, message)
	s.out = append(s.out, '}')
	if s.log != nil && code != codeInternalError {
		s.log.printf("mcp: - id=%s error %d", logID(id), code)
	}
}

// replyTooLong answers a line over the size limit, which is gone.
func (s *server) replyTooLong() {
	s.out = append(s.out, `{"jsonrpc":"2.0","id":null,`...)
	s.errorStart(codeInvalidRequest, "Invalid Request")
	s.out = append(s.out, `,"data":"message longer than `...)
	s.out = strconv.AppendInt(s.out, int64(s.in.max), 10)
	s.out = append(s.out, ` bytes"}}`+"\n"...)
	if s.log != nil {
		s.log.printf("mcp: - line over %d bytes skipped", s.in.max)
	}
}

// logRequest writes the -v line for one request.
func (s *server) logRequest(req *request, start time.Time) {
	outcome := "ok"
	if s.code != 0 {
		outcome = "error " + strconv.Itoa(s.code)
	}
	s.log.printf("mcp: %s id=%s %v %s", logField(req.method), logID(req.id), time.Since(start), outcome)
}

// maxLogField is the most bytes of a client's text that a log line shows.
const maxLogField = 100

// logField quotes client text for the log, Go-style, so that control
// characters and newlines cannot forge lines or reach the terminal raw;
// text over maxLogField bytes is cut, and its length shown.
func logField(b []byte) string {
	if len(b) <= maxLogField {
		return strconv.Quote(string(b))
	}
	return strconv.Quote(string(b[:maxLogField])) + "..." + strconv.Itoa(len(b)) + " bytes"
}

// logID shows a request id in the log: a number as it came, a string
// decoded and quoted by logField (a very long one is shown undecoded),
// else "null".
func logID(id []byte) string {
	switch {
	case id == nil:
		return "null"
	case id[0] == '"' && len(id) <= maxLookup:
		return logField(unquote(nil, id[1:len(id)-1]))
	case id[0] == '"':
		return logField(id[1 : len(id)-1])
	case len(id) > maxLogField:
		return string(id[:maxLogField]) + "..." + strconv.Itoa(len(id)) + " bytes"
	}
	return string(id)
}

// appendID writes a request id as it came, or null: numbers keep their
// digits (no trip through float64), strings are written as JSON.stringify
// writes them.
func (s *server) appendID(id []byte) {
	switch {
	case id == nil:
		s.out = append(s.out, "null"...)
	case id[0] == '"':
		s.appendString(id)
	default:
		s.out = append(s.out, id...)
	}
}

// maxLookup bounds the strings decoded to be looked up: a name, key, URI
// or version we know is at most 64 bytes, and an escape is at most 6
// bytes for each byte it stands for, so a longer literal matches nothing
// and is not decoded, whatever a client sends.
const maxLookup = 6 * 64

// text returns the decoded contents of a JSON string, for comparing with
// names we know: in place when it has no escapes, else decoded into
// scratch space valid until the next call. A literal too long to match
// (see maxLookup) is returned as it is, quotes included, which matches
// no name.
func (s *server) text(lit []byte) []byte {
	body := lit[1 : len(lit)-1]
	if !hasBackslash(body) {
		return body
	}
	if len(lit) > maxLookup {
		return lit
	}
	s.scratch = unquote(s.scratch[:0], body)
	return s.scratch
}

// hasBackslash is bytes.IndexByte(b, '\\') >= 0 for short b, without
// the call.
func hasBackslash(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

// textIs reports whether v is a JSON string whose contents are want.
func (s *server) textIs(v []byte, want string) bool {
	return v != nil && v[0] == '"' && string(s.text(v)) == want
}

// --- Reading JSON ---
//
// A line is validated once, in full, by scan, before anything is read from
// it; afterwards nextMember, nextElement and skipValue walk the valid text
// without checking it again.

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

// span is an object or array that scan found in the line.
type span struct {
	start, n int  // its index in the line and its length
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

// How much scan notes: objects and arrays down to spanDepth (deep enough
// for a batch element's tool arguments and _meta), at most maxSpans of
// them and maxMembers members a line. Past those, the walks read the
// text again, which is slower but the same.
const (
	spanDepth  = 5
	maxSpans   = 1 << 12
	maxMembers = 1 << 15
)

// scan returns the index just past the JSON value that starts at b[i], or
// -1 if there is none. On the way it notes where the shallow objects and
// arrays end and where each of their members is, so the walks that follow
// need not read the text again. It keeps its own stack instead of
// recursing, so a value nested a million deep is only as costly as its
// length.
func (s *server) scan(b []byte, i int) int {
	stack, spans, open, members := &s.stack, s.spans[:0], s.open[:0], s.members[:0]
	stack.n = 0
	defer func() { s.spans, s.open, s.members = spans, open[:0], members }()
	s.lineCap = cap(b)
	pending := -1    // the noted member whose value comes next
	wantKey := false // an object's member starts at i
	for {
		if wantKey {
			wantKey = false
			key := skipSpace(b, i)
			keyEnd, next, escaped := scanKey(b, key)
			if next < 0 {
				return -1
			}
			if d := stack.n; d <= spanDepth && open[d-1] >= 0 {
				members, pending = noteMember(spans, members, open[d-1], key, keyEnd, escaped)
			}
			i = next
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return -1
		}
		if pending >= 0 {
			members[pending].val = i
			pending = -1
		}
		switch c := b[i]; c {
		case '{', '[':
			start := i
			closer := c + 2 // '}' or ']'
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == closer {
				i++
				break
			}
			stack.push(closer)
			k := -1
			if stack.n <= spanDepth {
				if len(spans) < maxSpans {
					k = len(spans)
					spans = append(spans, span{start: start, noted: c == '{', first: -1, last: -1})
				}
				open = append(open, k)
			}
			wantKey = c == '{'
			continue
		case '"':
			i, _ = scanString(b, i)
		case 't':
			i = scanLiteral(b, i, "true")
		case 'f':
			i = scanLiteral(b, i, "false")
		case 'n':
			i = scanLiteral(b, i, "null")
		default:
			i = scanNumber(b, i)
		}
		if i < 0 {
			return -1
		}
		// A value ended at i: close containers until one has more to come.
		for {
			depth := stack.n
			if depth == 0 {
				return i
			}
			k := -1
			if depth <= spanDepth {
				k = open[depth-1]
			}
			closer := stack.top()
			if closer == '}' && k >= 0 && spans[k].noted {
				members[spans[k].last].valEnd = i
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			if b[i] == closer {
				if k >= 0 {
					spans[k].n = i + 1 - spans[k].start
				}
				if depth <= spanDepth {
					open = open[:depth-1]
				}
				stack.pop()
				i++
				continue
			}
			if b[i] != ',' {
				return -1
			}
			i++
			wantKey = closer == '}'
			break
		}
	}
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

// pop closes the innermost open container.
func (st *nesting) pop() { st.n-- }

// noteMember adds a member to the noted object spans[k] and returns it, or
// -1 if the object is past noting (then none of its members count).
func noteMember(spans []span, members []member, k, key, keyEnd int, escaped bool) ([]member, int) {
	sp := &spans[k]
	if !sp.noted {
		return members, -1
	}
	if len(members) == maxMembers {
		sp.noted = false
		return members, -1
	}
	m := len(members)
	members = append(members, member{key: key, keyEnd: keyEnd, escaped: escaped, next: -1})
	if sp.last >= 0 {
		members[sp.last].next = m
	} else {
		sp.first = m
	}
	sp.last = m
	return members, m
}

// scanKey reads `"key":` at b[i]: it returns the index just past the key's
// string and just past the colon (-1 if there is none), and whether the
// key has escapes.
func scanKey(b []byte, i int) (keyEnd, next int, escaped bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, -1, false
	}
	if keyEnd, escaped = scanString(b, i); keyEnd < 0 {
		return 0, -1, false
	}
	i = skipSpace(b, keyEnd)
	if i >= len(b) || b[i] != ':' {
		return 0, -1, false
	}
	return keyEnd, i + 1, escaped
}

// scanLiteral returns the index just past lit at b[i], or -1.
func scanLiteral(b []byte, i int, lit string) int {
	if !bytes.HasPrefix(b[i:], []byte(lit)) {
		return -1
	}
	return i + len(lit)
}

// scanNumber returns the index just past the JSON number at b[i], or -1.
func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if j := skipDigits(b, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if j := skipDigits(b, i); j > i {
			i = j
		} else {
			return -1
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

// Constants for testing eight bytes at a time.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// specialMask marks, with its high bit, the first byte of x (in memory
// order) that is '"', '\\' or a control character, and maybe later ones:
// the bytes a string scan must stop at. It is zero if there are none.
func specialMask(x uint64) uint64 {
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	return ((q-ones)&^q | (bs-ones)&^bs | (x-ones*0x20)&^x) & highs
}

// quoteMask is specialMask for '"' and '\\' only: enough to skip a
// string already known to be valid.
func quoteMask(x uint64) uint64 {
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	return ((q-ones)&^q | (bs-ones)&^bs) & highs
}

// nextSpecial returns the index of the first byte at or after i that is
// '"', '\\' or a control character, or, with high, a byte of a multi-byte
// UTF-8 sequence; len(b) if there is none. Eight bytes at a time, and 32
// in long runs such as a big echo text.
func nextSpecial(b []byte, i int, high bool) int {
	mask := func(x uint64) uint64 {
		m := specialMask(x)
		if high {
			m |= x & highs
		}
		return m
	}
	for n := 0; i+8 <= len(b); n++ {
		if n == 2 {
			for ; i+32 <= len(b); i += 32 {
				x0 := binary.LittleEndian.Uint64(b[i:])
				x1 := binary.LittleEndian.Uint64(b[i+8:])
				x2 := binary.LittleEndian.Uint64(b[i+16:])
				x3 := binary.LittleEndian.Uint64(b[i+24:])
				if mask(x0)|mask(x1)|mask(x2)|mask(x3) != 0 {
					break
				}
			}
			if i+8 > len(b) {
				break
			}
		}
		if m := mask(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 || high && c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// scanString returns the index just past the JSON string at b[i], or -1,
// and whether it has escapes. Bytes that are not UTF-8 are allowed here;
// they read as U+FFFD.
func scanString(b []byte, i int) (end int, escaped bool) {
	i++
	// Most strings (keys, methods, names) end within eight bytes.
	if i+8 <= len(b) {
		if m := specialMask(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			if j := i + bits.TrailingZeros64(m)>>3; b[j] == '"' {
				return j + 1, false
			}
		}
	}
	for {
		i = nextSpecial(b, i, false)
		if i >= len(b) {
			return -1, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return -1, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || hex4(b[i+2:i+6]) < 0 {
					return -1, false
				}
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
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// skipString returns the index just past the valid JSON string at b[i].
func skipString(b []byte, i int) int {
	i++
	for n := 0; i+8 <= len(b); n++ {
		if m := quoteMask(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			if b[i] == '"' {
				return i + 1
			}
			i += 2 // an escape; what follows the backslash is never '"'
			continue
		}
		i += 8
		if n == 4 {
			// A long string: find its end with the vectorised IndexByte,
			// then count the backslashes before the quote it found.
			for ; ; i++ {
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
	}
	for ; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// skipValue returns the index just past the valid JSON value at b[i].
// Objects and arrays that scan noted are stepped over at once.
func (s *server) skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		if k := s.spanOf(b[i:]); k >= 0 {
			return i + s.spans[k].n
		}
		depth := 0
		for {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && !isSpace(b[i]) {
		i++
	}
	return i
}

// nextMember reads the member of the valid object obj that follows index
// i (just past '{' or the previous value): its raw key and value, and the
// index to pass next time, which is -1 after the last member.
func (s *server) nextMember(obj []byte, i int) (key, val []byte, next int) {
	i = skipSpace(obj, i)
	if obj[i] == ',' {
		i = skipSpace(obj, i+1)
	}
	if obj[i] == '}' {
		return nil, nil, -1
	}
	k := skipString(obj, i)
	key = obj[i:k]
	v := skipSpace(obj, skipSpace(obj, k)+1)
	end := s.skipValue(obj, v)
	return key, obj[v:end], end
}

// nextElement is nextMember for the elements of a valid array.
func (s *server) nextElement(arr []byte, i int) (elem []byte, next int) {
	i = skipSpace(arr, i)
	if arr[i] == ',' {
		i = skipSpace(arr, i+1)
	}
	if arr[i] == ']' {
		return nil, -1
	}
	end := s.skipValue(arr, i)
	return arr[i:end], end
}

// spanOf returns the span scan noted for the object or array v, a slice
// of the line, or -1. A slice's capacity runs to the end of the line's
// array, so the difference of capacities is v's index in the line; spans
// are in the order of their indexes, so a binary search finds it.
func (s *server) spanOf(v []byte) int {
	at := s.lineCap - cap(v)
	lo, hi := 0, len(s.spans)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if s.spans[mid].start < at {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(s.spans) && s.spans[lo].start == at {
		return lo
	}
	return -1
}

// fields is a walk over the members of a valid object: the ones scan
// noted, or else read from the text with nextMember.
type fields struct {
	obj  []byte
	base int // obj's index in the line, for noted members
	m    int // the next noted member, -1 at the end
	i    int // where nextMember goes on; -1 for noted members
}

// fields starts a walk over the members of the valid object obj.
func (s *server) fields(obj []byte) fields {
	if k := s.spanOf(obj); k >= 0 && s.spans[k].noted {
		return fields{obj: obj, base: s.spans[k].start, m: s.spans[k].first, i: -1}
	}
	return fields{obj: obj, i: 1}
}

// next returns the walk's next member: its raw key, its decoded name
// (valid until the next call) and its raw value; ok is false at the end.
func (s *server) next(f *fields) (key, name, val []byte, ok bool) {
	if f.i >= 0 {
		key, val, next := s.nextMember(f.obj, f.i)
		if next < 0 {
			return nil, nil, nil, false
		}
		f.i = next
		return key, s.text(key), val, true
	}
	if f.m < 0 {
		return nil, nil, nil, false
	}
	m := &s.members[f.m]
	f.m = m.next
	key = f.obj[m.key-f.base : m.keyEnd-f.base]
	val = f.obj[m.val-f.base : m.valEnd-f.base]
	name = key[1 : len(key)-1]
	if m.escaped && len(key) <= maxLookup {
		s.scratch = unquote(s.scratch[:0], name)
		name = s.scratch
	}
	return key, name, val, true
}

// readEscape decodes the escape at s[i] (a backslash) and returns the
// character and the escape's length. A \u pair that forms a surrogate pair
// reads as one character; a lone surrogate is returned as it is, as
// JavaScript keeps it.
func readEscape(s []byte, i int) (r rune, n int) {
	switch s[i+1] {
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r = hex4(s[i+2:])
		if r >= 0xD800 && r < 0xDC00 && i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
			if lo := hex4(s[i+8:]); lo >= 0xDC00 && lo < 0xE000 {
				return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12
			}
		}
		return r, 6
	}
	return rune(s[i+1]), 2 // '"', '\\' or '/'
}

// decodeRune decodes the UTF-8 character at the start of b (not empty).
// For bytes that are not UTF-8 it reports !ok and the length of the
// maximal invalid subpart, which reads as one U+FFFD, as in the WHATWG
// Encoding standard that JavaScript's TextDecoder and Node's Buffer follow.
func decodeRune(b []byte) (r rune, n int, ok bool) {
	r, n = utf8.DecodeRune(b)
	if r != utf8.RuneError || n > 1 {
		return r, n, true
	}
	lo, hi := byte(0x80), byte(0xBF)
	need := 0
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	}
	n = 1
	for n <= need && n < len(b) && b[n] >= lo && b[n] <= hi {
		lo, hi = 0x80, 0xBF
		n++
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
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, n, _ := decodeRune(body[i:])
			dst = utf8.AppendRune(dst, r)
			i += n
		}
	}
	return dst
}

// --- Writing JSON ---
//
// Strings are written as JSON.stringify writes them: '"' and '\\' escaped,
// \b \f \n \r \t by name, other control characters as \u00xx, lone
// surrogates as \udxxx, and everything else as raw UTF-8 (no HTML escaping,
// U+2028 and U+2029 raw).

// appendString appends the valid JSON string lit, as JSON.stringify would
// write the string it denotes.
func appendString(dst, lit []byte) []byte {
	dst = append(dst, '"')
	dst = appendStringBody(dst, lit[1:len(lit)-1])
	return append(dst, '"')
}

// appendStringBody appends the body of a valid JSON string, between its
// quotes, in the canonical form above. Runs that need no change, the
// usual case, are copied whole.
func appendStringBody(dst, body []byte) []byte {
	if len(body) > 64 && bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return append(dst, body...) // vectorised checks for a long plain text
	}
	dst, _ = appendStringPart(dst, body, len(body))
	return dst
}

// appendStringPart is appendStringBody for the start of body: it stops at
// the first character boundary at or after limit and returns the rest.
func appendStringPart(dst, body []byte, limit int) (_, rest []byte) {
	run := 0 // body[run:i] is copied as it is
	for i := 0; ; {
		from := i
		if i < limit {
			i = nextSpecial(body[:limit], i, true)
		}
		if i >= limit {
			// body[from:i] is plain ASCII, so any index in it is a
			// boundary.
			cut := max(limit, from)
			return append(dst, body[run:cut]...), body[cut:]
		}
		c := body[i]
		switch {
		case c == '\\':
			dst = append(dst, body[run:i]...)
			r, n := readEscape(body, i)
			dst = appendRune(dst, r)
			i += n
			run = i
		default: // the start of a multi-byte sequence
			_, n, ok := decodeRune(body[i:])
			if !ok {
				dst = append(dst, body[run:i]...)
				dst = append(dst, "\uFFFD"...)
				run = i + n
			}
			i += n
		}
	}
}

// textChunk is how much of a client's text is written into out at a time
// by appendText before out is written to stdout.
const textChunk = 64 << 10

// appendString appends the valid JSON string lit that came from the
// client, as appendString does, in pieces (see appendText).
func (s *server) appendString(lit []byte) {
	s.out = append(s.out, '"')
	s.appendText(lit[1 : len(lit)-1])
	s.out = append(s.out, '"')
}

// appendText appends the body of a valid JSON string that came from the
// client, in the canonical form, writing out what is pending every
// textChunk bytes of it: a client's text can be as long as a line, and
// three times longer once written (each byte that is not UTF-8 becomes
// U+FFFD), so it is never held whole. The reply it is part of can then no
// longer be taken back, which is why only a reply's last parts are texts.
func (s *server) appendText(body []byte) {
	for len(body) > textChunk {
		n := textChunk
		for k := 0; k < 3 && body[n]&0xC0 == 0x80; k++ {
			n-- // to the start of a character, if the text is UTF-8
		}
		if chunk := body[:n]; bytes.IndexByte(chunk, '\\') < 0 && utf8.Valid(chunk) {
			s.out, body = append(s.out, chunk...), body[n:]
		} else {
			s.out, body = appendStringPart(s.out, body, textChunk)
		}
		s.spill()
	}
	s.out = appendStringBody(s.out, body)
}

// appendQuoted appends the Go string s as a JSON string.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for _, r := range s {
		dst = appendRune(dst, r)
	}
	return append(dst, '"')
}

// appendStringArray appends a JSON array of strings.
func appendStringArray(dst []byte, list []string) []byte {
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendQuoted(dst, s)
	}
	return append(dst, ']')
}

// appendRune appends one character of a JSON string body.
func appendRune(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	switch {
	case r == '"' || r == '\\':
		return append(dst, '\\', byte(r))
	case r == '\b':
		return append(dst, '\\', 'b')
	case r == '\f':
		return append(dst, '\\', 'f')
	case r == '\n':
		return append(dst, '\\', 'n')
	case r == '\r':
		return append(dst, '\\', 'r')
	case r == '\t':
		return append(dst, '\\', 't')
	case r < 0x20 || r >= 0xD800 && r < 0xE000:
		return append(dst, '\\', 'u', hex[r>>12], hex[r>>8&0xF], hex[r>>4&0xF], hex[r&0xF])
	}
	return utf8.AppendRune(dst, r)
}

// appendNumber appends f as JavaScript's String(f) writes it (ECMAScript
// Number::toString): the shortest digits that read back as f, in plain
// decimal from 1e-6 up to 1e21 and in exponent form outside; -0 is "0".
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
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// strconv gives the shortest digits d1.d2d3...e±x; JavaScript's layout
	// is decided by k, the number of digits, and n = x+1, the position of
	// the decimal point.
	var ebuf, dbuf [24]byte
	e := strconv.AppendFloat(ebuf[:0], f, 'e', -1, 64)
	ei := bytes.IndexByte(e, 'e')
	digits := append(dbuf[:0], e[0])
	if ei > 1 {
		digits = append(digits, e[2:ei]...)
	}
	x := 0
	for _, c := range e[ei+2:] {
		x = x*10 + int(c-'0')
	}
	if e[ei+1] == '-' {
		x = -x
	}
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for ; k < n; k++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for ; n < 0; n++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}
