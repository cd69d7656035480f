// Makes escape_letters.in, an echo call for each byte 0x00-0xFF after a
// backslash in the text ("a\X0041b"), and computes escape_letters.out from
// it as JSON.parse reads each line and JSON.stringify writes the reply:
//   node escape_letters.mjs in > escape_letters.in
//   node escape_letters.mjs < escape_letters.in > escape_letters.out
// Exactly " \ / b f n r t u are escapes; any other byte is a Parse error.
import { readFileSync } from "node:fs";

if (process.argv[2] === "in") {
  const lines = [];
  for (let x = 0; x < 256; x++) {
    const head = `{"jsonrpc":"2.0","id":${x},"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\\`;
    lines.push(Buffer.concat([Buffer.from(head), Buffer.from([x]), Buffer.from(`0041b"}}}\n`)]));
  }
  process.stdout.write(Buffer.concat(lines));
} else {
  const parseError = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } };
  const input = readFileSync(0);
  for (let line of new TextDecoder().decode(input).split("\n").slice(0, -1)) {
    line = line.replace(/\r$/, "");
    let msg;
    try { msg = JSON.parse(line); } catch { console.log(JSON.stringify(parseError)); continue; }
    const text = msg.params.arguments.text;
    console.log(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text }], isError: false } }));
  }
}
