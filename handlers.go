// This file answers a line: it checks that the line is JSON, sorts each
// message into a request, a notification or a client's response, sends
// each request to its method's handler, and writes the reply. Its last
// two parts read and write JSON as JavaScript does, where the standard
// library does not.

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"iter"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// ==== Messages and replies ====

// JSON-RPC 2.0 and MCP error codes.
const (
	codeParseError         = -32700 // the line is not JSON
	codeInvalidRequest     = -32600 // JSON, but not a request; or a line over the limit
	codeMethodNotFound     = -32601 // no such method (in the request's protocol version)
	codeInvalidParams      = -32602 // params malformed, or naming a tool, or (2026-07-28) a resource, we lack
	codeInternalError      = -32603 // a handler or a tool failed; the session goes on
	codeResourceNotFound   = -32002 // before 2026-07-28
	codeUnsupportedVersion = -32022 // 2026-07-28: _meta names a version we do not speak
)

// rpcError is a JSON-RPC error.
type rpcError struct {
	code    int
	message string
	data    string // raw JSON, or "" for none; with textKey, an object's first members
	// textKey, if not "", ends data, then an object, with a member whose
	// value is text, client text as long as the line: it is written out,
	// not made into data first.
	textKey, text string
	why           string // for the log only: why params are invalid
}

// The errors that carry nothing but their code and message.
var (
	errParse          = &rpcError{code: codeParseError, message: "Parse error"}
	errInvalidRequest = &rpcError{code: codeInvalidRequest, message: "Invalid Request"}
	errMethodNotFound = &rpcError{code: codeMethodNotFound, message: "Method not found"}
	errInternal       = &rpcError{code: codeInternalError, message: "Internal error"}
)

// invalidParams is Invalid params because a member of params had the
// value got (nil: none) where want was expected.
func invalidParams(member string, got []byte, want string) *rpcError {
	why := member + " is missing"
	if got != nil {
		why = member + " is " + withArticle(jsonType(got)) + ", not " + want
	}
	return &rpcError{code: codeInvalidParams, message: "Invalid params", why: why}
}

// reply is what a request gets: an error, a result of ours, or a tool's.
type reply struct {
	err     *rpcError
	result  string // raw JSON; "" for a tool's result
	text    string // a tool's result: its text,
	isError bool   // whether it reports an error,
	modern  bool   // and whether it is in the 2026-07-28 shape
}

// request is a request or notification, its members raw JSON slices of
// the line, nil when absent; of a repeated member the last wins, as in
// JSON.parse.
type request struct {
	id     []byte // a string or a number; nil for a notification
	method []byte // a string
	params []byte
	modern bool // _meta names 2026-07-28: answer in its shapes

	// The members of an object params that handlers read, read in one walk.
	name, arguments, uri, protocolVersion, cursor, meta []byte
}

// answer writes the replies to one line: to a message, or to a batch (a
// JSON array) in one array, written as they are made, however many. A
// blank line, and a line that owes nothing, get no reply line at all.
// tooLong is a line over the limit, whose bytes are gone.
func (s *server) answer(line []byte, tooLong bool) {
	msg := line[skipSpace(line, 0):]
	end, ok := scanValue(msg, 0)
	if ok {
		end = skipSpace(msg, end) // only space may follow the value
	}
	switch {
	case tooLong:
		data := quote("message longer than " + strconv.Itoa(s.max) + " bytes")
		s.writeReply(nil, reply{err: &rpcError{code: codeInvalidRequest, message: "Invalid Request", data: data}})
		s.log.printf("mcp: - line over %d bytes skipped", s.max)
	case len(msg) == 0:
		return
	case !ok || end < len(msg):
		s.writeReply(nil, reply{err: errParse})
		s.log.printf("mcp: - id=null error %d: %s", codeParseError, notJSON(line, len(line)-len(msg)+end))
	case msg[0] == '[':
		n, elems := 0, 0
		for elem := range elements(msg) {
			if id, r, owed := s.handleMessage(elem); owed {
				s.out.WriteByte("[,"[min(n, 1)])
				s.writeReply(id, r)
				n++
			}
			if elems++; s.writeFailed() != nil {
				return
			}
		}
		switch {
		case n > 0:
			s.out.WriteByte(']')
		case elems > 0:
			return
		default: // an empty batch
			s.writeReply(nil, reply{err: errInvalidRequest})
			s.log.printf("mcp: - id=null error %d", codeInvalidRequest)
		}
	default:
		id, r, owed := s.handleMessage(msg)
		if !owed {
			return
		}
		s.writeReply(id, r)
	}
	s.out.WriteByte('\n')
}

