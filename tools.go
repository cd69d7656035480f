// This file is the tool catalogue and the interface a tool is written
// against: a tool declares its arguments (and, if it has one, its
// structured result), gets them checked, as Go values, and returns plain
// text, or an error for the model to read, with anything more it set.

package main

import (
	"bufio"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// tool is one entry of the catalogue: tools/list and each call follow it.
type tool struct {
	name        string
	title       string // for people, in a client's interface; "" for none
	description string // for the model: what the tool does, and when to use it
	args        []arg
	annotations map[string]bool // hints to clients (see annotations), written if set
	timeout     time.Duration   // how long run may take; 0 for no limit
	output      []arg           // the fields of its structured result (see arguments.output), as args are declared; nil for none
	// run returns the tool's text, or an error whose text the model reads
	// as a result with "isError":true. A panic is an Internal error. ctx is
	// done when the client cancels the call, a signal stops mcp, or the
	// timeout passes (context.Cause says which); the reply waits for run
	// to return all the same. Calls of it may run side by side.
	run func(ctx context.Context, in arguments) (string, error)
}

// arg is one argument of a tool.
type arg struct {
	name        string
	kind        string   // a key of kinds
	description string   // for the model; "" for none
	choices     []string // a string's, or a list of strings' items', only values allowed; nil for any
	titles      []string // each choice's title, for people; nil for none
	format      string   // a question's string field's: "email", "uri", "date" or "date-time" (see formats)
	min, max    any      // bounds, an int or a float64: a number's, a string's length in characters, a list's in items; nil for none
	optional    bool     // it may be left out, and then reads as def
	def         any      // an optional one's value when left out, of its kind's Go type; nil: the zero value
	args        []arg    // an object's arguments, or a list of objects' items'
}

// kinds are the kinds of argument: each one's JSON Schema, what a fault
// calls it, the Go type a tool reads it as, of a list its items', and the
// JSON Schema names of its bounds.
var kinds = map[string]struct {
	schema             obj
	noun, goType, item string
	bounds             [2]string
}{
	"string":  {obj{{"type", "string"}}, "string", "string", "", [2]string{"minLength", "maxLength"}},
	"number":  {obj{{"type", "number"}}, "number", "float64", "", [2]string{"minimum", "maximum"}},
	"integer": {obj{{"type", "integer"}}, "integer", "int", "", [2]string{"minimum", "maximum"}},
	"boolean": {obj{{"type", "boolean"}}, "boolean", "bool", "", [2]string{}},
	"object":  {nil, "object", "arguments", "", [2]string{}}, // its schema is its args'
	"objects": {nil, "list of objects", "[]arguments", "object", [2]string{"minItems", "maxItems"}},
	"map":     {obj{{"type", "object"}, {"additionalProperties", obj{{"type", "string"}}}}, "map of strings", "map[string]string", "", [2]string{}},
	"strings": {obj{{"type", "array"}, {"items", obj{{"type", "string"}}}}, "list of strings", "[]string", "string", [2]string{"minItems", "maxItems"}},
	"numbers": {obj{{"type", "array"}, {"items", obj{{"type", "number"}}}}, "list of numbers", "[]float64", "number", [2]string{"minItems", "maxItems"}},
}

// maxSafe is the largest integer a double holds exactly, 2^53-1: an
// integer argument is within ±maxSafe, and tools/list says so.
const maxSafe = 1<<53 - 1

// tools is the catalogue, in tools/list order.
var tools = []tool{
	{name: "add", description: "Add two numbers", args: []arg{{name: "a", kind: "number"}, {name: "b", kind: "number"}}, run: runAdd},
	{name: "echo", description: "Echo text", args: []arg{{name: "text", kind: "string"}}, run: runEcho},
}

// runAdd returns a+b as JavaScript's String(a+b) writes it.
func runAdd(_ context.Context, in arguments) (string, error) {
	return formatNumber(in.number("a") + in.number("b")), nil
}

// runEcho returns the text as it came.
func runEcho(_ context.Context, in arguments) (string, error) {
	return in.text("text"), nil
}

// ==== The interface ====

// arguments are a call's arguments (or an object argument's), checked,
// read as Go values; one left out reads as its default. Reading one not
// declared so panics.
type arguments struct {
	args  []arg
	first [4]value // by args: the value given, checked, or none; in the
	more  []value  // struct, so that a call of up to 4 allocates nothing
	call  *call    // the call, which output, attach, link, embed, progress and ask act on; none in an answer
}

// output sets the field name of the tool's structured result to v, of the
// Go type its kind reads as. The fields set are written as
// structuredContent, in the order declared, and as the same JSON in a
// text item; a field missing, or not as declared, makes the result an
// error that says so. A tool that declares no field name panics.
func (in arguments) output(name string, v any) {
	if in.call == nil || !slices.ContainsFunc(in.call.tool.output, func(a arg) bool { return a.name == name }) {
		panic(fmt.Sprintf("the tool sets the output %q, which it does not declare", name))
	}
	c := in.call
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.returned {
		m := c.extended()
		m.fields = append(m.fields, member{name, v})
	}
}

// attach adds data, of an "image/..." or an "audio/..." MIME type, to the
// tool's result, as an image or an audio item, written base64; on
// 2024-11-05, which has no audio item, audio is an embedded resource,
// "attachment://N", N its place in content. Another type panics.
// Like output, link, embed and dropText, it may be called from any
// goroutine while run runs, and does nothing once it has returned; the
// items follow the text item, in the order they are added.
func (in arguments) attach(data []byte, mimeType string) {
	kind, _, _ := strings.Cut(mimeType, "/")
	if kind != "image" && kind != "audio" {
		panic(fmt.Sprintf("the tool attaches %q, which is not an image or audio MIME type", mimeType))
	}
	b64 := base64.StdEncoding.EncodeToString(data)
	in.add(func(c *call, m *extras) any {
		if kind == "audio" && c.noAudio {
			return obj{{"type", "resource"}, {"resource", obj{{"uri", "attachment://" + strconv.Itoa(len(m.items)+1)}, {"mimeType", mimeType}, {"blob", b64}}}}
		}
		return obj{{"type", kind}, {"data", b64}, {"mimeType", mimeType}}
	})
}

// link adds a link to a resource, uri, that the client may read with
// resources/read: a resource_link item, named name for people, of
// mimeType ("" for none); before 2025-06-18, which has no such item, a
// text item of the URI.
func (in arguments) link(uri, name, mimeType string) {
	in.add(func(c *call, _ *extras) any {
		if c.noLink {
			return obj{{"type", "text"}, {"text", uri}}
		}
		return obj{{"type", "resource_link"}, {"uri", uri}, {"name", name}, {"mimeType", unlessEmpty(mimeType)}}
	})
}

// embed adds the contents of a resource, uri, of mimeType ("" for none):
// an embedded resource item, its text.
func (in arguments) embed(uri, mimeType, text string) {
	in.embedded(uri, mimeType, member{"text", text})
}

// embedBytes adds the contents of a resource as embed does: bytes,
// written base64 as its blob.
func (in arguments) embedBytes(uri, mimeType string, data []byte) {
	in.embedded(uri, mimeType, member{"blob", base64.StdEncoding.EncodeToString(data)})
}

// embedded adds an embedded resource item of the contents given.
func (in arguments) embedded(uri, mimeType string, contents member) {
	in.add(func(*call, *extras) any {
		return obj{{"type", "resource"}, {"resource", obj{{"uri", uri}, {"mimeType", unlessEmpty(mimeType)}, contents}}}
	})
}

// unlessEmpty is s, or, if s is "", nil, which writeJSON leaves out.
func unlessEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// dropText leaves the text item out of the tool's result: its content
// is then only the items added (a "" text, by itself, is a text item).
func (in arguments) dropText() {
	in.add(func(_ *call, m *extras) any { m.noText = true; return nil })
}

// add adds the item that item makes, unless nil, to the call's result,
// unless run has returned.
func (in arguments) add(item func(c *call, m *extras) any) {
	c := in.call
	if c == nil {
		panic("the tool adds to the result of an answer's arguments: add to the call's own")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.returned {
		m := c.extended()
		if it := item(c, m); it != nil {
			m.items = append(m.items, it)
		}
	}
}

// call runs c's tool, and returns its result: its text, or its error's
// for the model to read, with what it added, if its structured output is
// as declared, else the fault in it.
func (c *call) call(ctx context.Context, in arguments) (any, *rpcError) {
	in.call = c
	text, err := c.tool.run(ctx, in)
	if c.tool.timeout > 0 && context.Cause(ctx) == errTimedOut {
		text, err = "", fmt.Errorf("tool %s did not finish within its time limit of %v", c.tool.name, c.tool.timeout)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.returned = true; c.x != nil && c.x.pending != nil {
		return c.x.pending, nil // a question, whatever run returned (see ask)
	}
	if c.tool.output != nil && err == nil {
		m := c.extended()
		var fault string
		if m.structured, fault = checkOutput(c.tool, m.fields); fault != "" {
			err = errors.New(fault)
		} else if text == "" {
			text = quote(m.structured)
		}
	}
	if c.text, c.isError = text, err != nil; err != nil {
		c.text, c.extras = err.Error(), nil
	}
	return &c.toolResult, nil
}

// extended returns c's extras, made on first use.
func (c *call) extended() *extras {
	if c.extras == nil {
		c.extras = &extras{}
	}
	return c.extras
}

// checkOutput returns the fields t set, in the order it declares them,
// the last set of each, or the first fault in them, which makes the
// result an error.
func checkOutput(t *tool, set []member) (fields obj, fault string) {
	for _, a := range t.output {
		i := -1
		for k := range set {
			if set[k].name == a.name {
				i = k
			}
		}
		switch {
		case i < 0 && !a.optional:
			return nil, fmt.Sprintf("tool %s did not set its output %q", t.name, a.name)
		case i < 0:
			continue
		case fmt.Sprintf("%T", set[i].value) != kinds[a.kind].goType:
			return nil, fmt.Sprintf("tool %s set its output %q to a %T; %s output is set as %s", t.name, a.name, set[i].value, withArticle(a.kind), withArticle(kinds[a.kind].goType))
		}
		v, _, ok := parseJSON([]byte(quote(set[i].value)))
		if fault := a.fault(v); !ok || fault != "" {
			return nil, fmt.Sprintf("tool %s set its output %q to %s, which must be %s", t.name, a.name, quote(set[i].value), cmp.Or(fault, "a number JSON can write"))
		}
		fields = append(fields, set[i])
	}
	return fields, ""
}

// The outcomes of ask that are not an answer.
var (
	errDeclined      = errors.New("the user declined")
	errDismissed     = errors.New("the user dismissed the question")
	errCannotAsk     = errors.New("the client cannot ask the user")
	errInputRequired = errors.New("the question goes back as the call's result; the client calls again with the answer")
	errAskedAnswer   = errors.New("ask was called on an answer's arguments: ask on the call's own")
)

// ask asks the person, through the client, message and a form of fields,
// declared as arguments are, of the kinds a form holds: string (with
// choices, titles or a format), number, integer, boolean, and strings
// with choices. On accept it returns the answer, checked against the
// fields (a fault is an error the model can read) and read as arguments
// are; else errDeclined or errDismissed; or errCannotAsk at once, if the
// client did not declare that it can (or the call is in a batch, or a
// 2025-06-18 form cannot hold a field), or later, if it answers with an
// error or its input ends; or ctx's cause, once ctx ends (errStopped on a
// signal, errReturned once run has returned). In a legacy session it
// waits for the answer. In 2026-07-28 the call's result becomes the question, whatever
// run returns, and ask returns errInputRequired: the client calls again,
// and run runs again from the start, this time answered. So ask before
// you act. A field a form cannot hold panics.
func (in arguments) ask(ctx context.Context, message string, fields ...arg) (arguments, error) {
	return in.askNamed(ctx, "", message, fields...)
}

// askNamed asks as ask does, the question named name: in 2026-07-28, the
// key of the question in the call's result and of its answer in the
// retry's inputResponses ("" for ask-N, N its place in the call).
func (in arguments) askNamed(ctx context.Context, name, message string, fields ...arg) (arguments, error) {
	if name, fault := checkArgs(fields, true); fault != "" {
		panic(fmt.Sprintf("the tool asks for %q: %s", name, fault))
	}
	none, _ := bind(fields, value{})
	c, answer := in.call, value{}
	if c == nil {
		return none, errAskedAnswer
	}
	question := obj{{"message", message}, {"requestedSchema", schema(fields, c.oldForms)[:3]}} // an answer's other members are ignored
	c.mu.Lock()
	ok, modern, srv := !c.returned && c.canAsk, c.modern, c.srv
	if c.x == nil && ok {
		c.x = &more{}
	}
	n, x := 0, c.x
	if ok {
		n = x.asked
	}
	asked := round{key: cmp.Or(name, "ask-"+strconv.Itoa(n+1)), question: digest(func(w *bufio.Writer) { writeJSON(w, question) })}
	switch {
	case !ok:
	case modern && x.pending == nil && n < len(x.rounds) && x.rounds[n].key == asked.key && x.rounds[n].question == asked.question && x.rounds[n].answer.exists():
		answer = x.rounds[n].answer
	case modern && x.pending == nil: // unanswered, or not the question the state recorded: the answers after it go
		x.pending = c.inputRequired(append(x.rounds[:n:n], asked), question)
	}
	if ok {
		x.asked++
	}
	c.mu.Unlock()
	var err error
	switch {
	case !ok:
		return none, errCannotAsk
	case c.oldForms && slices.ContainsFunc(fields, func(a arg) bool { return a.kind == "strings" }):
		return none, fmt.Errorf("%w: 2025-06-18 forms have no list of choices", errCannotAsk)
	case modern && !answer.exists():
		return none, errInputRequired
	case !modern:
		answer, err = srv.ask(ctx, c, question)
	}
	if err != nil {
		return none, err
	}
	return readAnswer(answer, fields, none)
}

// ==== The request state of 2026-07-28 ====

// round is a question a 2026-07-28 call asked: its key, the digest of
// its params, and the client's answer, if given.
type round struct {
	key, question string
	answer        value
}

// stateKey signs requestState (see sealState): MCP_STATE_KEY's, read at
// start, or made then. stateTTL is how long a state is taken back after
// it was made: a person answers a form in minutes; a state older than
// that is more likely carried from another call than answered. now is
// the clock it is read by, which tests fix.
var (
	stateKey = func() []byte { k := make([]byte, 32); rand.Read(k); return k }()
	stateTTL = 10 * time.Minute
	now      = time.Now
)

// inputRequired is the 2026-07-28 result that asks the last of rounds,
// whose params are question: the client calls again with its answer,
// under its key, and the state, which holds the answers before it.
func (c *call) inputRequired(rounds []round, question obj) obj {
	asked := make([]any, len(rounds))
	for i, r := range rounds {
		if asked[i] = []any{r.key, r.question}; r.answer.exists() {
			asked[i] = []any{r.key, r.question, r.answer}
		}
	}
	args := digest(func(w *bufio.Writer) { canonical(w, c.args) })
	payload := quote(obj{{"tool", c.tool.name}, {"arguments", args}, {"asked", asked}, {"expires", int(now().Add(stateTTL).Unix())}})
	state := base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + sign([]byte(payload))
	return obj{{"resultType", "input_required"}, {"inputRequests", obj{{rounds[len(rounds)-1].key, obj{{"method", "elicitation/create"}, {"params", question}}}}},
		{"requestState", state}}
}

// openRounds returns the questions that a 2026-07-28 retry of a call of t
// with args answers: those its state asked, if mcp made it for t and args
// and it has not expired, the last answered by responses' member of its
// key, if any; other members are ignored, and without a state, all.
func openRounds(t *tool, args, state, responses value) ([]round, *rpcError) {
	refuse := func(why string) ([]round, *rpcError) {
		return nil, &rpcError{code: codeInvalidParams, message: "Invalid requestState: " + why}
	}
	if responses.exists() && responses.kind() != '{' {
		return nil, invalidParams("params.inputResponses", responses, "an object")
	} else if !state.exists() {
		return nil, nil
	} else if state.kind() != '"' {
		return nil, invalidParams("params.requestState", state, "a string")
	}
	body, sig, _ := strings.Cut(state.text(), ".")
	payload, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || !hmac.Equal([]byte(sig), []byte(sign(payload))) {
		return refuse("not one mcp made, or made with another key")
	}
	v, _, _ := parseJSON(payload) // mcp's own
	var rounds []round
	for _, r := range v.get("asked").items() {
		var f []value // the key, the question's digest and the answer, if any
		for _, item := range r.items() {
			f = append(f, item)
		}
		rounds = append(rounds, round{key: f[0].text(), question: f[1].text(), answer: append(f, value{})[2]})
	}
	switch last := &rounds[len(rounds)-1]; {
	case v.get("expires").number() < float64(now().Unix()):
		return refuse("expired")
	case !v.get("tool").is(t.name):
		return refuse("made for another tool")
	case !v.get("arguments").is(digest(func(w *bufio.Writer) { canonical(w, args) })):
		return refuse("made for other arguments")
	default:
		if last.answer = responses.get(last.key); last.answer.exists() && !isElicitResult(last.answer) {
			return nil, &rpcError{code: codeInvalidParams, message: "Invalid input response: " + last.key + ` is not {"action":"accept"|"decline"|"cancel"}, with the content of a form on accept`}
		}
	}
	return rounds, nil
}

// sign returns the HMAC-SHA256 of b under stateKey, base64url.
func sign(b []byte) string {
	h := hmac.New(sha256.New, stateKey)
	h.Write(b)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// digest returns the SHA-256, base64url, of what write writes.
func digest(write func(w *bufio.Writer)) string {
	h := sha256.New()
	w := bufio.NewWriter(h)
	write(w)
	w.Flush()
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// canonical writes v, checked arguments (none: {}), as JSON.stringify
// writes what JSON.parse reads of them, each object's members sorted by
// name: the same for every way a client may write the same arguments.
// It recurses as deep as the catalogue declares.
func canonical(w *bufio.Writer, v value) {
	switch open := v.kind(); open {
	case 0:
		w.WriteString("{}")
	case '{', '[':
		var items []member
		for k, item := range v.items() {
			if items = append(items, member{"", item}); k.exists() {
				items[len(items)-1].name = k.text()
			}
		}
		slices.SortStableFunc(items, func(a, b member) int { return strings.Compare(a.name, b.name) }) // an array's stay as they are
		w.WriteByte(open)
		comma := false
		for i, m := range items {
			if open == '{' && i+1 < len(items) && items[i+1].name == m.name {
				continue // the last of a name is kept
			} else if comma {
				w.WriteByte(',')
			}
			if comma = true; open == '{' {
				writeString(w, m.name)
				w.WriteByte(':')
			}
			canonical(w, m.value.(value))
		}
		w.WriteByte(open + 2)
	case '0':
		w.WriteString(formatNumber(v.number()))
	default: // a string's text, true, false or null
		writeValue(w, v)
	}
}

// readAnswer reads the client's answer, an ElicitResult, to a question of
// fields: on accept, its content, which must fit them; else none and why.
func readAnswer(answer value, fields []arg, none arguments) (arguments, error) {
	switch action := answer.get("action"); {
	case !isElicitResult(answer):
		return none, errors.New(`the client's answer is not {"action":"accept"|"decline"|"cancel"}, with the content of a form on accept`)
	case action.is("decline"):
		return none, errDeclined
	case action.is("cancel"):
		return none, errDismissed
	}
	in, _ := bind(fields, answer.get("content"))
	var b strings.Builder
	if writeFaults(&b, in, value{}, "", "field"); b.Len() > 0 {
		return none, errors.New("the answer does not fit the question: " + b.String()[2:])
	}
	return in, nil
}

// isElicitResult reports whether an answer is an ElicitResult: an
// action, accept, decline or cancel, and on accept, content that is none
// or an object.
func isElicitResult(answer value) bool {
	action, content := answer.get("action"), answer.get("content")
	return action.is("decline") || action.is("cancel") || action.is("accept") && (!content.exists() || content.kind() == '{')
}

// progress reports how far the tool is: done so far, of total (0 if not
// known), and a message ("" for none). When the client asked for progress,
// it gets a notification at once; when done is not above the last, none.
func (in arguments) progress(done, total float64, message string) {
	if c := in.call; c != nil {
		c.srv.report(c, done, total, message)
	}
}

// value returns the value given for t.args[i], or none.
func (in arguments) value(i int) value {
	if i < len(in.first) {
		return in.first[i]
	}
	return in.more[i-len(in.first)]
}

// text returns a string argument's text (see text in handlers.go: a lone
// surrogate is kept, as the three bytes WTF-8 gives it).
func (in arguments) text(name string) string { return read(in, name, "string", value.text) }

// number returns a number argument as JavaScript's Number() reads it.
func (in arguments) number(name string) float64 { return read(in, name, "number", value.number) }

// integer returns an integer argument, which is within ±(2^53-1).
func (in arguments) integer(name string) int {
	return read(in, name, "integer", func(v value) int { return int(v.number()) })
}

// boolean returns a boolean argument.
func (in arguments) boolean(name string) bool {
	return read(in, name, "boolean", func(v value) bool { return v.kind() == 't' })
}

// texts returns a list of strings argument, each read as text reads it.
func (in arguments) texts(name string) []string {
	return read(in, name, "strings", readList(value.text))
}

// numbers returns a list of numbers argument, each read as number does.
func (in arguments) numbers(name string) []float64 {
	return read(in, name, "numbers", readList(value.number))
}

// object returns an object argument's arguments, read as a tool's are;
// left out, it reads as an object with none given.
func (in arguments) object(name string) arguments {
	i := in.index(name, "object")
	return in.nested(in.args[i].args, in.value(i))
}

// objects returns a list of objects argument, each read as object reads.
func (in arguments) objects(name string) []arguments {
	args := in.args[in.index(name, "")].args
	return read(in, name, "objects", readList(func(v value) arguments { return in.nested(args, v) }))
}

// textMap returns a map of strings argument, each name and value read as
// text reads them; of a name given twice, the last value, which is a
// string (the values before it need not be).
func (in arguments) textMap(name string) map[string]string {
	return read(in, name, "map", func(v value) map[string]string {
		m := map[string]string{}
		for k, item := range v.items() {
			if item.kind() == '"' {
				m[k.text()] = item.text()
			}
		}
		return m
	})
}

// nested returns the arguments args of obj, for the same call as in.
func (in arguments) nested(args []arg, obj value) arguments {
	sub, _ := bind(args, obj)
	sub.call = in.call
	return sub
}

// given reports whether the call gave the argument name.
func (in arguments) given(name string) bool { return in.value(in.index(name, "")).exists() }

// read returns the argument name, of the kind, read by parse, or its default.
func read[T any](in arguments, name, kind string, parse func(value) T) T {
	i := in.index(name, kind)
	if v := in.value(i); v.exists() {
		return parse(v)
	}
	def, _ := in.args[i].def.(T)
	return def
}

// readList returns a function that reads a JSON array's items by parse.
func readList[T any](parse func(value) T) func(value) []T {
	return func(v value) []T {
		list := []T{}
		for _, item := range v.items() {
			list = append(list, parse(item))
		}
		return list
	}
}

// index returns the index of the argument name, of the given kind (any,
// if ""); a tool that reads one it does not declare panics.
func (in arguments) index(name, kind string) int {
	i := slices.IndexFunc(in.args, func(a arg) bool { return a.name == name && (a.kind == kind || kind == "") })
	if i < 0 {
		panic(fmt.Sprintf("the tool reads %q, which it does not declare as %s", name, withArticle(cmp.Or(kind, "argument"))))
	}
	return i
}

// ==== Checking a call ====

// check checks args (a JSON object, or none) against the tool's
// arguments: the arguments to run it with, or its faults, all in one text.
func (t *tool) check(args value) (in arguments, faults string) {
	in, extra := bind(t.args, args)
	var b strings.Builder // the faults, each after "; "
	writeFaults(&b, in, extra, "", "argument")
	if b.Len() > 0 {
		return in, "Invalid arguments for tool " + t.name + ": " + b.String()[2:]
	}
	return in, ""
}

// bind returns the arguments args given in obj (a JSON object, or none),
// and the first member of obj, as JavaScript lists them (see
// listedBefore), that args do not declare, or none.
func bind(args []arg, obj value) (in arguments, extra value) {
	in = arguments{args: args, more: make([]value, max(0, len(args)-4))}
	for k, v := range obj.items() {
		switch i := slices.IndexFunc(args, func(a arg) bool { return k.is(a.name) }); {
		case i >= len(in.first):
			in.more[i-len(in.first)] = v
		case i >= 0:
			in.first[i] = v
		case !extra.exists() || isIndex(k.text()) && listedBefore(k.text(), extra.text()):
			extra = k // a later name comes first only if it is an index; only then is extra's text, maybe long, read
		}
	}
	return in, extra
}

// writeFaults writes to b, each after "; ", what is wrong with in, bound
// from an object with extra: an argument missing, amiss, or not declared,
// named by its path from the top ("options.depth", "filters[0].field").
func writeFaults(b *strings.Builder, in arguments, extra value, path, noun string) {
	for i, a := range in.args {
		v, name := in.value(i), path+a.name
		switch fault := a.fault(v); {
		case !v.exists() && !a.optional:
			b.WriteString(`; missing required ` + noun + ` "` + name + `" (` + a.what(false) + ")")
		case fault != "":
			b.WriteString("; " + noun + ` "` + name + `" must be ` + fault)
		case v.exists() && a.kind == "object":
			sub, extra := bind(a.args, v)
			writeFaults(b, sub, extra, name+".", noun)
		case v.exists() && a.kind == "objects":
			n := 0
			for _, e := range v.items() {
				sub, extra := bind(a.args, e)
				writeFaults(b, sub, extra, name+"["+strconv.Itoa(n)+"].", noun)
				n++
			}
		}
	}
	if extra.exists() {
		b.WriteString("; unexpected " + noun + ` "` + path)
		writeText(b, extra.raw()) // at once: it can be as long as the line
		var allowed []string
		for _, a := range in.args {
			allowed = append(allowed, a.name)
		}
		if allowed != nil {
			b.WriteString(`" (allowed: ` + strings.Join(allowed, ", ") + ")")
		} else {
			b.WriteString(`" (the tool takes no arguments)`)
		}
	}
}

// what names the values a takes: "number" ("a number" with article),
// "list of strings", `one of "c", "f"`, or `list of strings, each one of
// "c", "f"`.
func (a arg) what(article bool) string {
	noun := cmp.Or(formats[a.format].noun, kinds[a.kind].noun)
	if article {
		noun = withArticle(noun)
	}
	if a.choices == nil {
		return noun
	}
	var quoted []string
	for _, c := range a.choices {
		quoted = append(quoted, quote(c))
	}
	if a.kind == "strings" {
		return noun + ", each one of " + strings.Join(quoted, ", ")
	}
	return "one of " + strings.Join(quoted, ", ")
}

// fault says what is wrong with v, given for a (or none), after "must
// be": "a number, got string", "at most 100, got 101", say; or "" if
// nothing is. An integer has no fraction (Number.isInteger); a string's
// length is in characters, as JSON Schema counts them.
func (a arg) fault(v value) string {
	if !v.exists() || v.jsonType() == a.kind && a.choices == nil && a.min == nil && a.max == nil && a.format == "" {
		return "" // most often; an object's arguments are checked by writeFaults
	}
	got, item, want, n := v.jsonType(), kinds[a.kind].item, a.what(true), 0.0 // n: what the bounds bound
	switch {
	case a.kind == "map" && got != "object":
		return want + ", got " + withArticle(got)
	case a.kind == "map":
		for _, e := range v.items() {
			if e.jsonType() != "string" {
				if bad := notString(v); bad != "" {
					return want + ", got a map with " + withArticle(bad)
				}
				break
			}
		}
	case a.kind == "integer" && got == "number":
		if n = v.number(); math.IsInf(n, 0) || n != math.Trunc(n) {
			return want + ", got " + formatNumber(n)
		}
	case item != "" && got != "array":
		return want + ", got " + withArticle(got)
	case item != "":
		for _, e := range v.items() {
			if n++; e.jsonType() != item {
				return want + ", got a list with " + withArticle(e.jsonType())
			} else if a.choices != nil && !slices.ContainsFunc(a.choices, e.is) {
				return want + ", got a list with " + quote(e.text())
			}
		}
	case got != a.kind:
		return want + ", got " + got
	case a.choices != nil && !slices.ContainsFunc(a.choices, v.is), a.format != "" && !formats[a.format].valid(v.text()):
		return want + ", got " + quote(v.text())
	case got == "string":
		n = float64(chars(v.text()))
	case got == "number":
		n = v.number()
	}
	lo, hi := a.bounds()
	unit := map[string]string{"string": " character", "strings": " item", "numbers": " item", "objects": " item"}[a.kind]
	plural := func(f float64) string {
		if unit != "" && f != 1 {
			return formatNumber(f) + unit + "s"
		}
		return formatNumber(f) + unit
	}
	switch {
	case n < lo:
		return "at least " + plural(lo) + ", got " + formatNumber(n)
	case n > hi:
		return "at most " + plural(hi) + ", got " + formatNumber(n)
	}
	return ""
}

// formats are the formats a question's string field may have (see
// arg.format): what a fault calls each, and which texts are valid.
var formats = map[string]struct {
	noun  string
	valid func(string) bool
}{
	"email":     {"email address", validEmail},
	"uri":       {"URI", validURI},
	"date":      {"date (YYYY-MM-DD)", validDate},
	"date-time": {"date-time (RFC 3339)", validDateTime},
}

// validEmail reports whether s is an email address as a form checks one:
// no character at or under U+0020, one @, something before it, and after
// it two or more dot-separated parts, none empty.
func validEmail(s string) bool {
	local, domain, _ := strings.Cut(s, "@")
	parts := strings.Split(domain, ".")
	return local != "" && len(parts) > 1 && !slices.Contains(parts, "") && !strings.ContainsRune(domain, '@') && printable(s)
}

// validURI reports whether s is a URI as a form checks one: a scheme (a
// letter, then letters, digits, +, - or .), a colon, and no character at
// or under U+0020.
func validURI(s string) bool {
	scheme, _, found := strings.Cut(s, ":")
	for i, c := range []byte(scheme) {
		if letter := c|0x20 >= 'a' && c|0x20 <= 'z'; !letter && (i == 0 || !isDigit(c) && c != '+' && c != '-' && c != '.') {
			return false
		}
	}
	return found && scheme != "" && printable(s)
}

// printable reports whether s has no character at or under U+0020.
func printable(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' })
}

// validDate reports whether s is a day of the calendar, YYYY-MM-DD.
func validDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil && len(s) == 10 && isDigit(s[0])
}

// validDateTime reports whether s is a date-time as RFC 3339 writes one:
// a date (see validDate), T, hh:mm:ss (hours under 24, minutes and
// seconds under 60), maybe a fraction (.digits), then Z or an offset,
// +hh:mm or -hh:mm.
func validDateTime(s string) bool {
	two := func(s string, under int) bool { // two digits, under a bound
		return len(s) == 2 && isDigit(s[0]) && isDigit(s[1]) && int(s[0]-'0')*10+int(s[1]-'0') < under
	}
	if len(s) < 20 || !validDate(s[:10]) || s[10] != 'T' || !two(s[11:13], 24) || s[13] != ':' || !two(s[14:16], 60) || s[16] != ':' || !two(s[17:19], 60) {
		return false
	}
	zone := s[19:]
	if zone[0] == '.' { // a fraction: one digit or more
		if zone = strings.TrimLeft(zone[1:], "0123456789"); len(zone) == len(s)-20 {
			return false
		}
	}
	return zone == "Z" || len(zone) == 6 && (zone[0] == '+' || zone[0] == '-') && two(zone[1:3], 24) && zone[3] == ':' && two(zone[4:], 60)
}

// notString returns the JSON type of the first value of the object v
// that is not a string, as JSON.parse reads v (the last value of each
// name) and JavaScript lists it (see listedBefore); "" if there is none.
func notString(v value) string {
	var names []string
	last := map[string]value{}
	for k, e := range v.items() {
		if _, seen := last[k.text()]; !seen {
			names = append(names, k.text())
		}
		last[k.text()] = e
	}
	bad := -1
	for i, name := range names {
		if last[name].jsonType() != "string" && (bad < 0 || listedBefore(name, names[bad])) {
			bad = i
		}
	}
	if bad < 0 {
		return ""
	}
	return last[names[bad]].jsonType()
}

// listedBefore reports whether JavaScript lists an object's member named
// a before one named b, which came first in the line: the names that are
// array indices come first, by value; the others as they came.
func listedBefore(a, b string) bool {
	return isIndex(a) && (!isIndex(b) || len(a) < len(b) || len(a) == len(b) && a < b)
}

// bounds returns a's bounds, ±Inf for none; an integer's are within
// ±maxSafe.
func (a arg) bounds() (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	if a.kind == "integer" {
		lo, hi = -maxSafe, maxSafe
	}
	if a.min != nil {
		lo, _ = bound(a.min)
	}
	if a.max != nil {
		hi, _ = bound(a.max)
	}
	return lo, hi
}

// bound returns b, an int or a float64, as a float64, and whether
// tools/list can write it so that JSON.parse reads it back the same: not
// -0, and finite; an int within ±maxSafe.
func bound(b any) (float64, bool) {
	switch b := b.(type) {
	case int:
		return float64(b), b >= -maxSafe && b <= maxSafe
	case float64:
		return b, !math.IsInf(b, 0) && b == b && (b != 0 || !math.Signbit(b))
	}
	return 0, false
}

// chars returns how many characters JavaScript reads in s, a tool's text
// (see text): each valid UTF-8 sequence and each surrogate, or pair, is
// one, and each maximal invalid subpart, which it reads as U+FFFD.
func chars(s string) (n int) {
	for i := 0; i < len(s); n++ {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			_, size = notUTF8(s[i:])
		}
		i += size
	}
	return n
}

// ==== The catalogue ====

// annotations are the hints a tool may carry, in the specification's
// order.
var annotations = []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

// toolList is the entries of a tools/list result, each tool's and each
// property's members in the specification's order, those that are
// optional only when set.
func toolList(tools []tool) []any {
	list := []any{}
	for _, t := range tools {
		entry, hints := obj{{"name", t.name}, {"title", unlessEmpty(t.title)}}, obj{}
		entry = append(entry, member{"description", t.description}, member{"inputSchema", schema(t.args, false)})
		if t.output != nil {
			entry = append(entry, member{"outputSchema", schema(t.output, false)})
		}
		for _, h := range annotations {
			if v, ok := t.annotations[h]; ok {
				hints = append(hints, member{h, v})
			}
		}
		if len(hints) > 0 {
			entry = append(entry, member{"annotations", hints})
		}
		list = append(list, entry)
	}
	return list
}

// schema is the JSON Schema of an object whose members are args, each
// property's members in the order the specification gives a form's (see
// ask): type, description, bounds, format, choices, default. Titled
// choices are oneOf (of a list's items, anyOf) const and title; in a
// 2025-06-18 form (enumNames), an enum and its enumNames.
func schema(args []arg, enumNames bool) obj {
	props, required := obj{}, []string{}
	for _, a := range args {
		p, choices := slices.Clone(kinds[a.kind].schema), obj{{"enum", a.choices}}
		switch {
		case a.titles != nil && enumNames:
			choices = append(choices, member{"enumNames", a.titles})
		case a.titles != nil:
			titled := []any{}
			for i, c := range a.choices {
				titled = append(titled, obj{{"const", c}, {"title", a.titles[i]}})
			}
			if choices = (obj{{"oneOf", titled}}); a.kind == "strings" {
				choices[0].name = "anyOf"
			}
		}
		switch {
		case a.kind == "object":
			p = schema(a.args, false)
		case a.kind == "objects":
			p = obj{{"type", "array"}, {"items", schema(a.args, false)}}
		case a.choices != nil && a.kind == "strings" && a.titles == nil:
			p = obj{{"type", "array"}, {"items", slices.Insert(choices, 0, member{"type", "string"})}}
		case a.choices != nil && a.kind == "strings":
			p = obj{{"type", "array"}, {"items", choices}}
		}
		if a.description != "" {
			p = append(p, member{"description", a.description})
		}
		lo, hi := a.bounds()
		for i, b := range []float64{lo, hi} {
			if !math.IsInf(b, 0) {
				p = append(p, member{kinds[a.kind].bounds[i], b})
			}
		}
		if p = append(p, member{"format", unlessEmpty(a.format)}); a.choices != nil && a.kind != "strings" {
			p = append(p, choices...)
		}
		if props = append(props, member{a.name, append(p, member{"default", a.def})}); !a.optional {
			required = append(required, a.name)
		}
	}
	return obj{{"type", "object"}, {"properties", props}, {"required", required}, {"additionalProperties", false}}
}

// checkCatalogue returns the first mistake in the catalogues, which main
// reports at start: in a tool's name (the specification's rule), run,
// annotations or arguments (see check), or a URI used twice.
func checkCatalogue(tools []tool, resources []resource) error {
	for i, t := range tools {
		switch {
		case len(t.name) < 1 || len(t.name) > 128 || strings.Trim(t.name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.") != "":
			return fmt.Errorf("tool %q: a name is 1 to 128 of A-Z a-z 0-9 _ - .", t.name)
		case slices.ContainsFunc(tools[:i], func(o tool) bool { return o.name == t.name }):
			return fmt.Errorf("tool %q: the name is used twice", t.name)
		case t.run == nil:
			return fmt.Errorf("tool %q: no run function", t.name)
		case t.timeout < 0:
			return fmt.Errorf("tool %q: the timeout %v is negative", t.name, t.timeout)
		}
		for h := range t.annotations {
			if !slices.Contains(annotations, h) {
				return fmt.Errorf("tool %q: the annotation %q is not one of %s", t.name, h, strings.Join(annotations, ", "))
			}
		}
		if name, err := checkArgs(t.args, false); err != "" {
			return fmt.Errorf("tool %q, argument %q: %s", t.name, name, err)
		} else if name, err := checkArgs(t.output, false); err != "" {
			return fmt.Errorf("tool %q, output %q: %s", t.name, name, err)
		}
		for _, a := range t.output {
			if a.def != nil || a.kind == "object" || a.kind == "objects" || a.kind == "map" {
				return fmt.Errorf("tool %q, output %q: an output has no default, and is not an object or a map", t.name, a.name)
			}
		}
	}
	for i, r := range resources {
		if slices.ContainsFunc(resources[:i], func(o resource) bool { return o.uri == r.uri }) {
			return fmt.Errorf("resource %q: the URI is used twice", r.uri)
		} else if err := checkResource(r); err != "" {
			return fmt.Errorf("resource %q: %s", r.uri, err)
		}
	}
	return nil
}

// checkArgs returns the first of args that has a mistake, and what it is
// (see arg.check); inForm: they are a question's fields.
func checkArgs(args []arg, inForm bool) (name, fault string) {
	for i, a := range args {
		if fault := a.check(!slices.ContainsFunc(args[:i], func(o arg) bool { return o.name == a.name }), inForm); fault != "" {
			return a.name, fault
		}
	}
	return "", ""
}

// check returns what is wrong with a, given whether its name is its own
// (not used twice) and whether it is a question's field, or "": its name,
// kind, choices, bounds or default, each as tools/list or a form must
// write it and a call or an answer be checked against it.
func (a arg) check(own, inForm bool) string {
	_, known := kinds[a.kind]
	lo, hi := a.bounds()
	switch {
	case a.name == "" || len(a.name) > 128:
		return "an argument's name is 1 to 128 bytes"
	case !own:
		return "the name is used twice"
	case isIndex(a.name):
		return "a name of digits is put first by JavaScript, out of order"
	case !known:
		return fmt.Sprintf("the kind %q is not one of string, number, integer, boolean, strings, numbers, object, objects, map", a.kind)
	case a.choices != nil && (a.kind != "string" && a.kind != "strings" || len(a.choices) == 0):
		return "choices are one or more strings, of a string or a list of strings"
	case len(slices.Compact(slices.Sorted(slices.Values(a.choices)))) < len(a.choices):
		return "a choice is given twice"
	case a.titles != nil && len(a.titles) != len(a.choices):
		return "titles are one for each choice"
	case slices.ContainsFunc(slices.Concat([]string{a.name}, a.choices, a.titles), func(s string) bool { return !utf8.ValidString(s) || strings.ContainsRune(s, utf8.RuneError) }):
		return "a name, a choice or a title is valid UTF-8, without U+FFFD, which a line's invalid bytes read as"
	case inForm && !slices.Contains([]string{"string", "number", "integer", "boolean"}, a.kind) && (a.kind != "strings" || a.choices == nil):
		return "a form holds strings, numbers, integers, booleans and lists of choices"
	case a.format != "" && (!inForm || a.kind != "string" || a.choices != nil || formats[a.format].valid == nil):
		return "a format (email, uri, date or date-time) is a question's, of a string field without choices: JSON Schema takes it for a note, not a rule"
	case (a.min != nil || a.max != nil) && known && kinds[a.kind].bounds[0] == "":
		return fmt.Sprintf("%s has no bounds", withArticle(kinds[a.kind].noun))
	case a.args != nil && a.kind != "object" && a.kind != "objects":
		return "args are for an object or a list of objects"
	case a.def != nil && known && kinds[a.kind].schema == nil || a.def != nil && (a.kind == "objects" || a.kind == "map"):
		return fmt.Sprintf("%s has no default", withArticle(kinds[a.kind].noun))
	case !a.boundOK(a.min) || !a.boundOK(a.max):
		return fmt.Sprintf("the bounds (%#v, %#v) must be ints or float64s tools/list can write: finite, not -0, within ±%d; whole and at least 0 for a length", a.min, a.max, maxSafe)
	case lo > hi:
		return fmt.Sprintf("the minimum %v is over the maximum %v", a.min, a.max)
	case a.def != nil && !a.optional:
		return "a default is for an optional argument"
	case a.def != nil && fmt.Sprintf("%T", a.def) != kinds[a.kind].goType:
		return fmt.Sprintf("the default %#v (%T) is not a %s, as a %s argument reads", a.def, a.def, kinds[a.kind].goType, a.kind)
	case a.def == nil:
		if name, err := checkArgs(a.args, false); err != "" {
			return fmt.Sprintf("argument %q: %s", name, err)
		}
	default:
		f, _ := a.def.(float64)
		if v, _, ok := parseJSON([]byte(quote(a.def))); !ok || f == 0 && math.Signbit(f) {
			return fmt.Sprintf("the default %v is not a number JSON can write as it is", a.def)
		} else if fault := a.fault(v); fault != "" {
			return fmt.Sprintf("the default %s must be %s", quote(a.def), fault)
		}
	}
	return ""
}

// boundOK reports whether b, a bound of a, is none, or one tools/list can
// write as it is (see bound): of an integer, whole; of a length, whole and
// at least 0.
func (a arg) boundOK(b any) bool {
	f, ok := bound(b)
	whole := f == math.Trunc(f)
	return b == nil || ok && (a.kind == "number" || whole && (a.kind == "integer" || f >= 0))
}

// isIndex reports whether name is a canonical array index, 0 to 2^32-2,
// which a JavaScript object lists before its other members.
func isIndex(name string) bool {
	if name == "" || len(name) > 10 || strings.Trim(name, "0123456789") != "" || len(name) > 1 && name[0] == '0' {
		return false // not digits, or not as String(n) writes n: cheaply, as names can be long
	}
	n, err := strconv.ParseUint(name, 10, 32)
	return err == nil && n < 1<<32-1
}
