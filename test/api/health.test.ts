import { test } from "node:test";
import assert from "node:assert/strict";
import { routeGroup } from "../../src/ops/route-groups.ts";
import { startTestServer } from "../helpers/server.ts";

test("/health: OK while the database answers, 503 when it does not; no /metrics without a token", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const ok = await s.req(null, "GET", "/health");
  assert.deepEqual([ok.status, ok.text, ok.headers.get("content-type")], [200, "OK", "text/plain; charset=utf-8"]);
  assert.equal((await s.req(null, "GET", "/metrics", undefined, { authorization: "Bearer anything-at-all-here" })).status, 404);
  s.app.db.close();
  const down = await s.req(null, "GET", "/health");
  assert.deepEqual([down.status, down.text], [503, "database unavailable"]);
});

test("requests are counted under a bounded set of route groups", () => {
  const cases: [string, string][] = [
    ["/api/v1/timelines/home", "timelines"],
    ["/api/v1/statuses/123/favourite", "statuses"],
    ["/api/v1/accounts/search", "search"],
    ["/api/v1/accounts/1/statuses", "accounts"],
    ["/users/alice/inbox", "inbox"],
    ["/inbox", "inbox"],
    ["/users/alice/statuses/1", "activitypub"],
    ["/.well-known/webfinger", "discovery"],
    ["/system/media/x.png", "media_files"],
    ["/oauth/token", "oauth"],
    ["/api/v9/unknown", "api_other"],
    ["/@alice", "other"],
  ];
  assert.deepEqual(cases.map(([p]) => [p, routeGroup(p)]), cases);
});