// notJSON says, for the log, why a line is not JSON: its byte at cannot
// be there, or, at its end, the line ends too soon.
func notJSON(line []byte, at int) string {
	if at < len(line) {
		return fmt.Sprintf("the line is not JSON: %q at byte %d", line[at:at+1], at)
	}
	return "the line ends inside a JSON value (each message must be on one line)"
}

// handleMessage returns the reply a message is owed, if any: requests and
// invalid messages are owed one, notifications and the client's own
// responses are not. It logs the request with -v.
func (s *server) handleMessage(msg []byte) (id []byte, r reply, owed bool) {
	req, ok := readMessage(msg)
	if ok && req.id == nil {
		return nil, reply{}, false
	}
	var start time.Time
	if s.log != nil {
		start = time.Now()
	}
	if r = (reply{err: errInvalidRequest}); ok {
		r = s.handle(req)
	}
	switch {
	case s.log == nil:
	case ok:
		s.log.printf("mcp: %s id=%s %v %s", quoteText(text(req.method)), logID(req.id), time.Since(start), outcome(r))
	default:
		s.log.printf("mcp: - id=%s %s", logID(req.id), outcome(r))
	}
	return req.id, r, true
}

// readMessage sorts a message: a request or a notification (ok), a
// client's response (ok, with no id: owed nothing), or an invalid one,
// whose reply carries its id if that is valid.
func readMessage(msg []byte) (req request, ok bool) {
	if msg[0] != '{' {
		return req, false
	}
	var jsonrpc, method, response []byte
	for k, v := range members(msg) {
		switch string(nameOf(k)) {
		case "jsonrpc":
			jsonrpc = v
		case "id":
			req.id = v
		case "method":
			method = v
		case "params":
			req.params = v
		case "result", "error":
			response = v
		}
	}
	switch id := req.id; {
	case method == nil && response != nil:
		return request{}, true
	case id != nil && id[0] != '"' && id[0] != '-' && !isDigit(id[0]):
		req.id = nil // not an id: the reply's is null
		return req, false
	case method == nil || method[0] != '"' || jsonrpc == nil || jsonrpc[0] != '"' || string(nameOf(jsonrpc)) != "2.0":
		return req, false
	}
	req.method = method
	if len(req.params) > 0 && req.params[0] == '{' {
		for k, v := range members(req.params) {
			switch string(nameOf(k)) {
			case "name":
				req.name = v
			case "arguments":
				req.arguments = v
			case "uri":
				req.uri = v
			case "protocolVersion":
				req.protocolVersion = v
			case "cursor":
				req.cursor = v
			case "_meta":
				req.meta = v
			}
		}
	}
	return req, true
}

// ==== Methods ====

// Who we are, in initialize and server/discover results; serverVersion is
// the release, which -version prints too.
const (
	serverName    = "shipcode-mcp"
	serverVersion = "0.1.0"
	serverInfo    = `{"name":"` + serverName + `","version":"` + serverVersion + `"}`
	capabilities  = `"capabilities":{"tools":{},"resources":{}}`
)

// Protocol versions. A request whose _meta names modernVersion is answered
// in its shapes; every other in the legacy ones, whether or not initialize
// came first.
const (
	modernVersion          = "2026-07-28"
	latestLegacyVersion    = "2025-11-25"
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"    // in 2026-07-28's _meta
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities" // likewise
)

// legacyVersions are the initialize-era versions we speak, newest first.
var legacyVersions = []string{latestLegacyVersion, "2025-06-18", "2025-03-26", "2024-11-05"}

// supportedVersions lists, as JSON, the versions server/discover offers.
var supportedVersions = quoteList(append([]string{modernVersion}, legacyVersions...))

// methods is every method we serve: its name, whether 2026-07-28 removed
// it (there, it is Method not found), and its handler, which is given the
// request with its params checked to be an object or absent.
var methods = []struct {
	name       string
	legacyOnly bool
	handle     func(*server, request) reply
}{
	{"initialize", true, handleInitialize},
	{"ping", true, func(*server, request) reply { return reply{result: "{}"} }},
	{"tools/list", false, func(s *server, req request) reply { return listReply(req, s.toolList) }},
	{"tools/call", false, handleToolsCall},
	{"resources/list", false, func(_ *server, req request) reply { return listReply(req, resourceList) }},
	{"resources/read", false, handleResourcesRead},
	{"resources/templates/list", false, func(_ *server, req request) reply { return listReply(req, `"resourceTemplates":[]`) }},
	// Answered in either era, in its only shape, 2026-07-28's.
	{"server/discover", false, func(*server, request) reply {
		return reply{result: `{"resultType":"complete","supportedVersions":` + supportedVersions + `,` + capabilities +
			`,"_meta":{"io.modelcontextprotocol/serverInfo":` + serverInfo + `},"ttlMs":3600000,"cacheScope":"public"}`}
	}},
}

