// The WebSocket streaming API (streaming.md §1, §2, §4): the handshake and its refusals,
// subscriptions, and the frames a bad client may send.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { entity, refusedUpgrade, TestSocket } from "../helpers/streaming.ts";
import { post } from "../helpers/posting.ts";
import { revokeAccessToken } from "../../src/services/oauth-token.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";

let s: TestServer;
let alice: TestUser, bob: TestUser;
before(async () => {
  s = await startTestServer();
  alice = await s.user("alice");
  bob = await s.user("bob");
});
after(() => s.close());

test("the handshake takes the token as sub-protocol (echoed), access_token or Authorization, on /api/v1/streaming with or without a slash", async () => {
  for (const [via, path] of [["protocol", "/api/v1/streaming"], ["query", "/api/v1/streaming/"], ["header", "/api/v1/streaming?stream=public"]] as const) {
    const socket = await TestSocket.open(s, alice.token, { via, path });
    // Browsers fail the handshake unless the offered protocol comes back.
    assert.equal(socket.ws.protocol, via === "protocol" ? alice.token : "", via);
    assert.match(String(socket.upgradeHeaders["x-request-id"]), /^[0-9a-f-]{36}$/);
    socket.close();
    await socket.closed;
  }
});

test("refused upgrades answer as Mastodon's streaming server: status, X-Error-Message, no body", async () => {
  const missing = await refusedUpgrade(s, null);
  assert.equal(missing.status, 401);
  assert.equal(missing.headers["x-error-message"], "Missing access token");
  assert.equal(missing.headers["content-length"], "0");
  assert.equal(missing.headers["connection"], "close");
  const bogus = await refusedUpgrade(s, "not-a-token", { via: "query" });
  assert.equal(bogus.status, 401);
  assert.equal(bogus.headers["x-error-message"], "Invalid access token");
  // An app token has no user: every stream needs one (Mastodon 4.2).
  const cli = ensureBuiltinApp(s.app, CLI_APP);
  const appToken = issueToken(s.app, { userId: null, applicationId: cli.id, scopes: ["read"] });
  assert.equal((await refusedUpgrade(s, appToken.token, { via: "header" })).headers["x-error-message"], "Invalid access token");
  const dead = issueToken(s.app, { userId: alice.user.id, applicationId: cli.id, scopes: ["read"] });
  revokeAccessToken(s.app, dead.id);
  assert.equal((await refusedUpgrade(s, dead.token)).status, 401);
  // Without an upgrade the path is a 404 (streaming is served on this same host).
  const plain = await s.req(alice, "GET", "/api/v1/streaming");
  assert.equal(plain.status, 404);
});

test("GET /api/v1/streaming/health answers OK as plain text, without a token", async () => {
  const r = await s.req(null, "GET", "/api/v1/streaming/health");
  assert.equal(r.status, 200);
  assert.equal(r.text, "OK");
  assert.match(r.headers.get("content-type") ?? "", /^text\/plain/);
  assert.equal(r.headers.get("cache-control"), "private, no-store");
});
