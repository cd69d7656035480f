// This file is the resource catalogue, literal data. Each resource's
// resources/read result is encoded once at start-up.

package main

// resource is one fixed text resource.
type resource struct {
	uri      string
	name     string
	mimeType string
	text     string

	readBody []byte // `"contents":[...]`, the body of its resources/read result
}

// resources is the catalogue, in resources/list order.
var resources = []resource{
	{
		uri:      "memo://welcome",
		name:     "Welcome memo",
		mimeType: "text/plain",
		text:     "Welcome to Shipcode MCP.",
	},
}

func init() {
	for i := range resources {
		r := &resources[i]
		b := append([]byte(nil), `"contents":[{`...)
		b = appendStringMembers(b, "uri", r.uri, "mimeType", r.mimeType, "text", r.text)
		r.readBody = append(b, "}]"...)
	}
}

// findResource returns the resource with the given URI, or nil. URIs match
// exactly, byte for byte.
func findResource(uri []byte) *resource {
	for i := range resources {
		if string(uri) == resources[i].uri {
			return &resources[i]
		}
	}
	return nil
}

// appendResourceList appends `"resources":[...]`, the body of a
// resources/list result.
func appendResourceList(dst []byte) []byte {
	dst = append(dst, `"resources":`...)
	return appendArray(dst, len(resources), func(dst []byte, i int) []byte {
		r := resources[i]
		dst = append(dst, '{')
		dst = appendStringMembers(dst, "uri", r.uri, "name", r.name, "mimeType", r.mimeType)
		return append(dst, '}')
	})
}
