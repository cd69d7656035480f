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
	"unsafe"
)

// ==== Messages ====

// JSON-RPC 2.0 and MCP error codes.
const (
	codeParseError         = -32700 // the line is not JSON
	codeInvalidRequest     = -32600 // JSON, but not a request; or a line over the limit
	codeMethodNotFound     = -32601 // no such method (in the request's protocol version)
	codeInvalidParams      = -32602 // params malformed, or naming a tool, or (2026-07-28) a resource, we lack
	codeInternalError      = -32603 // a handler or a tool failed; the session goes on
	codeResourceNotFound   = -32002 // before 2026-07-28
	codeUnsupportedVersion = -32022 // 2026-07-28: _meta names a version we do not speak
	codeBusy               = -32010 // mcp holds all it may while calls run: retry, or cancel them
)

// rpcError is a JSON-RPC error: a code, a message and data (nil for
// none), written by writeJSON; why is for the log only.
type rpcError struct {
	code    int
	message string
	data    any
	why     string
}

// The errors that carry nothing but their code and message.
var (
	errParse          = &rpcError{code: codeParseError, message: "Parse error"}
	errInvalidRequest = &rpcError{code: codeInvalidRequest, message: "Invalid Request"}
	errMethodNotFound = &rpcError{code: codeMethodNotFound, message: "Method not found"}
	errInternal       = &rpcError{code: codeInternalError, message: "Internal error"}
)

// invalidParams is Invalid params because the member had the value got
// (none: missing) where want was expected.
func invalidParams(member string, got value, want string) *rpcError {
	why := member + " is missing"
	if got.exists() {
		why = member + " is " + withArticle(got.jsonType()) + ", not " + want
	}
	return &rpcError{code: codeInvalidParams, message: "Invalid params", why: why}
}

// request is a message as the loop reads it: the members of its
// envelope, and of its params and their _meta, that a method reads, each
// the last of its name, as JSON.parse keeps it, all found in the pass
// that checks the line (see doc.parse).
type request struct {
	msg                         value // the message
	jsonrpc, id, method, params value
	result, error               value // a client's response's
	p                           params
	inBatch                     bool // it is an element of a batch
	modern                      bool // _meta names 2026-07-28: answered in its shapes
}

// params are the members of a request's params that a method reads.
type params struct {
	name, arguments, uri, cursor, protocolVersion, capabilities value
	requestID, inputResponses, requestState, meta               value
	ref, argument, context                                      value // completion/complete's
	metaVersion, metaCaps, progressToken                        value // of _meta
}

// member returns where r keeps the member of key (a JSON string) of an
// object whose members are of role: 'e' the envelope, 'p' params, 'm'
// params._meta (none: 0); and the role of its own members, if it is an
// object. A params or a _meta read again drops what the one before gave,
// as JSON.parse keeps the last.
func (r *request) member(role byte, key []byte) (*value, byte) {
	name := key[1 : len(key)-1]
	if r == nil || role == 0 {
		return nil, 0
	} else if bytes.IndexByte(name, '\\') >= 0 {
		name = []byte(text(key))
	}
	switch role {
	case 'e':
		return r.envelope(name)
	case 'p':
		return r.p.member(name)
	}
	switch p := &r.p; string(name) {
	case metaProtocolVersion:
		return &p.metaVersion, 0
	case metaClientCapabilities:
		return &p.metaCaps, 0
	case "progressToken":
		return &p.progressToken, 0
	}
	return nil, 0
}

// envelope returns where r keeps its member name (see member).
func (r *request) envelope(name []byte) (*value, byte) {
	switch string(name) {
	case "jsonrpc":
		return &r.jsonrpc, 0
	case "id":
		return &r.id, 0
	case "method":
		return &r.method, 0
	case "params":
		r.p = params{}
		return &r.params, 'p'
	case "result":
		return &r.result, 0
	case "error":
		return &r.error, 0
	}
	return nil, 0
}