// handle returns a request's reply: the error its _meta or params earn,
// or its handler's reply. A handler or a tool that panics gets Internal
// error, and the session goes on: nothing of the reply is written yet.
func (s *server) handle(req request) (r reply) {
	defer func() {
		if p := recover(); p != nil {
			r = reply{err: errInternal}
			s.log.printf("mcp: panic in %s: %s", quoteText(text(req.method)), quoteText(fmt.Sprint(p)))
		}
	}()
	var err *rpcError
	if req.modern, err = era(req); err != nil {
		return reply{err: err}
	}
	method := string(nameOf(req.method))
	for _, m := range methods {
		switch {
		case method != m.name:
		case m.legacyOnly && req.modern:
			return reply{err: errMethodNotFound}
		case req.params != nil && req.params[0] != '{':
			return reply{err: invalidParams("params", req.params, "an object")}
		default:
			return m.handle(s, req)
		}
	}
	return reply{err: errMethodNotFound}
}

// era reads params._meta: a request that names 2026-07-28 there must also
// carry the client's capabilities, and is modern; one that names a legacy
// version we speak, or none, is legacy; server/discover must name one.
func era(req request) (modern bool, err *rpcError) {
	version, caps := member(req.meta, metaProtocolVersion), member(req.meta, metaClientCapabilities)
	switch {
	case version == nil && string(nameOf(req.method)) == "server/discover", version != nil && version[0] != '"':
		return false, metaRequired(metaProtocolVersion, version, "a string")
	case version == nil:
		return false, nil
	}
	switch v := string(nameOf(version)); {
	case v == modernVersion && (caps == nil || caps[0] != '{'):
		return false, metaRequired(metaClientCapabilities, caps, "an object")
	case v == modernVersion:
		return true, nil
	case !slices.Contains(legacyVersions, v):
		return false, &rpcError{code: codeUnsupportedVersion, message: "Unsupported protocol version",
			data: `"supported":` + supportedVersions + ",", textKey: "requested", text: text(version)}
	}
	return false, nil
}

// metaRequired is Invalid params for a _meta member missing or mistyped.
func metaRequired(key string, got []byte, want string) *rpcError {
	err := invalidParams("_meta."+key, got, want)
	err.data = `{"required":"_meta.` + key + `"}`
	return err
}

// handleInitialize answers the legacy handshake with the client's version
// if we speak it, else our newest legacy one.
func handleInitialize(_ *server, req request) reply {
	v := latestLegacyVersion
	if pv := req.protocolVersion; pv != nil && pv[0] == '"' && slices.Contains(legacyVersions, string(nameOf(pv))) {
		v = string(nameOf(pv))
	}
	return reply{result: `{"protocolVersion":"` + v + `",` + capabilities + `,"serverInfo":` + serverInfo + `}`}
}

// listReply answers a list method with the members of its result. We
// never paginate, so any cursor is one we did not issue.
func listReply(req request, members string) reply {
	if req.cursor != nil {
		return reply{err: invalidParams("params.cursor", req.cursor, "absent: mcp issues no cursors")}
	}
	return reply{result: inShape(req.modern, members)}
}

// inShape is a result with the given members in the request's shape: in
// 2026-07-28, with resultType first and, as the catalogue is fixed for
// the life of the process, cache hints that let a client keep it an hour.
func inShape(modern bool, members string) string {
	if modern {
		return `{"resultType":"complete",` + members + `,"ttlMs":3600000,"cacheScope":"public"}`
	}
	return "{" + members + "}"
}

// handleToolsCall runs a tool. Malformed params are a protocol error;
// arguments the tool does not take get a tool result with isError, which
// names the tool, the argument and the fault, for the model to correct.
func handleToolsCall(s *server, req request) reply {
	switch {
	case req.name == nil || req.name[0] != '"':
		return reply{err: invalidParams("params.name", req.name, "a string")}
	case req.arguments != nil && req.arguments[0] != '{':
		return reply{err: invalidParams("params.arguments", req.arguments, "an object")}
	}
	t := findTool(s.tools, nameOf(req.name))
	if t == nil {
		return reply{err: &rpcError{code: codeInvalidParams, message: "Unknown tool: " + text(req.name)}}
	}
	text, isError := t.call(req.arguments)
	return reply{text: text, isError: isError, modern: req.modern}
}

