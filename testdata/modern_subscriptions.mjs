// Writes modern_subscriptions.out, the replies to modern_subscriptions.in
// as the 2026-07-28 specification shapes them (basic/patterns/
// subscriptions): node modern_subscriptions.mjs > modern_subscriptions.out.
// A subscription is acknowledged at once, agreeing to no notifications
// (nothing here changes); cancelled, it ends with no response; open at
// the end of input, it ends with a completion result. Without 2026-07-28's
// _meta, subscriptions/listen is Method not found.
const ack = (id) => ({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged",
  params: { _meta: { "io.modelcontextprotocol/subscriptionId": id }, notifications: {} } });
const templates = (id) => ({ jsonrpc: "2.0", id, result: { resultType: "complete", resourceTemplates: [], ttlMs: 3600000, cacheScope: "public" } });
for (const m of [
  ack("s1"), templates(2), ack(3),
  { jsonrpc: "2.0", id: 4, error: { code: -32601, message: "Method not found" } },
  templates(5),
  { jsonrpc: "2.0", id: 3, result: { resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": 3 } } },
]) console.log(JSON.stringify(m));
