// How mcp checks and lists tools, in JavaScript, for the scripts that
// compute expected replies with node (kinds/kinds.mjs, recipe/greet.mjs):
// serve(tools) answers the tools/list and tools/call lines on stdin, as
// JSON.parse reads them and JSON.stringify writes the replies. A tool is
// { name, title?, description, annotations?, args, run(read, given) },
// run returning [text, isError]; an argument is arg(name, kind, more),
// more holding description, choices, min, max, optional and def.
import { readFileSync } from "node:fs";

export const arg = (name, kind, more = {}) => ({ name, kind, ...more });
const article = (w) => ("aeiou".includes(w[0]) ? "an " : "a ") + w;
const type = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const kinds = {
  string: [{ type: "string" }, "string"], number: [{ type: "number" }, "number"],
  integer: [{ type: "integer" }, "integer"], boolean: [{ type: "boolean" }, "boolean"],
  strings: [{ type: "array", items: { type: "string" } }, "list of strings", "string"],
  numbers: [{ type: "array", items: { type: "number" } }, "list of numbers", "number"],
};
const zero = { string: "", number: 0, integer: 0, boolean: false, strings: [], numbers: [] };
const SAFE = 2 ** 53 - 1;
const boundNames = { string: ["minLength", "maxLength"], number: ["minimum", "maximum"], integer: ["minimum", "maximum"],
  strings: ["minItems", "maxItems"], numbers: ["minItems", "maxItems"] };
const bounds = (a) => [a.min ?? (a.kind === "integer" ? -SAFE : -Infinity), a.max ?? (a.kind === "integer" ? SAFE : Infinity)];
function what(a, withArticle) {
  const noun = withArticle ? article(kinds[a.kind][1]) : kinds[a.kind][1];
  if (!a.choices) return noun;
  const quoted = a.choices.map((c) => JSON.stringify(c)).join(", ");
  return a.kind === "strings" ? noun + ", each one of " + quoted : "one of " + quoted;
}
function fault(a, v) {
  const want = what(a, true), got = type(v), item = kinds[a.kind][2];
  let n; // what the bounds bound: a number, a count of characters (code points) or of items
  if (a.kind === "integer" && got === "number") {
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
  else if (got === "string") n = [...v].length;
  else if (got === "number") n = v;
  else return "";
  const [lo, hi] = bounds(a), unit = { string: " character", strings: " item", numbers: " item" }[a.kind] ?? "";
  const plural = (f) => String(f) + unit + (unit && f !== 1 ? "s" : "");
  if (n < lo) return "at least " + plural(lo) + ", got " + String(n);
  if (n > hi) return "at most " + plural(hi) + ", got " + String(n);
  return "";
}
function call(t, args = {}) {
  const problems = [];
  for (const a of t.args) {
    if (!Object.hasOwn(args, a.name)) { if (!a.optional) problems.push(`missing required argument "${a.name}" (${what(a, false)})`); continue; }
    const f = fault(a, args[a.name]);
    if (f) problems.push(`argument "${a.name}" must be ${f}`);
  }
  const extra = Object.keys(args).find((k) => !t.args.some((a) => a.name === k));
  if (extra !== undefined) problems.push(`unexpected argument "${extra}" (` + (t.args.length ? "allowed: " + t.args.map((a) => a.name).join(", ") : "the tool takes no arguments") + ")");
  if (problems.length) return [`Invalid arguments for tool ${t.name}: ` + problems.join("; "), true];
  const read = {}, given = [];
  for (const a of t.args) {
    if (Object.hasOwn(args, a.name)) { read[a.name] = args[a.name]; given.push(a.name); }
    else read[a.name] = a.def ?? zero[a.kind];
  }
  return t.run(read, given);
}
function listEntry(t) {
  const props = {}, required = [];
  for (const a of t.args) {
    let p = { ...kinds[a.kind][0] };
    if (a.choices && a.kind === "strings") p = { type: "array", items: { type: "string", enum: a.choices } };
    else if (a.choices) p.enum = a.choices;
    const [lo, hi] = bounds(a);
    if (lo !== -Infinity) p[boundNames[a.kind][0]] = lo;
    if (hi !== Infinity) p[boundNames[a.kind][1]] = hi;
    if (a.description) p.description = a.description;
    if (a.def !== undefined) p.default = a.def;
    props[a.name] = p;
    if (!a.optional) required.push(a.name);
  }
  const e = { name: t.name };
  if (t.title) e.title = t.title;
  Object.assign(e, { description: t.description, inputSchema: { type: "object", properties: props, required, additionalProperties: false } });
  const hints = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"].filter((h) => h in (t.annotations ?? {}));
  if (hints.length) e.annotations = Object.fromEntries(hints.map((h) => [h, t.annotations[h]]));
  return e;
}
export function serve(tools) {
  const input = new TextDecoder().decode(readFileSync(0));
  const answer = (req) => {
    const modern = req.params?._meta?.["io.modelcontextprotocol/protocolVersion"] === "2026-07-28";
    let result;
    if (req.method === "tools/list") {
      result = { tools: tools.map(listEntry) };
      if (modern) result = { resultType: "complete", ...result, ttlMs: 3600000, cacheScope: "public" };
    } else {
      const [text, isError] = call(tools.find((t) => t.name === req.params.name), req.params.arguments);
      result = { content: [{ type: "text", text }], isError };
    }
    return { jsonrpc: "2.0", id: req.id, result };
  };
  for (const line of input.split("\n").slice(0, -1)) {
    const msg = JSON.parse(line);
    console.log(JSON.stringify(Array.isArray(msg) ? msg.map(answer) : answer(msg)));
  }
}
