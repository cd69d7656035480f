// How mcp checks and lists tools, in JavaScript, for the scripts that
// compute expected replies with node (kinds/kinds.mjs, recipe/greet.mjs):
// serve(tools) answers the tools/list and tools/call lines on stdin, as
// JSON.parse reads them and JSON.stringify writes the replies (and
// initialize, whose version decides how audio is sent). A tool is
// { name, title?, description, annotations?, args, output?, run(read,
// given) }, run returning [text, isError], or { text, output, attach,
// items, noText }: the structured result's fields; [bytes as a latin1
// string, MIME type] pairs; then items, each ["link", uri, name,
// mimeType], ["embed", uri, mimeType, text] or ["blob", uri, mimeType,
// bytes]; and whether the text item is left out. An argument, or an
// output field, is arg(name, kind, more), more holding description,
// choices, min, max, optional and def.
import { readFileSync } from "node:fs";

export const arg = (name, kind, more = {}) => ({ name, kind, ...more });
const article = (w) => ("aeiou".includes(w[0]) ? "an " : "a ") + w;
export const type = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const kinds = {
  string: [{ type: "string" }, "string"], number: [{ type: "number" }, "number"],
  integer: [{ type: "integer" }, "integer"], boolean: [{ type: "boolean" }, "boolean"],
  strings: [{ type: "array", items: { type: "string" } }, "list of strings", "string"],
  numbers: [{ type: "array", items: { type: "number" } }, "list of numbers", "number"],
  object: [null, "object"], objects: [null, "list of objects", "object"],
  map: [{ type: "object", additionalProperties: { type: "string" } }, "map of strings"],
};
export const zero = { string: "", number: 0, integer: 0, boolean: false, strings: [], numbers: [], object: {}, objects: [], map: {} };
const SAFE = 2 ** 53 - 1;
export const boundNames = { string: ["minLength", "maxLength"], number: ["minimum", "maximum"], integer: ["minimum", "maximum"],
  strings: ["minItems", "maxItems"], numbers: ["minItems", "maxItems"], objects: ["minItems", "maxItems"] };
