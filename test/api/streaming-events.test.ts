// Every event type on the WebSocket and SSE streams (streaming.md §4.2, §5, §6): what a
// second user's actions produce, with `stream` on each WebSocket event, payloads as strings
// and ids as strings inside them.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { entity, openEventStream, type StreamEvent, TestSocket } from "../helpers/streaming.ts";
import { post } from "../helpers/posting.ts";
import {
  publishAnnouncement,
  publishAnnouncementDeleted,
  publishAnnouncementReaction,
  publishFiltersChanged,
  publishNotificationsMerged,
} from "../../src/services/stream-events.ts";

let s: TestServer;
let alice: TestUser, bob: TestUser;
before(async () => {
  s = await startTestServer();
  alice = await s.user("alice");
  bob = await s.user("bob");
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
  await s.drainJobs(); // the follow's home merge
});
after(() => s.close());

/** The next `n` events, in any order (one action may publish several). */
async function nextEvents(socket: { nextEvent?: () => Promise<StreamEvent>; next: () => Promise<any> }, n: number): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for (let i = 0; i < n; i++) out.push(socket.nextEvent ? await socket.nextEvent() : await socket.next());
  return out.sort((a, b) => a.event.localeCompare(b.event));
}

test("user stream: update, status.update, notification and delete from another user's actions", async () => {
  const user = await TestSocket.open(s, alice.token, { path: "/api/v1/streaming?stream=user" });
  const notes = await TestSocket.open(s, alice.token);
  notes.subscribe("user:notification");

  const first = await post(s, bob, { status: "hello from bob" });
  await s.drainJobs();
  const update = await user.nextEvent();
  assert.deepEqual(update.stream, ["user"]);
  assert.equal(update.event, "update");
  assert.equal(typeof update.payload, "string");
  const status = entity(update);
  assert.equal(status.id, first.id);
  assert.equal(status.account.id, bob.id);
  assert.equal(status.content, "<p>hello from bob</p>");
  // Rendered for the recipient: the viewer's own fields are there.
  assert.equal(status.favourited, false);
  assert.deepEqual(status.filtered, []);

  await s.api(bob, "PUT", `/api/v1/statuses/${first.id}`, { status: "hello again from bob" });
  await s.drainJobs();
  const edited = await user.nextEvent();
  assert.equal(edited.event, "status.update");
  assert.deepEqual(edited.stream, ["user"]);
  assert.equal(entity(edited).id, first.id);
  assert.equal(entity(edited).content, "<p>hello again from bob</p>");
  assert.notEqual(entity(edited).edited_at, null);

  const mention = await post(s, bob, { status: "@alice are you there?" });
  await s.drainJobs();
  const [notification, home] = await nextEvents(user, 2);
  assert.equal(home.event, "update");
  assert.equal(entity(home).id, mention.id);
  assert.equal(notification.event, "notification");
  assert.deepEqual(notification.stream, ["user"]);
  const n = entity(notification);
  assert.equal(n.type, "mention");
  assert.equal(typeof n.id, "string");
  assert.equal(n.account.id, bob.id);
  assert.equal(n.status.id, mention.id);
  const only = await notes.nextEvent();
  assert.deepEqual(only.stream, ["user:notification"]);
  assert.equal(only.event, "notification");
  assert.equal(entity(only).id, n.id);

  const mine = await post(s, alice, { status: "a post to favourite" });
  await s.drainJobs();
  assert.equal(entity(await user.nextEvent()).id, mine.id); // alice's own post in her home
  await s.api(bob, "POST", `/api/v1/statuses/${mine.id}/favourite`);
  await s.drainJobs();
  const fav = await notes.nextEvent();
  assert.equal(entity(fav).type, "favourite");
  assert.equal(entity(fav).status.id, mine.id);
  assert.equal(entity(await user.nextEvent()).type, "favourite");

  await s.api(bob, "DELETE", `/api/v1/statuses/${first.id}`);
  await s.drainJobs();
  const deleted = await user.nextEvent();
  assert.deepEqual(deleted, { stream: ["user"], event: "delete", payload: first.id });
  user.close();
  notes.close();
});

test("direct messages: a conversation event on the direct stream, again when it is marked read", async () => {
  const direct = await TestSocket.open(s, alice.token, { path: "/api/v1/streaming?stream=direct" });
  const dm = await post(s, bob, { status: "@alice just between us", visibility: "direct" });
  await s.drainJobs();
  const e = await direct.nextEvent();
  assert.deepEqual(e.stream, ["direct"]);
  assert.equal(e.event, "conversation");
  const c = entity(e);
  assert.equal(typeof c.id, "string");
  assert.equal(c.unread, true);
  assert.equal(c.last_status.id, dm.id);
  assert.deepEqual(c.accounts.map((a: { id: string }) => a.id), [bob.id]);
  await s.api(alice, "POST", `/api/v1/conversations/${c.id}/read`);
  const read = await direct.nextEvent();
  assert.equal(entity(read).id, c.id);
  assert.equal(entity(read).unread, false);
  direct.close();
});

