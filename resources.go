// This file is the resource catalogue and what a resource can be: literal
// text, fixed at build time, or a function read at each resources/read,
// of one URI or of a template of many.

package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"strings"
	"time"
)

// resource is one resource, or, if its uri has {name} variables (RFC 6570
// level 1), a template of many: resources/templates/list lists it, and
// resources/read reads each URI it matches (see match).
type resource struct {
	uri, name string
	mimeType  string // "" for none
	text      string // its text, fixed; or, with read, none
	// read returns the text, or with blob the bytes, of the URI read; vars
	// are a template's variables, decoded. An error is a JSON-RPC error
	// whose message ends with its text; ctx is done as a tool's is.
	read func(ctx context.Context, vars map[string]string) (string, error)
	blob bool // read returns bytes, written base64 as "blob"
	// complete returns, for a template, the values its variable name may
	// take that start with, or match, value, as typed so far, best first;
	// vars are the template's other variables the client has given. ctx
	// ends after completeTimeout (see handleComplete).
	complete func(ctx context.Context, name, value string, vars map[string]string) ([]string, error)
}

// resources is the catalogue, in resources/list order.
var resources = []resource{
	{uri: "memo://welcome", name: "Welcome memo", mimeType: "text/plain", text: "Welcome to Shipcode MCP."},
}

// resourceLists returns the entries of resources/list and of
// resources/templates/list, and, by index, each fixed resource's
// resources/read result in each shape, legacy and 2026-07-28 (see
// cached), made once; nil for the others.
func resourceLists(rs []resource) (list, templates []any, reads []map[bool]any) {
	list, templates = []any{}, []any{}
	for _, r := range rs {
		entry := obj{{"uri", r.uri}, {"name", r.name}, {"mimeType", unlessEmpty(r.mimeType)}}
		if isTemplate(r.uri) {
			templates = append(templates, append(obj{{"uriTemplate", r.uri}}, entry[1:]...))
		} else {
			list = append(list, entry)
		}
		var results map[bool]any // a fixed one's only
		if r.read == nil {
			read := contents(r, r.uri, r.text)
			results = map[bool]any{false: cached(false, read), true: cached(true, read)}
		}
		reads = append(reads, results)
	}
	return list, templates, reads
}

// contents is a resources/read result: data, the text or bytes read of
// uri, as r's contents.
func contents(r resource, uri, data string) obj {
	item := obj{{"uri", uri}, {"mimeType", unlessEmpty(r.mimeType)}, {"text", data}}
	if r.blob {
		item[2] = member{"blob", base64.StdEncoding.EncodeToString([]byte(data))}
	}
	return obj{{"contents", []any{item}}}
}

// read calls c's resource's read function, and returns its contents, or
// a JSON-RPC error: an error that wraps fs.ErrNotExist is "Resource not
// found", which names no path. In 2026-07-28 the contents, which may
// change, are marked not to be cached.
func (c *call) read(ctx context.Context) (any, *rpcError) {
	uri := c.args.text()
	data, err := c.res.read(ctx, c.x.vars)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, notFound(uri, c.modern)
	case err != nil:
		return nil, &rpcError{code: codeInternalError, message: "Could not read the resource: " + err.Error(), data: obj{{"uri", uri}}}
	case c.modern:
		return slices.Concat(obj{{"resultType", "complete"}}, contents(*c.res, uri, data), obj{{"ttlMs", 0}, {"cacheScope", "private"}}), nil
	}
	return contents(*c.res, uri, data), nil
}

// notFound is the reply to a URI that names no resource: -32002 before
// 2026-07-28, -32602 in it, with the URI as data.
func notFound(uri string, modern bool) *rpcError {
	code := codeResourceNotFound
	if modern {
		code = codeInvalidParams
	}
	return &rpcError{code: code, message: "Resource not found", data: obj{{"uri", uri}}}
}

// isTemplate reports whether uri is a template: it has a variable.
func isTemplate(uri string) bool { return strings.ContainsAny(uri, "{}") }

// match returns the variables of uri if template matches it. Level 1
// expansion writes a value as unreserved characters and %XX escapes, so
// each variable takes the longest run of them, decoded; checkTemplate
// makes sure what follows cannot be part of it. A value that could lead
// a read out of a folder does not match (see local).
func match(template, uri string) (vars map[string]string, ok bool) {
	for {
		open := strings.IndexByte(template, '{')
		if open < 0 {
			return vars, template == uri
		} else if !strings.HasPrefix(uri, template[:open]) {
			return nil, false
		}
		end, n := strings.IndexByte(template, '}'), open
		for n < len(uri) && (isUnreserved(uri[n]) || uri[n] == '%') {
			n++
		}
		value, err := url.PathUnescape(uri[open:n])
		if err != nil || !local(value) {
			return nil, false
		}
		if vars == nil {
			vars = map[string]string{}
		}
		vars[template[open+1:end]] = value
		template, uri = template[end+1:], uri[n:]
	}
}

