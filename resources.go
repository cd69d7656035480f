// This file is the resource catalogue, literal data: resources/list and
// each resource's resources/read result are derived from it.

package main

import (
	"fmt"
	"strings"
)

// resource is one fixed text resource.
type resource struct {
	uri, name, mimeType, text string
}

// resources is the catalogue, in resources/list order.
var resources = []resource{
	{uri: "memo://welcome", name: "Welcome memo", mimeType: "text/plain", text: "Welcome to Shipcode MCP."},
}

// findResource returns the index of the resource with the given URI, or
// -1. URIs match exactly, byte for byte.
func findResource(uri []byte) int {
	for i := range resources {
		if string(uri) == resources[i].uri {
			return i
		}
	}
	return -1
}

// resourceList is `"resources":[...]`, the members of a resources/list
// result.
func resourceList() string {
	var list []string
	for _, r := range resources {
		list = append(list, fmt.Sprintf(`{"uri":%s,"name":%s,"mimeType":%s}`, quote(r.uri), quote(r.name), quote(r.mimeType)))
	}
	return `"resources":[` + strings.Join(list, ",") + "]"
}

// readBody is `"contents":[...]`, the members of r's resources/read result.
func readBody(r resource) string {
	return fmt.Sprintf(`"contents":[{"uri":%s,"mimeType":%s,"text":%s}]`, quote(r.uri), quote(r.mimeType), quote(r.text))
}