// handleResourcesRead answers a resource's contents. An unknown URI is
// -32002 before 2026-07-28 and -32602 in it, with the URI as data.
func handleResourcesRead(_ *server, req request) reply {
	if req.uri == nil || req.uri[0] != '"' {
		return reply{err: invalidParams("params.uri", req.uri, "a string")}
	}
	for i, r := range resources {
		if hasText(req.uri, r.uri) {
			return reply{result: readResults[i][req.modern]}
		}
	}
	code := codeResourceNotFound
	if req.modern {
		code = codeInvalidParams
	}
	return reply{err: &rpcError{code: code, message: "Resource not found", textKey: "uri", text: text(req.uri)}}
}

// ==== Writing replies, and the log ====

// writeReply writes the reply to the request with the given id (nil:
// null): a number as it came, a string as JSON.stringify writes its text.
func (s *server) writeReply(id []byte, r reply) {
	w := s.out
	w.WriteString(`{"jsonrpc":"2.0","id":`)
	switch {
	case id == nil:
		w.WriteString("null")
	case id[0] == '"':
		writeString(w, text(id))
	default:
		w.Write(id)
	}
	switch e := r.err; {
	case e != nil:
		w.WriteString(`,"error":{"code":`)
		w.Write(strconv.AppendInt(w.AvailableBuffer(), int64(e.code), 10))
		w.WriteString(`,"message":`)
		writeString(w, e.message)
		switch {
		case e.textKey != "":
			w.WriteString(`,"data":{` + e.data + `"` + e.textKey + `":`)
			writeString(w, e.text)
			w.WriteByte('}')
		case e.data != "":
			w.WriteString(`,"data":` + e.data)
		}
		w.WriteByte('}')
	case r.result != "":
		w.WriteString(`,"result":`)
		w.WriteString(r.result)
	default:
		w.WriteString(`,"result":{`)
		if r.modern {
			w.WriteString(`"resultType":"complete",`)
		}
		w.WriteString(`"content":[{"type":"text","text":`)
		writeString(w, r.text)
		w.WriteString(`}],"isError":`)
		w.WriteString(strconv.FormatBool(r.isError))
		w.WriteByte('}')
	}
	w.WriteByte('}')
}

// logID shows an id in the log: a string's text quoted, a number as it
// came, each cut at 100 bytes (see quoteText), or null.
func logID(id []byte) string {
	switch {
	case id == nil:
		return "null"
	case id[0] == '"':
		return quoteText(text(id))
	case len(id) > 100:
		return string(id[:100]) + "..." + strconv.Itoa(len(id)) + " bytes"
	}
	return string(id)
}

// outcome is the end of a request's log line: ok, "tool error" for a
// tool's result that reports one, or the error code and why, if known.
func outcome(r reply) string {
	switch {
	case r.err != nil && r.err.why != "":
		return fmt.Sprintf("error %d: %s", r.err.code, r.err.why)
	case r.err != nil:
		return fmt.Sprintf("error %d", r.err.code)
	case r.isError:
		return "tool error"
	}
	return "ok"
}

// ==== Reading JSON ====
//
// scanValue checks JSON as JSON.parse does (json.Valid costs a quarter of
// the bench's throughput). The functions after it read the valid text as
// JavaScript does, where encoding/json does not: member names match
// exactly, lone surrogates are kept, numbers of any length read exactly.

// maxDepth is the deepest nesting scanValue reads, as in encoding/json: a
// line of 64 MiB of [ would otherwise make it hold a stack as long.
const maxDepth = 10000