// member returns where p keeps its member name (see request.member).
func (p *params) member(name []byte) (*value, byte) {
	switch string(name) {
	case "name":
		return &p.name, 0
	case "arguments":
		return &p.arguments, 0
	case "uri":
		return &p.uri, 0
	case "cursor":
		return &p.cursor, 0
	case "protocolVersion":
		return &p.protocolVersion, 0
	case "capabilities":
		return &p.capabilities, 0
	case "requestId":
		return &p.requestID, 0
	case "inputResponses":
		return &p.inputResponses, 0
	case "requestState":
		return &p.requestState, 0
	case "ref":
		return &p.ref, 0
	case "argument":
		return &p.argument, 0
	case "context":
		return &p.context, 0
	case "_meta":
		p.metaVersion, p.metaCaps, p.progressToken = value{}, value{}, value{}
		return &p.meta, 'm'
	}
	return nil, 0
}

// response reports whether r is a client's response: no method, and a
// result or an error.
func (r *request) response() bool {
	return !r.method.exists() && (r.result.exists() || r.error.exists())
}

// owesReply reports whether r gets a reply: it is neither a client's
// response nor a valid notification.
func (r *request) owesReply() bool {
	return !r.response() && (r.id.exists() || r.method.kind() != '"' || !r.jsonrpc.is("2.0"))
}

// valid reports whether r is a request or a notification: "jsonrpc":
// "2.0", a method that is a string, and an id, if any, a string or a
// number; if the id is not, r's is none, and its reply's null.
func (r *request) valid() bool {
	if k := r.id.kind(); k != 0 && k != '"' && k != '0' {
		r.id = value{}
		return false
	}
	return r.method.kind() == '"' && r.jsonrpc.is("2.0")
}

// ==== Methods ====

// Who we are, in initialize and server/discover results; serverVersion is
// the release, which -version prints too.
const (
	serverName    = "shipcode-mcp"
	serverVersion = "0.1.0"
)

// serverInfo is a member of initialize's and server/discover's results
// (see capabilities for the other); empty is ping's, made once.
var (
	serverInfo     = obj{{"name", serverName}, {"version", serverVersion}}
	empty      any = obj{}
)

// capabilities is what mcp declares in version: tools and resources, and
// completions if a template completes its variables (see handleComplete),
// but in 2024-11-05, which has no such capability.
func (s *server) capabilities(version string) obj {
	caps := obj{{"tools", obj{}}, {"resources", obj{}}}
	if s.completes && version != "2024-11-05" {
		caps = append(caps, member{"completions", obj{}})
	}
	return caps
}

// Protocol versions. A request whose _meta names modernVersion is answered
// in its shapes; every other in the legacy ones, whether or not initialize
// came first.
const (
	modernVersion          = "2026-07-28"
	latestLegacyVersion    = "2025-11-25"
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"    // in 2026-07-28's _meta
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities" // likewise
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"     // 2026-07-28's subscriptions
)

// legacyVersions are the initialize-era versions we speak, newest first;
// supportedVersions, all of them, as server/discover offers them.
var (
	legacyVersions    = []string{latestLegacyVersion, "2025-06-18", "2025-03-26", "2024-11-05"}
	supportedVersions = append([]string{modernVersion}, legacyVersions...)
)

// decision is what a handler decided: a result or an error, to reply
// with now; a call, whose reply comes when it returns; or no reply yet
// (open: a subscription, answered when it ends).
type decision struct {
	result any
	err    *rpcError
	call   *call
	in     arguments // its arguments, checked
	open   bool
}

// decide is the decision to reply with result, or err.
func decide(result any, err *rpcError) decision { return decision{result: result, err: err} }

// methods is every method we serve: its name, its era (in the other, it
// is Method not found), and its handler, which is given the request with
// its params checked to be an object or none.
var methods = []struct {
	name   string
	era    era
	handle func(*server, *request) decision
}{
	{"initialize", legacy, handleInitialize},
	{"ping", legacy, func(*server, *request) decision { return decide(empty, nil) }},
	{"tools/list", both, func(s *server, req *request) decision { return listReply(req, "tools", s.toolList) }},
	{"tools/call", both, handleToolsCall},
	{"resources/list", both, func(s *server, req *request) decision { return listReply(req, "resources", s.resourceList) }},
	{"resources/read", both, handleResourcesRead},
	{"resources/templates/list", both, func(s *server, req *request) decision {
		return listReply(req, "resourceTemplates", s.templateList)
	}},
	{"subscriptions/listen", modern, handleListen},
	// Answered in either era, in its only shape, 2026-07-28's.
	{"completion/complete", both, handleComplete},
	{"server/discover", both, func(s *server, _ *request) decision {
		return decide(obj{{"resultType", "complete"}, {"supportedVersions", supportedVersions}, {"capabilities", s.capabilities(modernVersion)},
			{"_meta", obj{{"io.modelcontextprotocol/serverInfo", serverInfo}}}, {"ttlMs", 3600000}, {"cacheScope", "public"}}, nil)
	}},
}

