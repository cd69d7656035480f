// Computes resources.out from resources.in with node: node resources.mjs <
// resources.in > resources.out. The resources are TestResourceFunctions'
// (see testResources in main_test.go): a template is matched as RFC 6570
// level 1 expands it, each variable a run of unreserved characters and
// %XX escapes, decoded as bytes, read as UTF-8 by the WHATWG decoder; a
// value that could step out of a folder does not match (see unsafe). A
// read that fails with code ENOENT is "Resource not found". A function's
// read is not cached in 2026-07-28.
import { readFileSync } from "node:fs";
import { type } from "../tools.mjs";

let reads = 0;
const resources = [
  { uri: "memo://welcome", name: "Welcome memo", mimeType: "text/plain", text: "Welcome to Shipcode MCP." },
  { uri: "notes://{topic}/today", name: "Notes", mimeType: "text/markdown", read: (v) => {
      if (v.topic === "missing") throw new Error("no notes on missing");
      return "# " + v.topic;
    } },
  { uri: "count://reads", name: "Reads", read: () => "read " + ++reads },
  { uri: "img://{id}", name: "Pixel", mimeType: "image/png", blob: true, read: (v) => "\x89PNG\r\n\x1a\n" + Buffer.from(v.id).toString("latin1") },
  { uri: "file://{path}", name: "File", read: (v) => {
      if (v.path === "gone") throw Object.assign(new Error("open /srv/notes/gone: no such file or directory"), { code: "ENOENT" });
      return "path=" + v.path;
    } },
  { uri: "repo://{owner}/{name}", name: "Repository", read: (v) => v.owner + "/" + v.name, complete: (name, value, vars) => {
      if (value === "slow") throw new Error("it did not finish within its time limit of 1s");
      if (value === "boom") throw new Error("no index");
      if (value === "panic") return "panic";
      const all = name === "owner" ? ["anna", "ann", "bob", "zoë"] : vars.owner === "anna" ? ["alpha", "atlas", "beta"]
        : Array.from({ length: 150 }, (_, i) => "r" + String(i).padStart(3, "0"));
      return all.filter((v) => v.startsWith(value));
    } },
];
// unsafe: empty, rooted (/, \\ or a drive letter), a segment . or .., or a
// control character.
const unsafe = (v) => v === "" || /^([\/\\]|[A-Za-z]:)/.test(v) || v.split(/[\/\\]/).some((s) => s === "." || s === "..") || /[\x00-\x1f\x7f]/.test(v);
const isTemplate = (u) => u.includes("{");
const decode = (s) => {
  const bytes = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "%") {
      if (!/^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) return null;
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16)); i += 2;
    } else bytes.push(s.charCodeAt(i));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
};
function match(template, uri) {
  const names = [], re = template.replace(/\{(\w+)\}|[^{]+/g, (m, name) => {
    if (name) { names.push(name); return "([A-Za-z0-9\\-._~%]+)"; }
    return m.replace(/[.*+?^$()|[\]\\/]/g, "\\$&");
  });
  const m = new RegExp("^" + re + "$").exec(uri);
  if (!m) return null;
  const vars = {};
  for (const [i, name] of names.entries()) if ((vars[name] = decode(m[i + 1])) === null || unsafe(vars[name])) return null;
  return vars;
}
const entry = (r, key, uri) => Object.assign({ [key]: uri, name: r.name }, r.mimeType ? { mimeType: r.mimeType } : {});
const item = (r, uri, data) => {
  const it = { uri };
  if (r.mimeType) it.mimeType = r.mimeType;
  if (r.blob) it.blob = Buffer.from(data, "latin1").toString("base64"); else it.text = data;
  return it;
};
// complete answers completion/complete: a template's complete function
// gives the values (the first 100, how many, whether more); the first
// fault in the params, an unknown template or variable, or a prompt is
// -32602.
function complete(p, modern) {
  const error = (code, message) => ({ error: { code, message } }), invalid = error(-32602, "Invalid params");
  const isObject = (v) => type(v) === "object", str = (v) => typeof v === "string";
  if (!isObject(p.ref)) return invalid;
  if (p.ref.type === "ref/prompt") return error(-32602, "Unknown prompt: mcp serves no prompts");
  if (p.ref.type !== "ref/resource" || !str(p.ref.uri)) return invalid;
  if (!isObject(p.argument) || !str(p.argument.name) || !str(p.argument.value)) return invalid;
  const given = p.context?.arguments;
  if (Object.hasOwn(p, "context") && !isObject(p.context) || given !== undefined && (!isObject(given) || !Object.values(given).every(str))) return invalid;
  const r = resources.find((r) => r.uri === p.ref.uri && isTemplate(r.uri));
  if (!r) return error(-32602, "Unknown resource template: " + p.ref.uri);
  const names = [...r.uri.matchAll(/\{(\w+)\}/g)].map((m) => m[1]), name = p.argument.name;
  if (!names.includes(name)) return error(-32602, `Unknown variable of ${r.uri}: ${name}`);
  const vars = Object.fromEntries(Object.entries(given ?? {}).filter(([k]) => k !== name && names.includes(k)));
  let values = [];
  if (r.complete) {
    try { values = r.complete(name, p.argument.value, vars); } catch (e) { return error(-32603, `Could not complete ${name}: ${e.message}`); }
    if (values === "panic") return error(-32603, "Internal error");
  }
  const completion = { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 };
  return { result: modern ? { resultType: "complete", completion } : { completion } };
}
function answer(req) {
  const modern = req.params?._meta?.["io.modelcontextprotocol/protocolVersion"] === "2026-07-28";
  const cached = (result) => modern ? { resultType: "complete", ...result, ttlMs: 3600000, cacheScope: "public" } : result;
  const reply = (result) => ({ jsonrpc: "2.0", id: req.id, result });
  switch (req.method) {
    case "initialize": { // a template completes: completions, but in 2024-11-05
      const v = req.params.protocolVersion;
      return reply({ protocolVersion: v, capabilities: { tools: {}, resources: {}, ...(v === "2024-11-05" ? {} : { completions: {} }) },
        serverInfo: { name: "shipcode-mcp", version: "0.1.0" } });
    }
    case "completion/complete":
      return { jsonrpc: "2.0", id: req.id, ...complete(req.params ?? {}, modern) };
    case "resources/list":
      return reply(cached({ resources: resources.filter((r) => !isTemplate(r.uri)).map((r) => entry(r, "uri", r.uri)) }));
    case "resources/templates/list":
      return reply(cached({ resourceTemplates: resources.filter((r) => isTemplate(r.uri)).map((r) => entry(r, "uriTemplate", r.uri)) }));
  }
  const uri = req.params.uri;
  for (const r of resources) {
    if (!r.read && r.uri === uri) return reply(cached({ contents: [item(r, uri, r.text)] }));
    const vars = r.read && match(r.uri, uri);
    if (!vars) continue;
    try {
      const contents = [item(r, uri, r.read(vars))];
      return reply(modern ? { resultType: "complete", contents, ttlMs: 0, cacheScope: "private" } : { contents });
    } catch (e) {
      if (e.code === "ENOENT") break;
      return { jsonrpc: "2.0", id: req.id, error: { code: -32603, message: "Could not read the resource: " + e.message, data: { uri } } };
    }
  }
  return { jsonrpc: "2.0", id: req.id, error: { code: modern ? -32602 : -32002, message: "Resource not found", data: { uri } } };
}
const input = new TextDecoder().decode(readFileSync(0));
for (const line of input.split("\n").slice(0, -1)) console.log(JSON.stringify(answer(JSON.parse(line))));
