// This file is the resource catalogue, literal data: resources/list and
// each resource's resources/read result come from it.

package main

// resource is one fixed text resource.
type resource struct {
	uri, name, mimeType, text string
}

// resources is the catalogue, in resources/list order.
var resources = []resource{
	{uri: "memo://welcome", name: "Welcome memo", mimeType: "text/plain", text: "Welcome to Shipcode MCP."},
}

// resourceList is the entries of a resources/list result, and readResults
// each resource's resources/read result in each shape, legacy and
// 2026-07-28 (see cached), made once.
var resourceList, readResults = func() (list []any, reads []map[bool]any) {
	for _, r := range resources {
		list = append(list, obj{{"uri", r.uri}, {"name", r.name}, {"mimeType", r.mimeType}})
		read := obj{{"contents", []any{obj{{"uri", r.uri}, {"mimeType", r.mimeType}, {"text", r.text}}}}}
		reads = append(reads, map[bool]any{false: cached(false, read), true: cached(true, read)})
	}
	return list, reads
}()
