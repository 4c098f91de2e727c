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

test("several streams on one socket: public, hashtag (the tag as sent), list; subscribing twice is a no-op; unsubscribe", async () => {
  const carol = await s.user("carol");
  await s.api(carol, "POST", `/api/v1/accounts/${bob.id}/follow`);
  const list = await s.api(carol, "POST", "/api/v1/lists", { title: "friends" });
  await s.api(carol, "POST", `/api/v1/lists/${list.id}/accounts`, { account_ids: [bob.id] });
  await s.drainJobs();
  const socket = await TestSocket.open(s, carol.token);
  socket.subscribe("public");
  socket.subscribe("public"); // no-op
  socket.subscribe(["hashtag", "ignored"], { tag: "Café" }); // an array counts by its first element
  socket.subscribe("hashtag:local", { tag: "cafe" });
  socket.subscribe("list", { list: list.id });

  const p = await post(s, bob, { status: "coffee at the #café" });
  await s.drainJobs();
  const got = [await socket.nextEvent(), await socket.nextEvent(), await socket.nextEvent(), await socket.nextEvent()];
  const labels = got.map((e) => JSON.stringify(e.stream)).sort();
  assert.deepEqual(labels, [JSON.stringify(["hashtag", "Café"]), JSON.stringify(["hashtag:local", "cafe"]), JSON.stringify(["list", list.id]), JSON.stringify(["public"])]);
  for (const e of got) {
    assert.equal(e.event, "update");
    assert.equal(entity(e).id, p.id);
  }
  // Public and hashtag payloads are anonymous; the list one is rendered for its owner.
  assert.equal(entity(got.find((e) => e.stream![0] === "public")!).favourited, undefined);
  assert.equal(entity(got.find((e) => e.stream![0] === "list")!).favourited, false);

  socket.send({ type: "unsubscribe", stream: "public" });
  socket.send({ type: "unsubscribe", stream: "hashtag", tag: "café" });
  socket.send({ type: "unsubscribe", stream: "hashtag:local", tag: "cafe" });
  const unlisted = await post(s, bob, { status: "only the list sees this #café", visibility: "unlisted" });
  await s.drainJobs();
  const next = await socket.nextEvent();
  assert.deepEqual(next.stream, ["list", list.id]);
  assert.equal(entity(next).id, unlisted.id);
  socket.close();
});

test("bad frames: malformed JSON and unknown types are ignored, mistakes get an error frame, binary and huge frames close only that socket", async () => {
  const readOnlyNotes = (await s.user("dave", { scopes: ["read:notifications"] })).token;
  const socket = await TestSocket.open(s, alice.token);
  socket.send("{not json");
  socket.send("[1,2,3]");
  socket.send({ type: "dance", stream: "public" });
  socket.subscribe("nonsense");
  assert.deepEqual(await socket.next(), { error: "Unknown stream type", status: 400 });
  socket.send({ type: "subscribe", stream: 42 });
  assert.deepEqual(await socket.next(), { error: "Unknown stream type", status: 400 });
  socket.subscribe("hashtag");
  assert.deepEqual(await socket.next(), { error: "Missing tag name parameter", status: 400 });
  socket.subscribe("list");
  assert.deepEqual(await socket.next(), { error: "Missing list name parameter", status: 400 });
  const bobsList = await s.api(bob, "POST", "/api/v1/lists", { title: "mine" });
  socket.subscribe("list", { list: bobsList.id });
  assert.deepEqual(await socket.next(), { error: "Not authorized to stream this list", status: 401 });
  socket.subscribe("list", { list: "not-an-id" });
  assert.deepEqual(await socket.next(), { error: "Not authorized to stream this list", status: 401 });
  socket.send({ type: "unsubscribe", stream: "nonsense" });
  assert.deepEqual(await socket.next(), { error: "Error unsubscribing from channel" });

  // Scopes: the user stream needs read or read:statuses; notifications read:notifications.
  const limited = await TestSocket.open(s, readOnlyNotes);
  limited.subscribe("user");
  assert.deepEqual(await limited.next(), { error: "Access token does not have the required scopes", status: 401 });
  limited.subscribe("user:notification");
  limited.subscribe("public"); // public streams need any user token (Mastodon's checkScopes)

  const binary = await TestSocket.open(s, alice.token);
  binary.ws.send(Buffer.from([1, 2, 3]), { binary: true });
  assert.equal((await binary.closed).code, 1003);
  const huge = await TestSocket.open(s, alice.token);
  huge.send({ type: "subscribe", stream: "public", tag: "x".repeat(200_000) });
  assert.equal((await huge.closed).code, 1009);

  // The first socket still works after all of it.
  socket.subscribe("public");
  const p = await post(s, bob, { status: "still here" });
  await s.drainJobs();
  const e = await socket.nextEvent();
  assert.deepEqual(e.stream, ["public"]);
  assert.equal(entity(e).id, p.id);
  const l = await limited.nextEvent();
  assert.deepEqual(l.stream, ["public"]);
  socket.close();
  limited.close();
});
