// Computes kinds.out from kinds.in with node: node kinds.mjs < kinds.in >
// kinds.out. The tools are TestToolKinds' catalogue: "all" shows how it
// read each argument.
import { arg, serve } from "../tools.mjs";

serve([
  { name: "all", title: "Every kind", description: "Show each kind of argument as read",
    annotations: { readOnlyHint: true, openWorldHint: false }, args: [
      arg("s", "string", { description: "any text" }), arg("n", "number"),
      arg("i", "integer", { description: "a whole number", optional: true, def: 3 }),
      arg("b", "boolean", { optional: true }),
      arg("c", "string", { choices: ["c", "f"], optional: true, def: "c" }),
      arg("ss", "strings", { optional: true, def: ["x", "y"] }), arg("ns", "numbers", { optional: true }),
    ], run: (a, given) => [`s=${a.s} n=${a.n} i=${a.i} b=${a.b} c=${a.c} ss=${a.ss.join("|")} ns=${a.ns.join("|")} given=${given.join(",")}`, false] },
  { name: "none", description: "Take nothing", args: [], run: () => ["nothing", false] },
  { name: "limits", description: "Show bounded arguments as read", args: [
      arg("limit", "integer", { min: 1, max: 100, optional: true, def: 10 }), arg("ratio", "number", { min: -0.5, max: 2.5, optional: true }),
      arg("q", "string", { min: 1, max: 3, optional: true }), arg("ns", "numbers", { max: 1, optional: true }),
      arg("tags", "strings", { choices: ["red", "green", "blue"], min: 1, max: 2, optional: true }),
    ], run: (a) => [`limit=${a.limit} ratio=${String(a.ratio)} q=${a.q} tags=${a.tags.join("|")} ns=${a.ns.length}`, false] },
  { name: "weather", description: "Report the weather", args: [arg("city", "string")],
    output: [arg("city", "string"), arg("tempC", "number", { min: -90, max: 60, description: "in degrees Celsius" }),
      arg("conditions", "strings", { optional: true })],
    run: (a) => a.city === "Mars" ? { output: { city: a.city, tempC: -120 } }
      : a.city === "Nowhere" ? { output: { city: a.city } }
      : a.city === "Fail" ? ["no weather today", true]
      : ["NaN", "Infinity", "-Infinity"].includes(a.city) ? { output: { city: a.city, tempC: Number(a.city) } }
      : { text: a.city === "Oslo" ? "cold" : "", output: { conditions: ["sunny", "dry"], city: a.city, tempC: 21.5 } } },
  { name: "search", description: "Show nested arguments as read", args: [
      arg("query", "string"),
      arg("options", "object", { optional: true, description: "how to search", args: [
        arg("depth", "integer", { min: 1, max: 5, optional: true, def: 2 }), arg("exact", "boolean", { optional: true })] }),
      arg("headers", "map", { optional: true }),
      arg("filters", "objects", { optional: true, max: 2, args: [arg("field", "string"), arg("value", "string", { choices: ["a", "b"] })] }),
    ], run: (a) => {
      const o = { depth: 2, exact: false, ...a.options }, h = Object.keys(a.headers).sort().map((k) => k + ":" + a.headers[k]);
      return [`query=${a.query} depth=${o.depth} exact=${o.exact} headers=${h.join(",")} filters=${a.filters.map((f) => f.field + "=" + f.value).join("|")}`, false];
    } },
  { name: "floors", description: "Show arguments bounded below, and nested two deep, as read", args: [
      arg("n", "number", { min: 0.5, optional: true }), arg("s", "string", { min: 2, optional: true }),
      arg("ns", "numbers", { min: 1, optional: true }),
      arg("o", "object", { optional: true, args: [arg("p", "object", { args: [arg("field", "string")] })] }),
    ], run: (a) => [`n=${String(a.n)} s=${a.s} ns=${a.ns.length} field=${a.o.p?.field ?? ""}`, false] },
  { name: "pixel", description: "Return a pixel and a sound", args: [],
    run: () => ({ text: "a pixel", attach: [["\x89PNG\r\n\x1a\n\x00\xff", "image/png"], ["RIFF", "audio/wav"]] }) },
  { name: "files", description: "Link two files, embed one, and attach a sound", args: [],
    run: () => ({ text: "found 2", items: [["link", "file:///notes/a.md", "a.md", "text/markdown"], ["link", "notes://b", "b", ""],
      ["embed", "notes://b", "text/markdown", "# B\n\u2028\ud800"], ["blob", "file:///x.bin", "", "\x00\xff"], ["attach", "RIFF", "audio/wav"]] }) },
  { name: "bare", description: "Return an embedded resource and no text", args: [],
    run: () => ({ noText: true, items: [["embed", "test://embedded-resource", "text/plain", "This is an embedded resource content."]] }) },
  { name: "empty", description: "Return no content at all", args: [], run: () => ({ noText: true }) },
  { name: "titled", description: "Show titled choices as read", args: [
      arg("mode", "string", { choices: ["r", "w"], titles: ["Read", "Write"], description: "how to open" }),
      arg("tags", "strings", { choices: ["a", "b", "c"], titles: ["Alpha", "Beta", "Gamma"], max: 2, optional: true, def: ["a"] }),
    ], run: (a) => [`mode=${a.mode} tags=${a.tags.join("|")}`, false] },
]);
