// Computes each NAME.out from NAME.in with node, and NAME.steps, how many
// lines are written once each line is read, by which TestAsk sends each
// line once the lines before it are answered: for f in *.in; do n=${f%.in};
// node ask.mjs $n < $f > $n.out; node ask.mjs $n --steps < $f > $n.steps;
// done. A NAME.tmpl is the NAME.in to be: node ask.mjs NAME --fill <
// NAME.tmpl > NAME.in writes into it the requestState each retry sends
// back (see fill). It models mcp with TestAsk's catalogue, askCatalogue,
// whose tools ask the person: in a legacy session, a question is an
// elicitation/create request, sent at once, which the client's response
// answers; in 2026-07-28, a question is the call's result, with the
// state, and the client's retry carries the answer and the state. At the
// end of the lines, NAME_eof's input ends, NAME_signal gets SIGTERM, and
// any other's questions wait until their time limit. The answers in the
// .in files are written as JSON.stringify writes them, so that the state,
// which holds them as they came, is the same text here.
import { readFileSync } from "node:fs";
import { createHash, createHmac } from "node:crypto";
import { arg, fault, what, zero, bounds, boundNames, type, titled } from "../tools.mjs";

const declined = "the user declined", dismissed = "the user dismissed the question";
const cannotAsk = "the client cannot ask the user";
const inputRequired = "the question goes back as the call's result; the client calls again with the answer";

// Each tool's run is a generator: it yields ask(message, fields) and is
// sent back { answer } (each field as read) or { error }; it returns
// [text, isError].
const ask = (message, ...fields) => ({ message, fields });
const askNamed = (name, message, ...fields) => ({ name, message, fields });
let fickleRuns = 0;
const tools = {
  delete: function* (a) {
    const r = yield ask(`Delete ${a.paths.length} files: ${a.paths.join(", ")}?`);
    return r.error ? [r.error, true] : ["deleted " + a.paths.join(", "), false];
  },
  order: function* () {
    const first = yield ask("What size, and how many?", arg("size", "string", { choices: ["S", "M", "L"] }),
      arg("count", "integer", { min: 1, max: 10, optional: true, def: 1 }));
    if (first.error) return [first.error, true];
    const second = yield ask("Gift wrap?", arg("wrap", "boolean", { optional: true }));
    if (second.error) return [second.error, true];
    return [`size=${first.answer.size} count=${first.answer.count} wrap=${second.answer.wrap}`, false];
  },
  form: function* () {
    const r = yield ask("Tell me about you", arg("name", "string", { description: "your name", min: 1, max: 20 }),
      arg("age", "integer", { min: 0, max: 150 }), arg("height", "number", { description: "in metres", min: 0.5, optional: true }),
      arg("subscribe", "boolean", { optional: true, def: true }),
      arg("color", "string", { choices: ["red", "green"], optional: true, def: "green" }), arg("note", "string", { optional: true }));
    if (r.error) return [r.error, true];
    const a = r.answer;
    return [`name=${a.name} age=${a.age} height=${String(a.height)} subscribe=${a.subscribe} color=${a.color} note=${a.note} given=${r.given.includes("note")}`, false];
  },
  careless: function* () {
    const r = yield ask("Sure?");
    return ["went on: " + (r.error ?? "<nil>"), false];
  },
  timed: function* () {
    const r = yield ask("Still there?");
    return r.error ? [r.error, true] : ["yes", false];
  },
  wait: function* () {
    yield null; // until cancelled
  },
  detached: function* () {
    const r = yield ask("Sure?");
    return r.error ? [r.error, true] : ["sure", false];
  },
  twice: function* (a) {
    const r = yield askNamed("user_name", "What is your name?", arg("name", "string"));
    if (r.error) return [r.error, true];
    const s = yield ask(`Greet ${r.answer.name} with ${a.what}?`);
    if (s.error) return [s.error, true];
    return [`hello ${r.answer.name} (${a.what})`, false];
  },
  fickle: function* () {
    const r = yield ask(`Sure? (${++fickleRuns})`);
    return r.error ? [r.error, true] : ["sure", false];
  },
  survey: function* () {
    const r = yield ask("About your order", arg("size", "string", { choices: ["s", "m", "l"], titles: ["Small", "Medium", "Large"] }),
      arg("extras", "strings", { choices: ["ice", "lemon"], max: 2, optional: true }),
      arg("toppings", "strings", { choices: ["nuts", "cream", "fudge"], titles: ["Nuts", "Whipped cream", "Hot fudge"], min: 1, max: 2, optional: true, def: ["cream"] }),
      arg("email", "string", { format: "email", description: "for the receipt" }), arg("site", "string", { format: "uri", optional: true }),
      arg("day", "string", { format: "date", optional: true }), arg("at", "string", { format: "date-time", min: 20, optional: true }));
    if (r.error) return [r.error, true];
    const a = r.answer;
    return [`size=${a.size} extras=${a.extras.join("|")} toppings=${a.toppings.join("|")} email=${a.email} site=${a.site} day=${a.day} at=${a.at}`, false];
  },
  pick: function* () {
    const r = yield ask("Which size, and when?", arg("size", "string", { choices: ["s", "l"], titles: ["Small", "Large"], optional: true, def: "l" }),
      arg("day", "string", { format: "date" }));
    return r.error ? [r.error, true] : [`size=${r.answer.size} day=${r.answer.day}`, false];
  },
  list: function* () {
    yield ask("Which?", arg("which", "strings")); // a form cannot hold it: a panic
  },
};

