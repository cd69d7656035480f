// Writes subscriptions_cancelled.out, the replies to
// subscriptions_cancelled.in, a run of 2026-07-28 subscriptions opened and
// cancelled in turn, from a list of those open: each is acknowledged at
// once; cancelled, it ends with no response; open at the end of input,
// it ends with a completion result, in the order opened:
//   node subscriptions_cancelled.mjs < subscriptions_cancelled.in > subscriptions_cancelled.out
import { readFileSync } from "node:fs";

const key = "io.modelcontextprotocol/subscriptionId";
let open = [];
for (const line of readFileSync(0, "utf8").split("\n").filter((l) => l !== "")) {
  const m = JSON.parse(line);
  if (m.method === "subscriptions/listen") {
    open.push(m.id);
    console.log(JSON.stringify({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { _meta: { [key]: m.id }, notifications: {} } }));
  } else if (m.method === "notifications/cancelled") {
    open = open.filter((id) => id !== m.params.requestId);
  }
}
for (const id of open) console.log(JSON.stringify({ jsonrpc: "2.0", id, result: { resultType: "complete", _meta: { [key]: id } } }));
