import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";

test("server starts, answers /health and a JSON 404 for unknown API paths", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const h = await s.req(null, "GET", "/health");
  assert.equal(h.status, 200);
  assert.equal(h.text, "OK");
  const nf = await s.req(null, "GET", "/api/v1/nope");
  assert.equal(nf.status, 404);
  assert.deepEqual(nf.body, { error: "Not Found" });
  assert.equal(nf.headers.get("access-control-allow-origin"), "*");
  for (const removed of ["/api/v1/search?q=x", "/api/v1/statuses/1/card", "/api/v1/timelines/direct"]) {
    const r = await s.req(null, "GET", removed);
    assert.equal(r.status, 404, removed);
  }
  const alice = await s.user("alice");
  assert.match(alice.id, /^\d+$/);
  assert.ok(alice.account.publicKeyPem?.startsWith("-----BEGIN PUBLIC KEY-----"));
});