test("filters_changed (no payload), announcements and notifications_merged reach the user stream", async () => {
  const user = await TestSocket.open(s, alice.token, { path: "/api/v1/streaming?stream=user" });
  const notes = await TestSocket.open(s, alice.token, { path: "/api/v1/streaming?stream=user:notification" });
  // Published by the services these events belong to (the filters and announcements code).
  publishFiltersChanged(s.app, alice.id);
  assert.deepEqual(await user.next(), { stream: ["user"], event: "filters_changed" });
  const announcement = JSON.stringify({ id: "8", content: "<p>Maintenance tonight</p>", published: true });
  publishAnnouncement(s.app, announcement);
  assert.deepEqual(await user.next(), { stream: ["user"], event: "announcement", payload: announcement });
  publishAnnouncementReaction(s.app, { name: "👍", count: 3, announcement_id: "8" });
  assert.deepEqual(await user.next(), { stream: ["user"], event: "announcement.reaction", payload: '{"name":"👍","count":3,"announcement_id":"8"}' });
  publishAnnouncementDeleted(s.app, "8");
  assert.deepEqual(await user.next(), { stream: ["user"], event: "announcement.delete", payload: "8" });
  publishNotificationsMerged(s.app, alice.id);
  assert.deepEqual(await user.next(), { stream: ["user"], event: "notifications_merged", payload: "1" });
  assert.deepEqual(await notes.next(), { stream: ["user:notification"], event: "notifications_merged", payload: "1" });
  user.close();
  notes.close();
});

test("SSE: /api/v1/streaming/user starts with `:)`, sends `event:`/`data:` blocks, heartbeats with `:thump`", async () => {
  const sse = await openEventStream(s, alice.token, "/api/v1/streaming/user");
  assert.equal(sse.res.headers["content-type"], "text/event-stream");
  assert.equal(sse.res.headers["cache-control"], "private, no-store");
  assert.equal(sse.res.headers["access-control-allow-origin"], "*");
  const p = await post(s, bob, { status: "over SSE" });
  await s.drainJobs();
  const e = await sse.next();
  assert.equal(e.event, "update");
  assert.equal(entity(e).id, p.id);
  assert.deepEqual(sse.comments, [")"]);
  await s.api(bob, "DELETE", `/api/v1/statuses/${p.id}`);
  await s.drainJobs();
  assert.deepEqual(await sse.next(), { event: "delete", payload: p.id });
  // Without a payload the data line still comes (EventSource drops events without data).
  publishFiltersChanged(s.app, alice.id);
  assert.deepEqual(await sse.next(), { event: "filters_changed", payload: "undefined" });
  s.app.streams!.heartbeat();
  publishNotificationsMerged(s.app, alice.id);
  assert.equal((await sse.next()).event, "notifications_merged");
  assert.deepEqual(sse.comments, [")", "thump"]);
  sse.close();
});

test("SSE refusals are JSON: unknown channel 400, no token 401, missing tag 400, another's list 401, scopes 401", async () => {
  const bad = async (token: string | null, path: string) => {
    const r = await (await import("../helpers/streaming.ts")).TestEventStream.open(s, token, path);
    assert.ok(!("events" in r), `${path} was accepted`);
    return [r.status, r.body];
  };
  assert.deepEqual(await bad(alice.token, "/api/v1/streaming/nonsense"), [400, { error: "Unknown channel requested" }]);
  assert.deepEqual(await bad(null, "/api/v1/streaming/user"), [401, { error: "Missing access token" }]);
  assert.deepEqual(await bad("bogus", "/api/v1/streaming/public"), [401, { error: "Invalid access token" }]);
  assert.deepEqual(await bad(alice.token, "/api/v1/streaming/hashtag"), [400, { error: "Missing tag name parameter" }]);
  const bobs = await s.api(bob, "POST", "/api/v1/lists", { title: "bob's" });
  assert.deepEqual(await bad(alice.token, `/api/v1/streaming/list?list=${bobs.id}`), [401, { error: "Not authorized to stream this list" }]);
  const statusesOnly = await s.user("erin", { scopes: ["read:statuses"] });
  assert.deepEqual(await bad(statusesOnly.token, "/api/v1/streaming/user/notification"), [401, { error: "Access token does not have the required scopes" }]);
});

test("a read:statuses token's user stream carries the home feed but no notifications", async () => {
  const frank = await s.user("frank", { scopes: ["read:statuses", "write:statuses", "write:follows"] });
  await s.api(frank, "POST", `/api/v1/accounts/${bob.id}/follow`);
  await s.drainJobs();
  const user = await openEventStream(s, frank.token, "/api/v1/streaming/user");
  const p = await post(s, bob, { status: "@frank hi" });
  await s.drainJobs();
  // A mention: the home update comes, the notification does not (it would have come first).
  const e = await user.next();
  assert.equal(e.event, "update");
  assert.equal(entity(e).id, p.id);
  publishNotificationsMerged(s.app, frank.id);
  const q = await post(s, bob, { status: "bye" });
  await s.drainJobs();
  assert.equal(entity(await user.next()).id, q.id);
  user.close();
});
