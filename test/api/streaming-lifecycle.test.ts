// The life of a streaming connection (issue 11 parts 4 and 5): tokens that die close their
// streams, caps per account and per address, clients that stop reading are dropped, shutdown
// closes everything, and the logs count connections.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openDatabase } from "../../src/db/db.ts";
import { databasePath } from "../../src/services/init.ts";
import { publishAnnouncement } from "../../src/services/stream-events.ts";
import { issueToken } from "../../src/services/tokens.ts";
import { revokeToken } from "../../src/storage/tokens.ts";
import { eventually } from "../helpers/fake-remote.ts";
import { startTestServer } from "../helpers/server.ts";
import { openEventStream, refusedUpgrade, TestEventStream, TestSocket } from "../helpers/streaming.ts";

test("revoking the token closes its sockets and SSE streams; other tokens keep theirs", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const client = await s.api(null, "POST", "/api/v1/apps", { client_name: "Elk", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", scopes: "read" });
  const { token } = issueToken(s.app, { userId: alice.user.id, applicationId: client.id, scopes: ["read"] });
  const socket = await TestSocket.open(s, token, { path: "/api/v1/streaming?stream=user" });
  const sse = await openEventStream(s, token, "/api/v1/streaming/public");
  const other = await TestSocket.open(s, alice.token, { path: "/api/v1/streaming?stream=user" });

  const r = await s.req(null, "POST", "/oauth/revoke", new URLSearchParams({ token, client_id: client.client_id, client_secret: client.client_secret }));
  assert.equal(r.status, 200);
  await socket.closed;
  await sse.ended;
  await eventually(() => s.app.streams!.size === 1, 5000, "the hub to forget the closed streams");
  // The survivor still gets events.
  publishAnnouncement(s.app, '{"id":"1"}');
  assert.equal((await other.nextEvent()).event, "announcement");
  other.close();
});

test("a token revoked by another process (a roost command) closes its streams through the token sweep", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const cli = await s.api(null, "POST", "/api/v1/apps", { client_name: "Ivory", redirect_uris: "urn:ietf:wg:oauth:2.0:oob" });
  const issued = issueToken(s.app, { userId: alice.user.id, applicationId: cli.id, scopes: ["read"] });
  const socket = await TestSocket.open(s, issued.token, { path: "/api/v1/streaming?stream=user" });
  // Another connection to the database, as `roost` in another process has: no event reaches
  // this server's bus, only the committed row.
  const db = openDatabase(databasePath(s.dataDir));
  try {
    revokeToken(db, issued.id, Date.now());
  } finally {
    db.close();
  }
  await socket.closed;
  await eventually(() => s.app.streams!.size === 0, 5000, "the hub to forget the closed socket");
});

test("connection caps per account and per address: 429 on the upgrade and on SSE", async (t) => {
  const s = await startTestServer({ config: { streamingMaxPerUser: 2, streamingMaxPerIp: 3 } });
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const a1 = await TestSocket.open(s, alice.token);
  const a2 = await openEventStream(s, alice.token, "/api/v1/streaming/user");
  const overUser = await refusedUpgrade(s, alice.token);
  assert.equal(overUser.status, 429);
  assert.equal(overUser.headers["x-error-message"], "Too many streaming connections for this account");
  const sseOver = await TestEventStream.open(s, alice.token, "/api/v1/streaming/user");
  assert.ok(!(sseOver instanceof TestEventStream));
  assert.equal(sseOver.status, 429);
  assert.deepEqual(sseOver.body, { error: "Too many streaming connections for this account" });

  const b1 = await TestSocket.open(s, bob.token);
  const overIp = await refusedUpgrade(s, bob.token);
  assert.equal(overIp.status, 429);
  assert.equal(overIp.headers["x-error-message"], "Too many streaming connections from this address");
  // A closed connection frees its place.
  a1.close();
  await a1.closed;
  await eventually(() => s.app.streams!.size === 2, 5000, "the hub to forget the closed socket");
  const b2 = await TestSocket.open(s, bob.token);
  a2.close();
  b1.close();
  b2.close();
});

test("a WebSocket or SSE client that stops reading is dropped once its buffer passes the bound; others carry on", async (t) => {
  const lines: string[] = [];
  const s = await startTestServer({ config: { streamingBufferBytes: 64 * 1024, logLevel: "warn" }, logTo: (l) => lines.push(l) });
  t.after(() => s.close());
  const alice = await s.user("alice");
  const slow = await TestSocket.open(s, alice.token, { path: "/api/v1/streaming?stream=user" });
  const slowSse = await openEventStream(s, alice.token, "/api/v1/streaming/user");
  const reader = await TestSocket.open(s, alice.token, { path: "/api/v1/streaming?stream=user" });
  (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
  slowSse.res.pause();
  // Announcements of 256 KB until both slow clients are gone: kernel buffers take a few MB first.
  const big = JSON.stringify({ id: "1", content: "x".repeat(256 * 1024) });
  let received = 0;
  for (let i = 0; i < 400 && s.app.streams!.size > 1; i++) {
    publishAnnouncement(s.app, big);
    await reader.nextEvent();
    received++;
  }
  assert.equal(s.app.streams!.size, 1, "both slow clients were dropped");
  const dropped = lines.map((l) => JSON.parse(l)).filter((e) => e.msg === "stream dropped: client not reading");
  assert.deepEqual(dropped.map((e) => e.transport).sort(), ["sse", "websocket"]);
  assert.ok(dropped.every((e) => e.bufferedBytes > 64 * 1024));
  assert.ok(received > 1);
  (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
  slowSse.res.resume();
  assert.equal((await slow.closed).code, 1006); // cut, not closed politely
  await slowSse.ended;
  reader.close();
});

test("shutdown closes WebSockets (1001) and ends SSE responses; the logs count connections", async () => {
  const lines: string[] = [];
  const s = await startTestServer({ config: { logLevel: "info" }, logTo: (l) => lines.push(l) });
  const alice = await s.user("alice");
  const socket = await TestSocket.open(s, alice.token, { path: "/api/v1/streaming?stream=user" });
  const sse = await openEventStream(s, alice.token, "/api/v1/streaming/user");
  const entries = () => lines.map((l) => JSON.parse(l));
  const opened = entries().filter((e) => e.msg === "stream opened");
  assert.deepEqual(opened.map((e) => [e.transport, e.accountId, e.connections]), [["websocket", alice.id, 1], ["sse", alice.id, 2]]);
  await s.close();
  assert.deepEqual(await socket.closed, { code: 1001, reason: "Server shutting down" });
  await sse.ended;
  const closed = entries().filter((e) => e.msg === "stream closed");
  assert.deepEqual(closed.map((e) => e.connections).sort(), [0, 1]);
  // The SSE response was a request like any other: it has its access-log line.
  assert.ok(entries().some((e) => e.msg === "request" && e.path === "/api/v1/streaming/user" && e.status === 200));
});