// local reports whether v, a variable's value, names something inside a
// folder, whichever way a read function joins it to one: not empty, not
// rooted (/, \ or a drive letter), no segment . or .. between / and \,
// no control character.
func local(v string) bool {
	if v == "" || v[0] == '/' || v[0] == '\\' || len(v) > 1 && v[1] == ':' && strings.ContainsRune(letters, rune(v[0])) {
		return false
	}
	for seg := range strings.FieldsFuncSeq(v, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return !strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// letters are the ASCII letters.
const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// isUnreserved reports whether c is an unreserved character of RFC 3986.
func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || strings.IndexByte("-._~", c) >= 0
}

// checkResource returns what is wrong with r, or "": its URI or
// template, name, or what it reads.
func checkResource(r resource) string {
	switch {
	case r.uri == "" || r.name == "":
		return "a resource has a URI and a name"
	case r.read == nil && (isTemplate(r.uri) || r.blob):
		return "a template, or a resource of bytes, is read by a read function"
	case r.read != nil && r.text != "":
		return "a resource has either text or a read function"
	case r.complete != nil && !isTemplate(r.uri):
		return "complete is a template's"
	}
	return checkTemplate(r.uri)
}

// checkTemplate returns what is wrong with a URI template, or "": each
// variable is {name}, of letters, digits and _, used once, and followed
// by the end or by a character that cannot be in its value.
func checkTemplate(uri string) string {
	var seen []string
	for rest := uri; isTemplate(rest); {
		open, end := strings.IndexByte(rest, '{'), strings.IndexByte(rest, '}')
		if open < 0 || end < open || strings.Trim(rest[open+1:end], letters+"0123456789_") != "" || end == open+1 {
			return fmt.Sprintf("the template %q has a variable that is not {name}, of letters, digits and _", uri)
		} else if name := rest[open+1 : end]; slices.Contains(seen, name) {
			return fmt.Sprintf("the template %q has the variable %s twice", uri, name)
		} else {
			seen = append(seen, name)
		}
		if rest = rest[end+1:]; rest != "" && (isUnreserved(rest[0]) || rest[0] == '%' || rest[0] == '{') {
			return fmt.Sprintf("the template %q has a variable followed by %q, which its value could hold", uri, rest[:1])
		}
	}
	return ""
}

// completeTimeout is how long a template's complete may take; then its
// ctx ends (errTimedOut). maxValues is how many values a completion has.
const (
	completeTimeout = time.Second
	maxValues       = 100
)

// handleComplete answers completion/complete for a variable of a
// template: the values its complete function gives, the first
// maxValues, how many in all, and whether there are more; none if it has
// no such function. Each runs on the loop, the lines after it waiting:
// one at a time, each at most completeTimeout, which is the rate limit.
// Without a template that completes, it is Method not found.
func handleComplete(s *server, req *request) decision {
	p := &req.p
	ref, argument, given := p.ref, p.argument, p.context.get("arguments")
	name, value := argument.get("name"), argument.get("value")
	switch {
	case !s.completes:
		return decide(nil, errMethodNotFound)
	case ref.kind() != '{':
		return decide(nil, invalidParams("params.ref", ref, "an object"))
	case ref.get("type").is("ref/prompt"):
		return decide(nil, &rpcError{code: codeInvalidParams, message: "Unknown prompt: mcp serves no prompts"})
	case !ref.get("type").is("ref/resource") || ref.get("uri").kind() != '"':
		return decide(nil, invalidParams("params.ref", ref, `{"type":"ref/resource","uri":TEMPLATE}`))
	case name.kind() != '"' || value.kind() != '"':
		return decide(nil, invalidParams("params.argument", argument, `{"name":NAME,"value":TEXT}`))
	case p.context.exists() && p.context.kind() != '{' || given.exists() && (given.kind() != '{' || notString(given) != ""):
		return decide(nil, invalidParams("params.context", p.context, `{"arguments":{NAME:TEXT...}}`))
	}
	uri := ref.get("uri").text()
	i := slices.IndexFunc(resources, func(r resource) bool { return r.uri == uri && isTemplate(uri) })
	if i < 0 {
		return decide(nil, &rpcError{code: codeInvalidParams, message: "Unknown resource template: " + uri})
	}
	vars, names := map[string]string{}, variables(uri)
	if !slices.Contains(names, name.text()) {
		return decide(nil, &rpcError{code: codeInvalidParams, message: "Unknown variable of " + uri + ": " + name.text()})
	}
	for k, v := range given.items() {
		if k.text() != name.text() && slices.Contains(names, k.text()) {
			vars[k.text()] = v.text()
		}
	}
	var values []string
	if complete := resources[i].complete; complete != nil {
		ctx, cancel := context.WithTimeoutCause(s.ctx, completeTimeout, errTimedOut)
		defer cancel()
		var err error
		if values, err = complete(ctx, name.text(), value.text(), vars); context.Cause(ctx) == errTimedOut {
			err = fmt.Errorf("it did not finish within its time limit of %v", completeTimeout)
		}
		if err != nil {
			return decide(nil, &rpcError{code: codeInternalError, message: "Could not complete " + name.text() + ": " + err.Error()})
		}
	}
	result := obj{{"completion", obj{{"values", values[:min(len(values), maxValues)]}, {"total", len(values)}, {"hasMore", len(values) > maxValues}}}}
	if req.modern {
		result = slices.Insert(result, 0, member{"resultType", "complete"})
	}
	return decide(result, nil)
}

// variables returns the names of the variables of a template, valid (see
// checkTemplate), in order.
func variables(template string) (names []string) {
	for _, part := range strings.Split(template, "{")[1:] {
		names = append(names, part[:strings.IndexByte(part, '}')])
	}
	return names
}