// handle decides a request's reply: the error its _meta or params earn,
// or its handler's decision. A handler that panics gets Internal error,
// and the session goes on: nothing of the reply is written yet.
func (s *server) handle(req *request) (d decision) {
	defer func() {
		if p := recover(); p != nil {
			d = decide(nil, errInternal)
			s.log.printf("mcp: panic in %s: %s", quoteText(req.method.text()), quoteText(fmt.Sprint(p)))
		}
	}()
	var err *rpcError
	if req.modern, err = eraOf(req); err != nil {
		return decide(nil, err)
	}
	for _, m := range methods {
		switch {
		case !req.method.is(m.name):
		case m.era == legacy && req.modern, m.era == modern && !req.modern:
			return decide(nil, errMethodNotFound)
		case req.params.exists() && req.params.kind() != '{':
			return decide(nil, invalidParams("params", req.params, "an object"))
		default:
			return m.handle(s, req)
		}
	}
	return decide(nil, errMethodNotFound)
}

// era is the protocol versions a method is served in.
type era int

// The eras: before 2026-07-28, from it, and both.
const (
	both era = iota
	legacy
	modern
)

// eraOf reads params._meta: a request that names 2026-07-28 there must
// also carry the client's capabilities, and is modern; one that names a
// legacy version we speak, or none, is legacy; server/discover must name
// one.
func eraOf(req *request) (modern bool, err *rpcError) {
	version, caps := req.p.metaVersion, req.p.metaCaps
	switch {
	case !version.exists() && req.method.is("server/discover"), version.exists() && version.kind() != '"':
		return false, metaRequired(metaProtocolVersion, version, "a string")
	case !version.exists():
		return false, nil
	}
	switch v := version.text(); {
	case v == modernVersion && caps.kind() != '{':
		return false, metaRequired(metaClientCapabilities, caps, "an object")
	case v == modernVersion:
		return true, nil
	case !slices.Contains(legacyVersions, v):
		return false, &rpcError{code: codeUnsupportedVersion, message: "Unsupported protocol version",
			data: obj{{"supported", supportedVersions}, {"requested", v}}}
	}
	return false, nil
}

// metaRequired is Invalid params for a _meta member missing or mistyped.
func metaRequired(key string, got value, want string) *rpcError {
	err := invalidParams("_meta."+key, got, want)
	err.data = obj{{"required", "_meta." + key}}
	return err
}

// handleInitialize answers the legacy handshake with the client's version
// if we speak it, else our newest legacy one, and keeps, for the legacy
// requests after it, the version agreed and whether a tool may ask the
// person (2025-06-18 on, if the client can; see ask).
func handleInitialize(s *server, req *request) decision {
	v := latestLegacyVersion
	if pv := req.p.protocolVersion; pv.kind() == '"' && slices.Contains(legacyVersions, pv.text()) {
		v = pv.text()
	}
	s.agreed, s.canAsk = v, v >= "2025-06-18" && canAsk(req.p.capabilities)
	return decide(obj{{"protocolVersion", v}, {"capabilities", s.capabilities(v)}, {"serverInfo", serverInfo}}, nil)
}

// listReply answers a list method with its list. We never paginate, so
// any cursor is one we did not issue. In 2026-07-28, as the catalogues
// are fixed for the life of the process, cache hints let a client keep
// the list an hour.
func listReply(req *request, name string, list any) decision {
	if cursor := req.p.cursor; cursor.exists() {
		return decide(nil, invalidParams("params.cursor", cursor, "absent: mcp issues no cursors"))
	}
	return decide(cached(req.modern, obj{{name, list}}), nil)
}

// cached is a result of a catalogue in the request's shape (see
// listReply).
func cached(modern bool, result obj) obj {
	if modern {
		return slices.Concat(obj{{"resultType", "complete"}}, result, obj{{"ttlMs", 3600000}, {"cacheScope", "public"}})
	}
	return result
}