// The README's delete, for testdata/recipe/ask (TestREADME), asks and
// answers in words of its own.
if ((process.argv[2] ?? "").includes("recipe/")) tools.delete = function* (a) {
  const r = yield ask(`Delete ${a.paths.join(", ")}?`);
  return r.error ? [r.error, true] : ["Deleted " + a.paths.join(", "), false];
};

// form is a question's requestedSchema; oldForms, in 2025-06-18's
// shapes, whose titled choices are an enum and its enumNames.
function form(fields, oldForms) {
  const properties = {}, required = [];
  for (const a of fields) {
    const p = { type: a.kind === "strings" ? "array" : a.kind }, [lo, hi] = bounds(a);
    if (a.kind === "strings") p.items = a.titles ? { anyOf: titled(a) } : { type: "string", enum: a.choices };
    if (a.description) p.description = a.description;
    if (lo !== -Infinity) p[boundNames[a.kind][0]] = lo;
    if (hi !== Infinity) p[boundNames[a.kind][1]] = hi;
    if (a.format) p.format = a.format;
    if (a.choices && a.kind !== "strings")
      Object.assign(p, !a.titles ? { enum: a.choices } : oldForms ? { enum: a.choices, enumNames: a.titles } : { oneOf: titled(a) });
    if (a.def !== undefined) p.default = a.def;
    properties[a.name] = p;
    if (!a.optional) required.push(a.name);
  }
  return { type: "object", properties, required };
}

// read reads the client's answer to a question of fields: { answer,
// given } on accept, if its content fits them, else { error }. Members
// the fields do not name are ignored.
function read(r, fields) {
  const action = r?.action;
  if (action === "decline") return { error: declined };
  if (action === "cancel") return { error: dismissed };
  if (action !== "accept" || (Object.hasOwn(r, "content") && type(r.content) !== "object"))
    return { error: `the client's answer is not {"action":"accept"|"decline"|"cancel"}, with the content of a form on accept` };
  const content = r.content ?? {}, problems = [], answer = {}, given = [];
  for (const a of fields) {
    if (!Object.hasOwn(content, a.name)) {
      if (!a.optional) problems.push(`missing required field "${a.name}" (${what(a, false)})`);
      answer[a.name] = a.def ?? zero[a.kind];
      continue;
    }
    const f = fault(a, content[a.name]);
    if (f) problems.push(`field "${a.name}" must be ${f}`);
    answer[a.name] = content[a.name];
    given.push(a.name);
  }
  return problems.length ? { error: "the answer does not fit the question: " + problems.join("; ") } : { answer, given };
}

const formKinds = ["string", "number", "integer", "boolean"];
let written = 0; // lines written, for --steps
const out = (msg) => { written++; if (!filling && !stepping) console.log(JSON.stringify(msg)); };
const result = (text, isError, modern) => ({ ...(modern ? { resultType: "complete" } : {}), content: [{ type: "text", text }], isError });
const internal = { code: -32603, message: "Internal error" };
const invalidParams = { code: -32602, message: "Invalid params" };

// The replies owed, in request order: { id, reply, call }; a reply is
// written once those before it are; a question, at once.
// reply is next.
const owed = [];
let batching = false; // a batch's replies are written together, as one line
function flush() {
  if (batching) return;
  while (owed.length && owed[0].reply) out(owed.shift().reply);
}

// A legacy session's state.
let canAsk = false, asked = 0, agreed = "";
const canAskWith = (caps) => type(caps?.elicitation) === "object" && (Object.hasOwn(caps.elicitation, "form") || !Object.hasOwn(caps.elicitation, "url"));