// scanValue checks the JSON value at b[i] and returns the index just past
// it; if there is none, the index of the first byte that cannot be there,
// or len(b) if b ends first. It keeps the closers of the containers open
// in a stack.
func scanValue(b []byte, i int) (end int, ok bool) {
	var stack [64]byte
	open := stack[:0]
	for {
		// A value starts at b[i].
		switch {
		case i == len(b):
			return i, false
		case (b[i] == '{' || b[i] == '[') && len(open) == maxDepth:
			return i, false
		case b[i] == '{' || b[i] == '[':
			closer := b[i] + 2 // '}' or ']'
			if i = skipSpace(b, i+1); i < len(b) && b[i] == closer {
				i, ok = i+1, true // empty
				break
			}
			open = append(open, closer)
			if closer == '}' {
				if i, ok = scanKey(b, i); !ok {
					return i, false
				}
			}
			continue
		case b[i] == '"':
			i, ok = scanString(b, i)
		case b[i] == 't' || b[i] == 'f' || b[i] == 'n':
			i, ok = scanLiteral(b, i)
		default:
			i, ok = scanNumber(b, i)
		}
		if !ok {
			return i, false
		}
		// The value ends before b[i]: close the containers that end next.
		for len(open) > 0 {
			j := skipSpace(b, i)
			if j == len(b) || b[j] != open[len(open)-1] {
				break
			}
			open, i = open[:len(open)-1], j+1
		}
		if len(open) == 0 {
			return i, true
		}
		switch j := skipSpace(b, i); {
		case j == len(b) || b[j] != ',':
			return j, false
		case open[len(open)-1] == '}':
			if i, ok = scanKey(b, skipSpace(b, j+1)); !ok {
				return i, false
			}
		default:
			i = skipSpace(b, j+1)
		}
	}
}

// scanKey checks an object member's `"key":` at b[i] and returns the
// index of its value.
func scanKey(b []byte, i int) (int, bool) {
	if i == len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := scanString(b, i)
	if !ok {
		return i, false
	}
	if i = skipSpace(b, i); i == len(b) || b[i] != ':' {
		return i, false
	}
	return skipSpace(b, i+1), true
}

// scanString checks the JSON string at b[i] and returns the index past
// it: no control characters, and only the escapes JSON has. Bytes that
// are not UTF-8 are allowed: JavaScript reads them as U+FFFD.
func scanString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		if i = skipPlain(b, i, false); i == len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c != '\\':
		case i+1 < len(b) && strings.IndexByte(`"\/bfnrt`, b[i+1]) >= 0:
			i++
		default: // \u and four hex digits
			for k := 1; k < 6; k++ {
				if i+k == len(b) || k == 1 && b[i+k] != 'u' || k > 1 && unhex(b[i+k]) < 0 {
					return i + k, false
				}
			}
			i += 5
		}
	}
	return i, false
}

// skipPlain returns the index of the first byte of b at or after i that
// is '"', '\\' or a control character, or, with high, a byte of a UTF-8
// sequence; len(b) if there is none. It tests eight bytes at a time, by
// the tricks that find a zero byte or one under a bound in a word: byte by
// byte, a 16 MiB echo takes 41 ms (BenchmarkEcho16MiB), 22 this way.
func skipPlain[T string | []byte](b T, i int, high bool) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		x := uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24 |
			uint64(b[i+4])<<32 | uint64(b[i+5])<<40 | uint64(b[i+6])<<48 | uint64(b[i+7])<<56
		q, bs := x^(ones*'"'), x^(ones*'\\')
		if ((q-ones)&^q|(bs-ones)&^bs|(x-ones*0x20)&^x)&highs != 0 || high && x&highs != 0 {
			break
		}
	}
	for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 && (!high || b[i] < utf8.RuneSelf) {
		i++
	}
	return i
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
		if i+k == len(b) || b[i+k] != lit[k] {
			return i + k, false
		}
	}
	return i + len(lit), true
}