// handleToolsCall runs a tool. Malformed params are a protocol error;
// arguments the tool does not take get a tool result with isError, which
// names the tool, the argument and the fault, for the model to correct.
func handleToolsCall(s *server, req *request) decision {
	p := &req.p
	switch name, args := p.name, p.arguments; {
	case name.kind() != '"':
		return decide(nil, invalidParams("params.name", name, "a string"))
	case args.exists() && args.kind() != '{':
		return decide(nil, invalidParams("params.arguments", args, "an object"))
	}
	i := slices.IndexFunc(s.tools, func(t tool) bool { return p.name.is(t.name) }) // exactly: "A" is not "a"
	if i < 0 {
		return decide(nil, &rpcError{code: codeInvalidParams, message: "Unknown tool: " + p.name.text()})
	}
	t := &s.tools[i]
	in, faults := t.check(p.arguments)
	if faults != "" {
		return decide(&toolResult{text: faults, isError: true, modern: req.modern}, nil)
	}
	rounds, err := openRounds(t, p.arguments, p.requestState, p.inputResponses) // none, at no cost, most often
	if err != nil && req.modern {                                               // a legacy request's are no concern
		return decide(nil, err)
	}
	c := &call{srv: s, tool: t, args: p.arguments}
	c.modern, c.noAudio, c.noLink = req.modern, !req.modern && s.agreed == "2024-11-05", !req.modern && s.agreed < "2025-06-18" && s.agreed != ""
	c.canAsk = !req.inBatch && (req.modern && canAsk(p.metaCaps) || !req.modern && s.canAsk)
	c.oldForms = !req.modern && s.agreed == "2025-06-18"
	if token := p.progressToken; !req.inBatch && (token.kind() == '"' || token.kind() == '0' && !bytes.ContainsAny(token.raw(), ".eE")) {
		c.x = &more{token: token, last: math.Inf(-1)}
	}
	if rounds != nil {
		c.extra().rounds = rounds
	}
	return decision{call: c, in: in}
}

// canAsk reports whether a client's capabilities let a tool ask in a
// form: elicitation declared, with form mode, or with no mode named.
func canAsk(caps value) bool {
	e := caps.get("elicitation")
	return e.kind() == '{' && (e.get("form").exists() || !e.get("url").exists())
}

// handleListen opens a subscription (2026-07-28): as no catalogue of ours
// ever changes, it agrees to no notifications, and is acknowledged at
// once, after the line in hand; it stays open, with no reply, until the
// client cancels it or mcp stops (see serve).
func handleListen(s *server, req *request) decision {
	id := req.id.keep()
	s.subIndex[id.key()] = len(s.subs)
	s.subs, s.acks = append(s.subs, id), append(s.acks, id)
	return decision{open: true}
}

// handleResourcesRead answers a resource's contents: the first resource
// whose URI is the one asked for, or whose template matches it. An
// unknown URI is -32002 before 2026-07-28 and -32602 in it, with the URI
// as data.
func handleResourcesRead(s *server, req *request) decision {
	uri := req.p.uri
	if uri.kind() != '"' {
		return decide(nil, invalidParams("params.uri", uri, "a string"))
	}
	u := uri.text()
	for i, r := range resources {
		if r.read == nil {
			if r.uri == u {
				return decide(s.readResults[i][req.modern], nil)
			}
		} else if vars, ok := match(r.uri, u); ok {
			c := &call{srv: s, res: &resources[i], args: uri, x: &more{vars: vars}}
			c.modern = req.modern
			return decision{call: c}
		}
	}
	return decide(nil, notFound(u, req.modern))
}

// ==== Writing replies, and the log ====

// obj is a JSON object, its members in order; writeJSON leaves out those
// whose value is nil.
type obj []member

// member is a member of an obj.
type member struct {
	name  string
	value any
}

// toolResult is a tools/call result: a tool's text, whether it reports an
// error, and what more it has, in the request's shape. writeToolResult
// writes one of text alone as {"content":[{"type":"text","text":TEXT}],
// "isError":BOOL}, with "resultType":"complete" first in 2026-07-28,
// without making that obj, which would allocate for each call.
type toolResult struct {
	text    string
	extras  *extras // what it has beyond text, if anything: allocated when it has
	isError bool
	modern  bool
	noAudio bool // 2024-11-05 was agreed: it has no audio content,
	noLink  bool // or 2025-03-26: no resource_link
}