// formats are a question's string formats: what a fault calls each, and
// which texts are valid (as the README states the rules).
const printable = (s) => [...s].every((c) => c > " ");
const isDate = (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !isNaN(Date.parse(s + "T00:00:00Z")) && new Date(s + "T00:00:00Z").toISOString().slice(0, 10) === s;
export const formats = {
  email: ["email address", (s) => {
    const at = s.indexOf("@"), parts = s.slice(at + 1).split(".");
    return at > 0 && !s.slice(at + 1).includes("@") && parts.length > 1 && parts.every((p) => p !== "") && printable(s);
  }],
  uri: ["URI", (s) => /^[A-Za-z][A-Za-z0-9+.-]*:/.test(s) && printable(s)],
  date: ["date (YYYY-MM-DD)", isDate],
  "date-time": ["date-time (RFC 3339)", (s) => {
    const m = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/.exec(s);
    return m !== null && isDate(m[1]);
  }],
};
// titled is a's choices with their titles, as oneOf or anyOf holds them.
export const titled = (a) => a.choices.map((c, i) => ({ const: c, title: a.titles[i] }));
export const bounds = (a) => [a.min ?? (a.kind === "integer" ? -SAFE : -Infinity), a.max ?? (a.kind === "integer" ? SAFE : Infinity)];
export function what(a, withArticle) {
  const noun = (withArticle ? article : (w) => w)(a.format ? formats[a.format][0] : kinds[a.kind][1]);
  if (!a.choices) return noun;
  const quoted = a.choices.map((c) => JSON.stringify(c)).join(", ");
  return a.kind === "strings" ? noun + ", each one of " + quoted : "one of " + quoted;
}
export function fault(a, v) {
  const want = what(a, true), got = type(v), item = kinds[a.kind][2];
  let n; // what the bounds bound: a number, a count of characters (code points) or of items
  if (a.kind === "map") {
    if (got !== "object") return want + ", got " + article(got);
    const bad = Object.values(v).find((x) => type(x) !== "string");
    return bad === undefined ? "" : want + ", got a map with " + article(type(bad));
  } else if (a.kind === "integer" && got === "number") {
    if (!Number.isInteger(v)) return want + ", got " + String(v);
    n = v;
  } else if (item) {
    if (got !== "array") return want + ", got " + article(got);
    for (const e of v) {
      if (type(e) !== item) return want + ", got a list with " + article(type(e));
      if (a.choices && !a.choices.includes(e)) return want + ", got a list with " + JSON.stringify(e);
    }
    n = v.length;
  } else if (got !== a.kind) return want + ", got " + got;
  else if (a.choices && !a.choices.includes(v)) return want + ", got " + JSON.stringify(v);
  else if (a.format && !formats[a.format][1](v)) return want + ", got " + JSON.stringify(v);
  else if (got === "string") n = [...v].length;
  else if (got === "number") n = v;
  else return "";
  const [lo, hi] = bounds(a), unit = { string: " character", strings: " item", numbers: " item", objects: " item" }[a.kind] ?? "";
  const plural = (f) => String(f) + unit + (unit && f !== 1 ? "s" : "");
  if (n < lo) return "at least " + plural(lo) + ", got " + String(n);
  if (n > hi) return "at most " + plural(hi) + ", got " + String(n);
  return "";
}
function check(args, given, path, problems) {
  for (const a of args) {
    const name = path + a.name;
    if (!Object.hasOwn(given, a.name)) { if (!a.optional) problems.push(`missing required argument "${name}" (${what(a, false)})`); continue; }
    const v = given[a.name], f = fault(a, v);
    if (f) problems.push(`argument "${name}" must be ${f}`);
    else if (a.kind === "object") check(a.args, v, name + ".", problems);
    else if (a.kind === "objects") v.forEach((e, i) => check(a.args, e, `${name}[${i}].`, problems));
  }
  const extra = Object.keys(given).find((k) => !args.some((a) => a.name === k));
  if (extra !== undefined) problems.push(`unexpected argument "${path}${extra}" (` + (args.length ? "allowed: " + args.map((a) => a.name).join(", ") : "the tool takes no arguments") + ")");
}
function call(t, args = {}, modern = false) {
  const problems = [];
  check(t.args, args, "", problems);
  if (problems.length) return { content: [{ type: "text", text: `Invalid arguments for tool ${t.name}: ` + problems.join("; ") }], isError: true };
  const read = {}, given = [];
  for (const a of t.args) {
    if (Object.hasOwn(args, a.name)) { read[a.name] = args[a.name]; given.push(a.name); }
    else read[a.name] = a.def ?? zero[a.kind];
  }
  let r = t.run(read, given);
  if (Array.isArray(r)) r = { text: r[0], isError: r[1] };
  const error = (text) => ({ content: [{ type: "text", text }], isError: true });
  if (r.isError) return error(r.text);
  let structured;
  if (t.output) {
    structured = {};
    for (const a of t.output) {
      if (!Object.hasOwn(r.output, a.name)) {
        if (!a.optional) return error(`tool ${t.name} did not set its output "${a.name}"`);
        continue;
      }
      const v = r.output[a.name];
      if (typeof v === "number" && !Number.isFinite(v)) return error(`tool ${t.name} set its output "${a.name}" to ${String(v)}, which must be a number JSON can write`);
      const f = fault(a, v);
      if (f) return error(`tool ${t.name} set its output "${a.name}" to ${JSON.stringify(r.output[a.name])}, which must be ${f}`);
      structured[a.name] = r.output[a.name];
    }
  }
  const text = r.text || (structured ? JSON.stringify(structured) : "");
  const b64 = (bytes) => Buffer.from(bytes, "latin1").toString("base64");
  const items = [...(r.attach ?? []).map((a) => ["attach", ...a]), ...(r.items ?? [])].map(([how, ...a], i) => {
    if (how === "link") { // 2024-11-05 and 2025-03-26 have no resource_link: a text item holds its URI.
      const [uri, name, mimeType] = a;
      return ["2024-11-05", "2025-03-26"].includes(agreed) && !modern ? { type: "text", text: uri }
        : { type: "resource_link", uri, name, ...(mimeType ? { mimeType } : {}) };
    }
    if (how === "embed" || how === "blob") {
      const [uri, mimeType, data] = a;
      return { type: "resource", resource: { uri, ...(mimeType ? { mimeType } : {}), ...(how === "embed" ? { text: data } : { blob: b64(data) }) } };
    }
    const [bytes, mimeType] = a, type = mimeType.split("/")[0];
    // 2024-11-05 has no audio content: an embedded resource holds it.
    return type === "audio" && agreed === "2024-11-05" && !modern ? { type: "resource", resource: { uri: "attachment://" + (i + 1), mimeType, blob: b64(bytes) } }
      : { type, data: b64(bytes), mimeType };
  });
  const content = r.noText ? items : [{ type: "text", text }, ...items];
  return structured ? { content, structuredContent: structured, isError: false } : { content, isError: false };
}
function schema(args) {
  const props = {}, required = [];
  for (const a of args) {
    let p = a.kind === "object" ? schema(a.args) : a.kind === "objects" ? { type: "array", items: schema(a.args) } : { ...kinds[a.kind][0] };
    if (a.choices && a.kind === "strings") p = { type: "array", items: a.titles ? { anyOf: titled(a) } : { type: "string", enum: a.choices } };
    if (a.description) p.description = a.description; // as the specification orders a form's members
    const [lo, hi] = bounds(a);
    if (lo !== -Infinity) p[boundNames[a.kind][0]] = lo;
    if (hi !== Infinity) p[boundNames[a.kind][1]] = hi;
    if (a.choices && a.kind !== "strings") Object.assign(p, a.titles ? { oneOf: titled(a) } : { enum: a.choices });
    if (a.def !== undefined) p.default = a.def;
    props[a.name] = p;
    if (!a.optional) required.push(a.name);
  }
  return { type: "object", properties: props, required, additionalProperties: false };
}
function listEntry(t) {
  const e = { name: t.name };
  if (t.title) e.title = t.title;
  Object.assign(e, { description: t.description, inputSchema: schema(t.args) });
  if (t.output) e.outputSchema = schema(t.output);
  const hints = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"].filter((h) => h in (t.annotations ?? {}));
  if (hints.length) e.annotations = Object.fromEntries(hints.map((h) => [h, t.annotations[h]]));
  return e;
}
let agreed = "2025-11-25"; // the version initialize agreed
const legacy = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
export function serve(tools) {
  const input = new TextDecoder().decode(readFileSync(0));
  const answer = (req) => {
    const modern = req.params?._meta?.["io.modelcontextprotocol/protocolVersion"] === "2026-07-28";
    let result;
    if (req.method === "initialize") {
      agreed = legacy.includes(req.params.protocolVersion) ? req.params.protocolVersion : legacy[0];
      result = { protocolVersion: agreed, capabilities: { tools: {}, resources: {} }, serverInfo: { name: "shipcode-mcp", version: "0.1.0" } };
    } else if (req.method === "tools/list") {
      result = { tools: tools.map(listEntry) };
      if (modern) result = { resultType: "complete", ...result, ttlMs: 3600000, cacheScope: "public" };
    } else {
      result = call(tools.find((t) => t.name === req.params.name), req.params.arguments, modern);
      if (modern) result = { resultType: "complete", ...result };
    }
    return { jsonrpc: "2.0", id: req.id, result };
  };
  for (const line of input.split("\n").slice(0, -1)) {
    const msg = JSON.parse(line);
    console.log(JSON.stringify(Array.isArray(msg) ? msg.map(answer) : answer(msg)));
  }
}