// scanNumber checks the JSON number at b[i] and returns the index past it.
func scanNumber(b []byte, i int) (int, bool) {
	digits := func(i int) int { // the index past the digits at b[i]
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		return i
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && isDigit(b[i]):
		i = digits(i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		if i = digits(i + 1); !isDigit(b[i-1]) {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if j := digits(i); j > i {
			return j, true
		}
		return i, false
	}
	return i, true
}

// members iterates over the members of the valid JSON object obj (none,
// if obj is nil), giving each key and value as raw JSON.
func members(obj []byte) iter.Seq2[[]byte, []byte] {
	return func(yield func(key, value []byte) bool) {
		for i := skipSpace(obj, 1); i < len(obj) && obj[i] == '"'; {
			end := skipString(obj, i)
			key := obj[i:end]
			i = skipSpace(obj, skipSpace(obj, end)+1) // past the ':'
			next := skipValue(obj, i)
			if !yield(key, obj[i:next]) {
				return
			}
			if i = skipSpace(obj, next); obj[i] == ',' {
				i = skipSpace(obj, i+1)
			}
		}
	}
}

// elements iterates over the elements of the valid JSON array arr.
func elements(arr []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for i := skipSpace(arr, 1); arr[i] != ']'; {
			next := skipValue(arr, i)
			if !yield(arr[i:next]) {
				return
			}
			if i = skipSpace(arr, next); arr[i] == ',' {
				i = skipSpace(arr, i+1)
			}
		}
	}
}

// member returns the raw value of the last member named name of obj, if
// obj is a JSON object; else nil.
func member(obj []byte, name string) (value []byte) {
	if len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	for k, v := range members(obj) {
		if string(nameOf(k)) == name {
			value = v
		}
	}
	return value
}

// skipSpace returns the index of the first byte of b at or after i that is
// not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the valid JSON value at b[i].
func skipValue(b []byte, i int) int {
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
	for i < len(b) && b[i] != ',' && b[i] != ']' && b[i] != '}' && skipSpace(b, i) == i {
		i++ // a number, true, false or null
	}
	return i
}

// skipString returns the index just past the valid JSON string at b[i]:
// past the first '"' that does not end a run of an odd number of
// backslashes. bytes.IndexByte finds each '"' many bytes at a time.
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

// isDigit reports whether c is an ASCII digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// text returns the text of the valid JSON string lit, as a tool reads
// it: escapes decoded, a surrogate pair as its character and a lone
// surrogate as the three bytes WTF-8 gives it, so that none is lost; the
// other bytes as they came, those that are not UTF-8 to be read as
// JavaScript reads them when written (see writeString). One sequence
// would read otherwise there, 0xED and a byte from 0xA0 to 0xBF, which
// WTF-8 gives a surrogate: its 0xED becomes 0xFF, which JavaScript reads,
// like it, as U+FFFD. So the text is never longer than lit.
func text(lit []byte) string {
	if body := lit[1 : len(lit)-1]; !needsDecoding(body) {
		return string(body)
	}
	var b strings.Builder
	writeText(&b, lit)
	return b.String()
}

// writeText writes the text of the valid JSON string lit to b (see text).
func writeText(b *strings.Builder, lit []byte) {
	body := lit[1 : len(lit)-1]
	b.Grow(len(body))
	for i := 0; i < len(body); {
		j := i // body[i:j] is copied as it is
		for j < len(body) && body[j] != '\\' && body[j] != 0xED {
			j++
		}
		b.Write(body[i:j])
		switch i = j; {
		case i == len(body):
		case body[i] == 0xED && i+1 < len(body) && body[i+1] >= 0xA0 && body[i+1] <= 0xBF:
			b.WriteByte(0xFF)
			i++
		case body[i] == 0xED:
			b.WriteByte(0xED)
			i++
		default:
			r, n := readEscape(body[i:])
			if utf16.IsSurrogate(r) { // WTF-8
				b.Write([]byte{0xED, 0x80 | byte(r>>6)&0x3F, 0x80 | byte(r)&0x3F})
			} else {
				b.WriteRune(r)
			}
			i += n
		}
	}
}

// nameOf returns the text of the valid JSON string lit to look up, in
// place when it needs no decoding, or, if it is too long to be any name
// of ours, none of which is over 128 bytes, its body: an escape stands
// for at least one byte in at most six.
func nameOf(lit []byte) []byte {
	if body := lit[1 : len(lit)-1]; !needsDecoding(body) || len(body) > 6*128 {
		return body
	}
	return []byte(text(lit))
}

// hasText reports whether the text of the valid JSON string lit is s,
// decoding lit only if it needs it.
func hasText(lit []byte, s string) bool {
	if body := lit[1 : len(lit)-1]; !needsDecoding(body) {
		return string(body) == s
	}
	return text(lit) == s
}

// needsDecoding reports whether a string's body is not its text.
func needsDecoding(body []byte) bool {
	return bytes.IndexByte(body, '\\') >= 0 || bytes.IndexByte(body, 0xED) >= 0
}

// readEscape reads the escape that s starts with and returns the
// character it stands for and its length: a \u pair that forms a
// surrogate pair is one character; a lone surrogate stays one.
func readEscape(s []byte) (r rune, n int) {
	c := s[1]
	switch c {
	case 'u':
		hex4 := func(h []byte) rune { return unhex(h[0])<<12 | unhex(h[1])<<8 | unhex(h[2])<<4 | unhex(h[3]) }
		if r = hex4(s[2:6]); r >= 0xD800 && r < 0xDC00 && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if lo := hex4(s[8:12]); lo >= 0xDC00 && lo < 0xE000 {
				return utf16.DecodeRune(r, lo), 12
			}
		}
		return r, 6
	case 'b', 'f', 'n', 'r', 't':
		return rune("\b\f\n\r\t"[strings.IndexByte("bfnrt", c)]), 2
	}
	return rune(c), 2 // '"', '\\' or '/'
}