// extras are what a tools/call result has beyond its text: content items
// after it (see attach), whether the text item is left out, and
// structuredContent, as the tool set it (fields) and as checked and
// written (structured, or nil).
type extras struct {
	items      []any
	noText     bool
	fields     []member
	structured obj
}

// writeReply writes the reply to the request with the given id (none:
// null): its result, or its error. It writes the members it always has
// itself, so that a reply allocates nothing of its own: a batch of
// millions of errors makes no garbage.
func writeReply(w *bufio.Writer, id value, result any, err *rpcError) {
	w.WriteString(`{"jsonrpc":"2.0","id":`)
	writeValue(w, id)
	if err == nil {
		w.WriteString(`,"result":`)
		writeJSON(w, result)
		w.WriteByte('}')
		return
	}
	w.WriteString(`,"error":{"code":`)
	w.Write(strconv.AppendInt(w.AvailableBuffer(), int64(err.code), 10))
	w.WriteString(`,"message":`)
	writeString(w, err.message)
	if err.data != nil {
		w.WriteString(`,"data":`)
		writeJSON(w, err.data)
	}
	w.WriteString("}}")
}

// writeValue writes a value of the request as JavaScript reads it: a
// string's text, a number as it came; none as null.
func writeValue(w *bufio.Writer, v value) {
	switch v.kind() {
	case 0:
		w.WriteString("null")
	case '"':
		writeString(w, v.text())
	default:
		w.Write(v.raw())
	}
}

// writeJSON writes v as JSON.stringify writes it: a string, a float64 or
// an int, a bool, nil as null, an obj, a list ([]any, []string or
// []float64), or a value of the request, as JavaScript reads it (a
// string's text; a number as it came).
func writeJSON(w *bufio.Writer, v any) {
	switch v := v.(type) {
	case nil:
		w.WriteString("null")
	case string:
		writeString(w, v)
	case float64:
		w.WriteString(formatNumber(v))
	case int:
		w.Write(strconv.AppendInt(w.AvailableBuffer(), int64(v), 10))
	case bool:
		w.WriteString(strconv.FormatBool(v))
	case value:
		writeValue(w, v)
	case *toolResult:
		writeToolResult(w, v)
	case obj:
		w.WriteByte('{')
		comma := false
		for _, m := range v {
			if m.value != nil {
				if comma {
					w.WriteByte(',')
				}
				writeString(w, m.name)
				w.WriteByte(':')
				writeJSON(w, m.value)
				comma = true
			}
		}
		w.WriteByte('}')
	case []any:
		writeList(w, v)
	case []string:
		writeList(w, v)
	case []float64:
		writeList(w, v)
	default:
		panic(fmt.Sprintf("writeJSON: a %T", v))
	}
}

// writeToolResult writes a tools/call result (see toolResult): one of
// text alone without making an obj, which would allocate for each call.
func writeToolResult(w *bufio.Writer, v *toolResult) {
	if m := v.extras; m != nil { // rare: made as an obj
		content := append([]any{obj{{"type", "text"}, {"text", v.text}}}, m.items...)
		if m.noText {
			content = m.items[:len(m.items):len(m.items)]
		}
		result := obj{{"content", content}, {"isError", v.isError}}
		if m.structured != nil {
			result = slices.Insert(result, 1, member{"structuredContent", m.structured})
		}
		if v.modern {
			result = slices.Insert(result, 0, member{"resultType", "complete"})
		}
		writeJSON(w, result)
		return
	}
	if w.WriteByte('{'); v.modern {
		w.WriteString(`"resultType":"complete",`)
	}
	w.WriteString(`"content":[{"type":"text","text":`)
	writeString(w, v.text)
	w.WriteString(`}],"isError":`)
	w.WriteString(strconv.FormatBool(v.isError))
	w.WriteByte('}')
}

// writeList writes a list as a JSON array.
func writeList[T any](w *bufio.Writer, list []T) {
	w.WriteByte('[')
	for i, v := range list {
		if i > 0 {
			w.WriteByte(',')
		}
		writeJSON(w, v)
	}
	w.WriteByte(']')
}

// quote returns v as JSON (see writeJSON).
func quote(v any) string {
	return string(render(func(w *bufio.Writer) { writeJSON(w, v) }))
}