// run runs tool for the request req, in a legacy session (entry, its place
// in owed) or a 2026-07-28 one (answers), until it returns or, legacy, asks.
function step(call, sent) {
  for (let next = call.gen.next(sent); ; next = call.gen.next(sent)) {
    if (next.done) return finish(call, next.value);
    const q = next.value;
    if (!q) return; // it waits
    if (!q.fields.every((a) => formKinds.includes(a.kind) || a.kind === "strings" && a.choices)) return finish(call, undefined, internal);
    const question = { message: q.message, requestedSchema: form(q.fields, call.oldForms) };
    const key = q.name ?? "ask-" + (call.n + 1), thisRound = [key, digest(JSON.stringify(question))], r = call.rounds[call.n];
    if (!call.canAsk) sent = { error: cannotAsk };
    else if (call.oldForms && q.fields.some((a) => a.kind === "strings")) sent = { error: cannotAsk + ": 2025-06-18 forms have no list of choices" };
    else if (call.modern && !call.pending && r && r[0] === key && r[1] === thisRound[1] && r.length === 3) sent = read(r[2], q.fields);
    else if (call.modern) {
      call.pending ??= { resultType: "input_required", inputRequests: { [key]: { method: "elicitation/create", params: question } },
        requestState: seal(call.name, call.args, [...call.rounds.slice(0, call.n), thisRound]) };
      sent = { error: inputRequired };
    } else {
      call.waiting = { id: "ask-" + ++asked, fields: q.fields };
      return out({ jsonrpc: "2.0", id: call.waiting.id, method: "elicitation/create", params: question });
    }
    call.n++;
  }
}

function finish(call, [text, isError] = [], error) {
  const res = call.pending ?? (error ? undefined : result(text, isError, call.modern));
  if (call.pending) states[call.id] = call.pending.requestState;
  call.entry.reply = { jsonrpc: "2.0", id: call.id, ...(res ? { result: res } : { error }) };
  flush();
}

// answered resumes the legacy call waiting for the question id, once
// sent, with sent; a response to one not sent is ignored.
function answered(id, sent) {
  const call = calls.find((c) => c.waiting?.id === id);
  if (!call) return; // ignored
  call.waiting = null;
  call.n++;
  step(call, sent);
}

// ended ends the wait of each legacy call still waiting: why, and the
// reason the client is told, if it was asked.
function ended(why, reason) {
  for (const call of calls.filter((c) => c.waiting)) {
    if (reason) out({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: call.waiting.id, reason } });
    if (why === "timeout") {
      call.waiting = null;
      finish(call, [`tool ${call.name} did not finish within its time limit of 100ms`, true]);
    } else answered(call.waiting.id, { error: why });
  }
}

// The request state of 2026-07-28: the tool, the digest of its arguments
// written canonically, each question's key, digest and answer (the last
// not yet answered), and when it expires, as JSON, base64url, then "."
// and its HMAC-SHA256, base64url; TestMain's key and clock.
const stateKey = Buffer.from("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "hex");
const now = Date.UTC(2026, 11, 1) / 1000, ttl = 600;
const digest = (text) => createHash("sha256").update(text).digest("base64url");
const sign = (payload, key = stateKey) => createHmac("sha256", key).update(payload).digest("base64url");
const byCodePoint = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const canonical = (v) => Array.isArray(v) ? `[${v.map(canonical).join(",")}]`
  : type(v) === "object" ? `{${Object.keys(v).sort(byCodePoint).map((k) => JSON.stringify(k) + ":" + canonical(v[k])).join(",")}}`
  : JSON.stringify(v);
function seal(tool, args, asked, expires = now + ttl, key = stateKey) {
  const payload = Buffer.from(JSON.stringify({ tool, arguments: digest(canonical(args)), asked, expires }));
  return payload.toString("base64url") + "." + sign(payload, key);
}
const isAnswer = (a) => type(a) === "object" && (["decline", "cancel"].includes(a.action) || a.action === "accept" && (!Object.hasOwn(a, "content") || type(a.content) === "object"));

// readRounds returns the questions a 2026-07-28 retry's state asked, the
// last answered by its inputResponses, or its error.
function readRounds(p, tool) {
  const refuse = (why) => ({ error: { code: -32602, message: "Invalid requestState: " + why } });
  if (Object.hasOwn(p, "inputResponses") && type(p.inputResponses) !== "object") return { error: invalidParams };
  if (!Object.hasOwn(p, "requestState")) return { rounds: [] };
  if (typeof p.requestState !== "string") return { error: invalidParams };
  const [body, sig] = [p.requestState.split(".")[0], p.requestState.split(".").slice(1).join(".")];
  const payload = Buffer.from(body, "base64url");
  if (sign(payload) !== sig) return refuse("not one mcp made, or made with another key");
  const state = JSON.parse(payload);
  if (state.expires < now) return refuse("expired");
  if (state.tool !== tool) return refuse("made for another tool");
  if (state.arguments !== digest(canonical(p.arguments ?? {}))) return refuse("made for other arguments");
  const rounds = state.asked, last = rounds.at(-1), responses = p.inputResponses ?? {};
  if (Object.hasOwn(responses, last[0])) {
    if (!isAnswer(responses[last[0]])) return { error: { code: -32602, message: `Invalid input response: ${last[0]} is not {"action":"accept"|"decline"|"cancel"}, with the content of a form on accept` } };
    last[2] = responses[last[0]];
  }
  return { rounds };
}

// fill fills a line of a template (NAME.tmpl) in: {{N}} is the state of
// the reply to id N; {{N|FROM>TO}} that state with FROM made TO in its
// payload, its signature kept; {{N|otherkey}} it signed with another key;
// {{N|expired}} it made a second before it would expire now.
function fill(line) {
  return line.replace(/\{\{(\d+)(?:\|([^}]*))?\}\}/g, (_, id, how) => {
    const state = states[id], [body, sig] = state.split(".");
    const payload = Buffer.from(body, "base64url").toString();
    if (!how) return state;
    if (how === "otherkey") return body + "." + sign(Buffer.from(payload), Buffer.alloc(32, 7));
    if (how === "expired") {
      const expired = payload.replace(/"expires":\d+/, `"expires":${now - 1}`);
      return Buffer.from(expired).toString("base64url") + "." + sign(Buffer.from(expired));
    }
    const [from, to] = how.split(">");
    return Buffer.from(payload.replace(from, to)).toString("base64url") + "." + sig;
  });
}
const states = {};