// unhex returns the value of the hex digit c, or -1.
func unhex(c byte) rune {
	switch lc := c | 0x20; {
	case isDigit(c):
		return rune(c - '0')
	case lc >= 'a' && lc <= 'f':
		return rune(lc-'a') + 10
	}
	return -1
}

// jsonType names the JSON Schema type of a valid JSON value.
func jsonType(v []byte) string {
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// withArticle puts "a" or "an" before a word.
func withArticle(word string) string {
	if strings.IndexByte("aeiou", word[0]) >= 0 {
		return "an " + word
	}
	return "a " + word
}

// parseNumber reads a valid JSON number as JavaScript's Number() does: the
// double nearest its value, ties to even, whatever its length; ±Infinity
// or ±0 out of range. strconv.ParseFloat is quick with up to 19 digits
// when the result is neither subnormal nor infinite; else it takes 15-30
// µs (5e-324, 1e309), where exact integer arithmetic takes under 1 µs.
func parseNumber(lit []byte) float64 {
	digits, point := significand(make([]byte, 0, 24), lit)
	var f float64
	switch n := len(digits); {
	case n == 0 || point < -323: // under 1e-324, less than half 5e-324
	case point > 309: // at least 1e309, over the largest double
		f = math.Inf(1)
	case n <= 19 && point > -307 && point < 309 && len(lit) <= 800:
		f, _ = strconv.ParseFloat(string(lit), 64)
		return f
	default:
		// The digits times or over the power of ten, to at least 66 bits
		// past a double's 53, the remainder, if any, marking the last bit so
		// that it cannot make a tie where there is none; then one rounding.
		var d, r big.Int
		var x big.Float
		d.SetString(string(digits), 10)
		e := point - n // the value is d x 5^e x 2^e
		if e >= 0 {
			d.Mul(&d, powersOfFive()[e])
		} else {
			pow := powersOfFive()[-e]
			shift := max(0, pow.BitLen()-d.BitLen()+66)
			if d.QuoRem(d.Lsh(&d, uint(shift)), pow, &r); r.Sign() != 0 {
				d.SetBit(&d, 0, 1)
			}
			e -= shift
		}
		f, _ = x.SetMantExp(x.SetInt(&d), e).Float64()
	}
	if lit[0] == '-' {
		return -f
	}
	return f
}

// powersOfFive are 5^0 to 5^1092 (769 digits from 10^-323, to 10^309),
// made on first use: parseNumber leaves 10^k's 2^k to the exponent, as a
// division by 5^k takes two thirds of the time of one by 10^k.
var powersOfFive = sync.OnceValue(func() (p []*big.Int) {
	for x := big.NewInt(1); len(p) <= 1092; x = new(big.Int).Mul(x, big.NewInt(5)) {
		p = append(p, x)
	}
	return p
})

// significand appends to digits the significant digits of the number
// literal lit, from its first nonzero digit to its last, and returns them
// and point: lit is 0.DIGITS x 10^point, its exponent saturating far past
// any that matters. Of more than 768 digits it keeps 768 and a 1 for the
// rest: every double, and every point halfway between two, has at most
// 767 significant digits, so the rest only tells whether lit is above
// such a point or on it.
func significand(digits, lit []byte) ([]byte, int) {
	mantissa, exp, i := lit, 0, bytes.IndexByte(lit, 'e')
	if i < 0 {
		i = bytes.IndexByte(lit, 'E')
	}
	if i >= 0 {
		mantissa = lit[:i]
		for _, c := range lit[i+1:] {
			if isDigit(c) && exp < 1e8 {
				exp = exp*10 + int(c-'0')
			}
		}
		if lit[i+1] == '-' {
			exp = -exp
		}
	}
	whole, frac, _ := bytes.Cut(bytes.TrimPrefix(mantissa, []byte("-")), []byte("."))
	if whole[0] == '0' { // then whole is "0": the digits start in frac
		n := len(frac)
		whole, frac = nil, bytes.TrimLeft(frac, "0")
		exp -= n - len(frac)
	}
	point := len(whole) + exp
	if frac = bytes.TrimRight(frac, "0"); len(frac) == 0 {
		whole = bytes.TrimRight(whole, "0")
	}
	digits = append(digits, whole[:min(len(whole), 769)]...)
	digits = append(digits, frac[:min(len(frac), 769-len(digits))]...)
	if len(digits) == 769 { // the last digit is not 0, so the rest is not 0
		digits[768] = '1'
	}
	return digits, point
}

// ==== Writing JSON ====
//
// encoding/json escapes <, > and &, U+2028 and U+2029, and writes lone
// surrogates and bytes that are not UTF-8 as U+FFFD, unlike JSON.stringify:
// strings are written here.

// writeString writes s as JSON.stringify writes the string JavaScript
// reads from s's bytes: '"' and '\\' escaped, \b \f \n \r \t by name,
// other control characters as \u00xx; a surrogate that s carries in WTF-8
// (see text) as \udxxx, or, followed by a low one that completes a pair,
// as their character; bytes that are not UTF-8 as U+FFFD, one for each
// maximal invalid subpart, as the WHATWG Encoding standard's UTF-8
// decoder, which Node's TextDecoder and Buffer follow, reads them; all
// else as it is, U+2028, U+2029 and <, > and & included.
func writeString(w *bufio.Writer, s string) {
	const hex = "0123456789abcdef"
	w.WriteByte('"')
	run := 0 // s[run:i] is written as it is
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i = skipPlain(s, i, true)
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if c >= utf8.RuneSelf && (r != utf8.RuneError || n > 1) {
			i += n
			continue
		}
		w.WriteString(s[run:i])
		switch k := strings.IndexByte("\"\\\b\f\n\r\t", c); {
		case k >= 0:
			w.WriteByte('\\')
			w.WriteByte(`"\bfnrt`[k])
		case c < 0x20:
			w.WriteString(`\u00`)
			w.WriteByte(hex[c>>4])
			w.WriteByte(hex[c&0xF])
		default:
			switch r, n = notUTF8(s[i:]); {
			case utf16.IsSurrogate(r):
				w.WriteString(`\u`)
				for shift := 12; shift >= 0; shift -= 4 {
					w.WriteByte(hex[r>>shift&0xF])
				}
			case r == utf8.RuneError:
				w.WriteString("\uFFFD")
			default:
				w.WriteString(string(r))
			}
		}
		i += n
		run = i
	}
	w.WriteString(s[run:])
	w.WriteByte('"')
}