// render returns what write writes, in bytes of its size: what is kept,
// to be written later, is counted by it (see slot.cost), and nothing
// else is left to collect (see pads).
func render(write func(w *bufio.Writer)) []byte {
	p := pads.Get().(*pad)
	write(p.w)
	p.w.Flush()
	b := bytes.Clone(p.b.Bytes())
	if p.b.Reset(); p.b.Cap() <= 64<<10 {
		pads.Put(p)
	}
	return b
}

// pad is a writer to render in, and what it wrote; pads keep those free,
// so that a run of replies rendered makes no garbage but themselves.
type pad struct {
	b bytes.Buffer
	w *bufio.Writer
}

var pads = sync.Pool{New: func() any {
	p := &pad{}
	p.w = bufio.NewWriterSize(&p.b, 512)
	return p
}}

// logID shows an id in the log: a string's text quoted, a number as it
// came, each cut at 100 bytes (see quoteText), or null.
func logID(id value) string {
	switch {
	case !id.exists():
		return "null"
	case id.kind() == '"':
		return quoteText(id.text())
	case len(id.raw()) > 100:
		return string(id.raw()[:100]) + "..." + strconv.Itoa(len(id.raw())) + " bytes"
	}
	return string(id.raw())
}

// logged logs a request's outcome with -v, the one place that does, once
// it is known: its method ("" for an invalid message), id, time taken and
// outcome.
func (s *server) logged(method string, id value, start time.Time, d decision) {
	switch {
	case s.log == nil:
	case method != "":
		s.log.printf("mcp: %s id=%s %v %s", quoteText(method), logID(id), time.Since(start), outcome(d))
	default:
		s.log.printf("mcp: - id=%s %s", logID(id), outcome(d))
	}
}

// errCancelled is the outcome, in the log, of a call the client
// cancelled: no reply.
var errCancelled = &rpcError{why: "cancelled"}

// outcome is the end of a request's log line: ok, "tool error" for a
// tool's result that reports one, the error code and why, if known, or
// no reply: "open" (a subscription) or "cancelled".
func outcome(d decision) string {
	r, _ := d.result.(*toolResult)
	switch err := d.err; {
	case d.open:
		return "open"
	case err == errCancelled:
		return err.why
	case err != nil && err.why != "":
		return fmt.Sprintf("error %d: %s", err.code, err.why)
	case err != nil:
		return fmt.Sprintf("error %d", err.code)
	case r != nil && r.isError:
		return "tool error"
	}
	return "ok"
}

// ==== Reading JSON ====
//
// doc.parse checks a line as JSON.parse does, in one pass; a value is a
// place in the line it checked, and its methods read it as JavaScript
// does, where encoding/json does not: member names match exactly, lone
// surrogates are kept, numbers of any length read exactly. json.Valid
// reads the same grammar, byte by byte: it takes 1.5 times as long as
// parse on the bench's requests, and 8 times on a 16 MiB echo
// (BenchmarkParse), which skipPlain reads eight bytes at a time.

// maxDepth is the deepest nesting parse reads, as in encoding/json: a line
// of 64 MiB of [ would otherwise make it hold a stack as long.
const maxDepth = 10000

// doc is a line that parse found to be JSON, so that the walks below
// never meet invalid JSON.
type doc struct{ line []byte }

// value is a JSON value of a doc, d.line[start:end]. The zero value is
// none: a member that is not there.
type value struct {
	d          *doc
	start, end int
}

