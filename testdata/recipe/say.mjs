// Computes say.out from say.in with node, as JavaScript reads and writes
// JSON: node say.mjs < say.in > say.out. The tool is the README's runSay,
// and echo; strings.ToUpper is modelled as Go runs it, a lone surrogate
// becoming three U+FFFD (its three WTF-8 bytes, each invalid).
import { readFileSync } from "node:fs";

const input = new TextDecoder().decode(readFileSync(0));
const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const goUpper = (s) => s.replace(lone, "\ufffd\ufffd\ufffd").toUpperCase();
const tools = {
  say: { args: ["who", "text"], run: (a) => a.who === ""
    ? [`"who" is empty: name who said it`, true]
    : [goUpper(a.who) + ` said "` + a.text + `"\nFiled under C:\\quotes\\`, false] },
  echo: { args: ["text"], run: (a) => [a.text, false] },
};
function call(req) {
  const t = tools[req.params.name], args = req.params.arguments;
  const problems = [];
  for (const name of t.args) {
    if (!(name in args)) problems.push(`missing required argument "${name}" (string)`);
    else if (typeof args[name] !== "string") problems.push(`argument "${name}" must be a string, got ${typeof args[name]}`);
  }
  const extra = Object.keys(args).find((k) => !t.args.includes(k));
  if (extra !== undefined) problems.push(`unexpected argument "${extra}" (allowed: ${t.args.join(", ")})`);
  const [text, isError] = problems.length
    ? [`Invalid arguments for tool ${req.params.name}: ` + problems.join("; "), true]
    : t.run(args);
  return { jsonrpc: "2.0", id: req.id, result: { content: [{ type: "text", text }], isError } };
}
for (const line of input.split("\n").slice(0, -1)) {
  const msg = JSON.parse(line);
  console.log(JSON.stringify(Array.isArray(msg) ? msg.map(call) : call(msg)));
}