// notUTF8 reads the bytes s starts with, which do not start a character
// in UTF-8: a surrogate in WTF-8, or a high and a low one, which stand for
// one character; else a maximal invalid subpart, which JavaScript reads as
// one U+FFFD: the longest start of a character, whose lead byte for a
// surrogate, 0xED, may here be followed by 0xA0-0xBF too.
func notUTF8(s string) (r rune, n int) {
	if hi := surrogate(s); hi != 0 {
		if lo := surrogate(s[3:]); hi < 0xDC00 && lo >= 0xDC00 {
			return utf16.DecodeRune(hi, lo), 6
		}
		return hi, 3
	}
	need, lo, hi := 0, byte(0x80), byte(0xBF) // continuation bytes, and the first one's bounds
	switch c := s[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c >= 0xE0 && c <= 0xEF:
		need = 2
	case c >= 0xF0 && c <= 0xF4:
		need = 3
	}
	switch s[0] {
	case 0xE0:
		lo = 0xA0
	case 0xF0:
		lo = 0x90
	case 0xF4:
		hi = 0x8F
	}
	for n = 1; n <= need && n < len(s) && s[n] >= lo && s[n] <= hi; n++ {
		lo, hi = 0x80, 0xBF
	}
	return utf8.RuneError, n
}

// surrogate returns the surrogate whose three WTF-8 bytes s starts with,
// or 0.
func surrogate(s string) rune {
	if len(s) < 3 || s[0] != 0xED || s[1] < 0xA0 || s[1] > 0xBF || s[2] < 0x80 || s[2] > 0xBF {
		return 0
	}
	return 0xD000 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F)
}

// quote returns s as a JSON string (see writeString).
func quote(s string) string {
	var b strings.Builder
	w := bufio.NewWriterSize(&b, 64) // small: a long run of text goes through
	writeString(w, s)
	w.Flush()
	return b.String()
}

// quoteList returns the strings as a JSON array.
func quoteList(list []string) string {
	var q []string
	for _, s := range list {
		q = append(q, quote(s))
	}
	return "[" + strings.Join(q, ",") + "]"
}

// formatNumber returns f as JavaScript's String(f) writes it: the shortest
// digits that read back as f, in plain decimal from 1e-6 up to 1e21 and in
// exponent form outside (the layout encoding/json uses too); NaN,
// Infinity and -Infinity; -0 as 0.
func formatNumber(f float64) string {
	switch {
	case f != f:
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	s := strconv.FormatFloat(f, format, -1, 64)
	if n := len(s); format == 'e' && s[n-4] == 'e' && s[n-2] == '0' {
		s = s[:n-2] + s[n-1:] // e-07 is e-7 in JavaScript
	}
	return s
}