const calls = [];
function request(req, inBatch) {
  const meta = req.params?._meta, modern = meta?.["io.modelcontextprotocol/protocolVersion"] === "2026-07-28";
  const entry = { id: req.id };
  owed.push(entry);
  if (req.method === "initialize") {
    const v = req.params.protocolVersion;
    canAsk = ["2025-06-18", "2025-11-25"].includes(v) && canAskWith(req.params.capabilities);
    agreed = v;
    entry.reply = { jsonrpc: "2.0", id: req.id, result: { protocolVersion: v, capabilities: { tools: {}, resources: {} }, serverInfo: { name: "shipcode-mcp", version: "0.1.0" } } };
  } else if (req.method === "ping") entry.reply = { jsonrpc: "2.0", id: req.id, result: {} };
  else {
    const p = req.params, { rounds, error } = modern ? readRounds(p, p.name) : { rounds: [] };
    if (error) entry.reply = { jsonrpc: "2.0", id: req.id, error };
    else {
      const call = { id: req.id, name: p.name, args: p.arguments ?? {}, entry, modern, rounds, n: 0, gen: tools[p.name](p.arguments ?? {}),
        canAsk: !inBatch && (modern ? canAskWith(meta["io.modelcontextprotocol/clientCapabilities"]) : canAsk), oldForms: !modern && agreed === "2025-06-18" };
      calls.push(call);
      return step(call, undefined);
    }
  }
  if (!inBatch) flush();
}

const name = process.argv[2] ?? "", filling = process.argv[3] === "--fill", stepping = process.argv[3] === "--steps";
const steps = []; // lines written after each line read
for (let line of new TextDecoder().decode(readFileSync(0)).split("\n").slice(0, -1)) {
  if (filling) process.stdout.write((line = fill(line)) + "\n");
  const msg = JSON.parse(line);
  if (Array.isArray(msg)) { // legacy: a batch's calls cannot ask, and its replies are one line
    const start = owed.length;
    batching = true;
    msg.forEach((m) => "method" in m && request(m, true)); // a response in a batch answers nothing
    batching = false;
    const replies = owed.splice(start).map((e) => e.reply);
    if (replies.length) owed.push({ reply: replies });
    flush();
  } else if (!("method" in msg)) { // a response answers only as JSON-RPC 2.0 has it: an id, and a result or an error
    if (msg.jsonrpc === "2.0" && typeof msg.id === "string" && ("result" in msg) !== ("error" in msg))
      answered(msg.id, msg.error ? { error: `${cannotAsk}: the question got the error ${JSON.stringify(msg.error.message)}` } : read(msg.result, calls.find((c) => c.waiting?.id === msg.id)?.waiting.fields ?? []));
  }
  else if (msg.method === "notifications/cancelled") {
    const call = calls.find((c) => c.id === msg.params.requestId && !c.entry.reply);
    if (call.waiting) // the question was sent
      out({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: call.waiting.id, reason: "cancelled by the client" } });
    call.waiting = null;
    owed.splice(owed.indexOf(call.entry), 1);
    flush();
  } else request(msg, false);
  steps.push(written);
}
if (name.endsWith("_eof")) ended(`${cannotAsk}: its input ended`);
else if (name.endsWith("_signal")) ended("stopped by a signal", "stopped by a signal");
else ended("timeout", "time limit passed");
if (stepping) console.log(steps.join(" "));
