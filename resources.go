// This file is the resource catalogue, literal data: resources/list and
// each resource's resources/read result come from it.

package main

import "strings"

// resource is one fixed text resource.
type resource struct {
	uri, name, mimeType, text string
}

// resources is the catalogue, in resources/list order.
var resources = []resource{
	{uri: "memo://welcome", name: "Welcome memo", mimeType: "text/plain", text: "Welcome to Shipcode MCP."},
}

// resourceList is `"resources":[...]`, the members of a resources/list
// result, and readResults each resource's resources/read result, in each
// shape (see inShape), made once.
var resourceList, readResults = func() (list string, reads []map[bool]string) {
	var entries []string
	for _, r := range resources {
		entries = append(entries, `{"uri":`+quote(r.uri)+`,"name":`+quote(r.name)+`,"mimeType":`+quote(r.mimeType)+`}`)
		contents := `"contents":[{"uri":` + quote(r.uri) + `,"mimeType":` + quote(r.mimeType) + `,"text":` + quote(r.text) + `}]`
		reads = append(reads, map[bool]string{false: inShape(false, contents), true: inShape(true, contents)})
	}
	return `"resources":[` + strings.Join(entries, ",") + "]", reads
}()