// parse checks that d.line[start:end] holds one JSON value, with only
// space around it, and returns it; if not, at is the index of the first
// byte that cannot be there, or end if the value ends first. If the value
// is an object, req (if not nil) gets, in the same pass, the members the
// loop and the handlers read (see request.member).
func (d *doc) parse(start, end int, req *request) (v value, at int, ok bool) {
	var stack [32]frame
	open := stack[:0] // innermost last
	b, first := d.line[:end], skipSpace(d.line[:end], start)
	var into *value   // where req keeps the value at i, if anywhere,
	role := byte('e') // and, if it is an object, its members' role
	if req != nil {
		into = &req.msg
	}
	for i := first; ; {
		// A value starts at b[i], or, just inside an opener, its closer.
		from, keyAt := i, -1
		switch c := byteAt(b, i); {
		case i == len(b) || (c == '{' || c == '[') && len(open) == maxDepth:
			return value{}, i, false
		case c == '{' || c == '[':
			if c == '[' {
				role = 0
			}
			open, into = append(open, frame{c + 2, role, i, into}), nil
			if i, ok = skipSpace(b, i+1), true; byteAt(b, i) == c+2 {
				break // empty
			} else if c == '[' {
				continue
			}
			keyAt = i
		case c == '"':
			i, ok = scanString(b, i)
		case c == 't' || c == 'f' || c == 'n':
			i, ok = scanLiteral(b, i)
		default:
			i, ok = scanNumber(b, i)
		}
		if !ok {
			return value{}, i, false
		} else if into != nil {
			*into = value{d: d, start: from, end: i}
		}
		if keyAt < 0 { // the value ends before b[i]: close what ends next, then a comma
			if i = skipSpace(b, i); len(open) > 0 && byteAt(b, i) == open[len(open)-1].closer {
				open, i = d.close(b, open, i)
			}
			if len(open) == 0 && i == len(b) {
				return value{d: d, start: first, end: len(bytes.TrimRight(b, " \t\n\r"))}, 0, true
			} else if len(open) == 0 || byteAt(b, i) != ',' {
				return value{}, i, false // only space may follow the value
			} else if into, role, i = nil, 0, skipSpace(b, i+1); open[len(open)-1].closer == ']' {
				continue
			}
			keyAt = i
		}
		var keyEnd int
		if i, keyEnd, ok = scanKey(b, keyAt); !ok {
			return value{}, i, false
		}
		into, role = req.member(open[len(open)-1].role, b[keyAt:keyEnd])
	}
}

// frame is an object or an array that parse has open: its closer, its
// members' role (see request.member), where it starts, and where req
// keeps it.
type frame struct {
	closer, role byte
	start        int
	into         *value
}

// close closes, from b[i] (of d's line), the frames that end there,
// innermost first, giving req each it keeps, and returns those still
// open and the index of what follows them, past space.
func (d *doc) close(b []byte, open []frame, i int) ([]frame, int) {
	for i = skipSpace(b, i); len(open) > 0 && byteAt(b, i) == open[len(open)-1].closer; i = skipSpace(b, i+1) {
		f := open[len(open)-1]
		if open = open[:len(open)-1]; f.into != nil {
			*f.into = value{d: d, start: f.start, end: i + 1}
		}
	}
	return open, i
}

// parseJSON checks that b holds one JSON value, with only space around
// it, and returns it (see doc.parse).
func parseJSON(b []byte) (v value, at int, ok bool) {
	return (&doc{line: b}).parse(0, len(b), nil)
}

// byteAt returns b[i], or 0 past its end.
func byteAt(b []byte, i int) byte {
	if i < len(b) {
		return b[i]
	}
	return 0
}

