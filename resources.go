// This file is the resource catalogue, literal data. Each resource's
// resources/read result is encoded once at start-up.

package main

import (
	"fmt"
	"strings"
)

// resource is one fixed text resource.
type resource struct {
	uri, name, mimeType, text string
	readBody                  string // `"contents":[...]`, the body of its resources/read result
}

// resources is the catalogue, in resources/list order.
var resources = []resource{
	{uri: "memo://welcome", name: "Welcome memo", mimeType: "text/plain", text: "Welcome to Shipcode MCP."},
}

// init encodes each resource's resources/read result once.
func init() {
	for i := range resources {
		r := &resources[i]
		r.readBody = fmt.Sprintf(`"contents":[{"uri":%s,"mimeType":%s,"text":%s}]`, quote(r.uri), quote(r.mimeType), quote(r.text))
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

// resourceList is `"resources":[...]`, the body of a resources/list result.
func resourceList() string {
	var list []string
	for _, r := range resources {
		list = append(list, fmt.Sprintf(`{"uri":%s,"name":%s,"mimeType":%s}`, quote(r.uri), quote(r.name), quote(r.mimeType)))
	}
	return `"resources":[` + strings.Join(list, ",") + "]"
}