// scanKey checks an object member's `"key":` at b[i] and returns the
// index of its value, and the key, b[i:keyEnd].
func scanKey(b []byte, i int) (next, keyEnd int, ok bool) {
	if i == len(b) || b[i] != '"' {
		return i, i, false
	}
	if keyEnd, ok = scanString(b, i); !ok {
		return keyEnd, keyEnd, false
	}
	if i = skipSpace(b, keyEnd); i == len(b) || b[i] != ':' {
		return i, keyEnd, false
	}
	return skipSpace(b, i+1), keyEnd, true
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
// the tricks that find a zero byte or one under a bound in a word.
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

// value returns the value at d.line[i], reading through it.
func (d *doc) value(i int) value {
	b, end := d.line, i
	switch b[i] {
	case '"':
		end = skipString(b, i)
	case '{', '[':
		for depth := 0; end == i || depth > 0; end++ {
			switch b[end] {
			case '"':
				end = skipString(b, end) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
		}
	default: // a number, true, false or null
		for end < len(b) && b[end] != ',' && b[end] != ']' && b[end] != '}' && skipSpace(b, end) == end {
			end++
		}
	}
	return value{d: d, start: i, end: end}
}

// exists reports whether v is a value, not none.
func (v value) exists() bool { return v.d != nil }

// raw returns v's JSON text.
func (v value) raw() []byte { return v.d.line[v.start:v.end] }

// kind returns v's first byte, '{', '[', '"', 't', 'f' or 'n'; '0' for
// any number; 0 for none.
func (v value) kind() byte {
	switch {
	case !v.exists():
		return 0
	case v.d.line[v.start] == '-' || isDigit(v.d.line[v.start]):
		return '0'
	}
	return v.d.line[v.start]
}

// jsonType names v's JSON Schema type.
func (v value) jsonType() string { return jsonTypes[v.kind()] }

// jsonTypes are the JSON Schema types, by kind.
var jsonTypes = map[byte]string{'"': "string", '{': "object", '[': "array", 't': "boolean", 'f': "boolean", 'n': "null", '0': "number"}

// items iterates over the items of the object or array v: each member's
// name and value, or each element (and none).
func (v value) items() iter.Seq2[value, value] {
	return func(yield func(name, item value) bool) {
		if k := v.kind(); k != '{' && k != '[' || v.d.line[skipSpace(v.d.line, v.start+1)] == k+2 {
			return // empty
		}
		b := v.d.line
		for i := skipSpace(b, v.start+1); ; {
			var name value
			if b[v.start] == '{' {
				name = value{d: v.d, start: i, end: skipString(b, i)}
				i = skipSpace(b, skipSpace(b, name.end)+1) // past the ':'
			}
			item := v.d.value(i)
			if !yield(name, item) {
				return
			}
			if i = skipSpace(b, item.end); b[i] != ',' {
				return
			}
			i = skipSpace(b, i+1)
		}
	}
}

// get returns the last member named name of v, if v is an object and has
// one, as JSON.parse keeps the last; else none.
func (v value) get(name string) (found value) {
	if v.kind() == '{' {
		for k, item := range v.items() {
			if k.is(name) {
				found = item
			}
		}
	}
	return found
}

// text returns the text of v, a string (see text).
func (v value) text() string { return text(v.raw()) }

// is reports whether v is a string whose text is s. It decodes only a
// literal that could be s: an escape stands for at least one byte in at
// most six, and shortens the text, which is never longer than the literal.
func (v value) is(s string) bool {
	if v.d == nil || v.d.line[v.start] != '"' {
		return false
	}
	switch body := v.d.line[v.start+1 : v.end-1]; {
	case len(body) == len(s):
		if string(body) != s {
			return false
		}
		for i := range len(s) { // a loop: s is short, a name of ours
			if s[i] == '\\' || s[i] == 0xED {
				return v.text() == s
			}
		}
		return true
	case len(body) < len(s) || len(body) > 6*len(s):
		return false
	default:
		return bytes.IndexByte(body, '\\') >= 0 && v.text() == s
	}
}

// key returns what tells an id from another as JavaScript compares the
// values JSON.parse gives: a string's text, a number's value (7 is 7.0);
// "" for none.
func (v value) key() string {
	switch v.kind() {
	case '"':
		return "s" + v.text()
	case '0':
		return "n" + formatNumber(v.number())
	}
	return ""
}

// keep returns a copy of v in a doc of its own, which holds nothing else
// of v's line.
func (v value) keep() value {
	d := &doc{line: bytes.Clone(v.raw())}
	return value{d: d, start: 0, end: len(d.line)}
}

// number returns v, a number, as JavaScript's Number() reads it.
func (v value) number() float64 { return parseNumber(v.raw()) }

// skipSpace returns the index of the first byte of b at or after i that is
// not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
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
// like it, as U+FFFD. So the text is never longer than lit. A text with
// neither shares lit's bytes: no one writes a line once it is read (see
// lineReader), nor anything else parse read, so that an echo of 16 MiB
// copies none.
func text(lit []byte) string {
	if body := lit[1 : len(lit)-1]; bytes.IndexByte(body, '\\') < 0 && bytes.IndexByte(body, 0xED) < 0 {
		return unsafe.String(unsafe.SliceData(body), len(body))
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
// when the result is neither subnormal nor infinite; else it is slow
// enough (BenchmarkNumbers) that a batch of such numbers would cost many
// times its size, where exact integer arithmetic does not.
func parseNumber(lit []byte) float64 {
	if len(lit) <= 20 && bytes.IndexByte(lit, 'e') < 0 && bytes.IndexByte(lit, 'E') < 0 { // most often: neither subnormal nor infinite
		f, _ := strconv.ParseFloat(string(lit), 64)
		return f
	}
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
