// Announcement events on the user stream (streaming.md §6): `announcement` when staff publish or
// edit one (also at its scheduled time), `announcement.reaction` with the emoji's new count,
// `announcement.delete` when it is unpublished, deleted or ends; over WebSocket and SSE, from the
// real admin API and reaction endpoints, with the payload strings Mastodon sends.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { entity, openEventStream, TestSocket } from "../helpers/streaming.ts";
import { png } from "./accounts-helpers.ts";
import { createCustomEmoji } from "../../src/services/custom-emojis.ts";
import { publishFiltersChanged } from "../../src/services/stream-events.ts";

const ADMIN = ["read", "write", "admin:read", "admin:write"];
const HOUR = 3_600_000;

let s: TestServer;
let owner: TestUser, bob: TestUser, carol: TestUser;
before(async () => {
  s = await startTestServer();
  owner = await s.user("owner", { role: "owner", scopes: ADMIN });
  bob = await s.user("bob");
  carol = await s.user("carol");
  await createCustomEmoji(s.app, { shortcode: "party_parrot", data: await png(16, 16), contentType: "image/png" });
});
after(() => s.close());

const admin = (method: string, path: string, body?: unknown) => s.api(owner, method, `/api/roost/v1/admin/announcements${path}`, body);
const react = (who: TestUser, id: string, name: string, method = "PUT") => s.api(who, method, `/api/v1/announcements/${id}/reactions/${encodeURIComponent(name)}`);

test("WebSocket user stream: announcement, announcement.reaction and announcement.delete with Mastodon's payloads", async () => {
  const user = await TestSocket.open(s, carol.token, { path: "/api/v1/streaming?stream=user" });
  const other = await TestSocket.open(s, carol.token, { path: "/api/v1/streaming?stream=public" });

  const made = await admin("POST", "", { text: "Upgrade at noon #maintenance", starts_at: "2030-01-02T12:00:00Z", ends_at: "2030-01-02T13:00:00Z" });
  await s.drainJobs();
  const published = await user.nextEvent();
  assert.deepEqual(published.stream, ["user"]);
  assert.equal(published.event, "announcement");
  assert.equal(typeof published.payload, "string");
  const a = entity(published);
  // Rendered for nobody in particular, as Mastodon's worker does: no `read`, no `me`.
  assert.deepEqual(a, {
    id: made.id,
    content: `<p>Upgrade at noon <a href="${s.app.baseUrl}/tags/maintenance" class="mention hashtag" rel="tag">#<span>maintenance</span></a></p>`,
    starts_at: "2030-01-02T12:00:00.000Z",
    ends_at: "2030-01-02T13:00:00.000Z",
    all_day: false,
    published_at: made.published_at,
    updated_at: made.updated_at,
    mentions: [],
    statuses: [],
    tags: [{ name: "maintenance", url: `${s.app.baseUrl}/tags/maintenance` }],
    emojis: [],
    reactions: [],
  });

  await react(bob, made.id, "👍");
  assert.deepEqual(await user.nextEvent(), { stream: ["user"], event: "announcement.reaction", payload: `{"name":"👍","count":1,"announcement_id":"${made.id}"}` });
  await react(carol, made.id, "👍");
  assert.deepEqual(await user.nextEvent(), { stream: ["user"], event: "announcement.reaction", payload: `{"name":"👍","count":2,"announcement_id":"${made.id}"}` });
  await react(bob, made.id, "party_parrot");
  const custom = await user.nextEvent();
  assert.equal(custom.event, "announcement.reaction");
  const c = entity(custom);
  assert.deepEqual(Object.keys(c), ["name", "count", "url", "static_url", "announcement_id"]);
  assert.deepEqual([c.name, c.count, c.announcement_id], ["party_parrot", 1, made.id]);
  assert.match(c.url, /\/system\/.+\.png$/);
  await react(bob, made.id, "👍", "DELETE");
  assert.deepEqual(await user.nextEvent(), { stream: ["user"], event: "announcement.reaction", payload: `{"name":"👍","count":1,"announcement_id":"${made.id}"}` });
  // The last one gone: count 0, so apps drop the emoji.
  await react(bob, made.id, "party_parrot", "DELETE");
  assert.deepEqual(await user.nextEvent(), { stream: ["user"], event: "announcement.reaction", payload: `{"name":"party_parrot","count":0,"announcement_id":"${made.id}"}` });

  // An edit of a published announcement is sent again, whole.
  await admin("PUT", `/${made.id}`, { text: "Upgrade at one" });
  await s.drainJobs();
  const edited = await user.nextEvent();
  assert.equal(edited.event, "announcement");
  assert.equal(entity(edited).content, "<p>Upgrade at one</p>");
  assert.deepEqual(entity(edited).reactions, [{ name: "👍", count: 1 }]);

  await admin("POST", `/${made.id}/unpublish`);
  await s.drainJobs();
  assert.deepEqual(await user.nextEvent(), { stream: ["user"], event: "announcement.delete", payload: made.id });
  await admin("POST", `/${made.id}/publish`);
  await s.drainJobs();
  assert.equal((await user.nextEvent()).event, "announcement");
  await admin("DELETE", `/${made.id}`);
  await s.drainJobs();
  assert.deepEqual(await user.nextEvent(), { stream: ["user"], event: "announcement.delete", payload: made.id });

  // Nothing of it reached the public stream: the next thing it gets is a later public post.
  const later = await s.api(bob, "POST", "/api/v1/statuses", { status: "public post" });
  await s.drainJobs();
  const next = await other.nextEvent();
  assert.deepEqual([next.event, entity(next).id], ["update", later.id]);
  user.close();
  other.close();
});

test("scheduled publication and the end reach open streams; SSE gets the same events", async () => {
  const realNow = s.app.now;
  const t0 = realNow();
  const sse = await openEventStream(s, bob.token, "/api/v1/streaming/user");
  const ws = await TestSocket.open(s, bob.token, { path: "/api/v1/streaming?stream=user" });
  try {
    const made = await admin("POST", "", {
      text: "Coming soon",
      scheduled_at: new Date(t0 + HOUR).toISOString(),
      starts_at: new Date(t0 + HOUR).toISOString(),
      ends_at: new Date(t0 + 2 * HOUR).toISOString(),
    });
    await s.drainJobs();
    // Nothing yet: the next event is one published after it.
    publishFiltersChanged(s.app, bob.id);
    assert.equal((await ws.nextEvent()).event, "filters_changed");

    s.app.now = () => t0 + HOUR;
    await s.drainJobs();
    const shown = await ws.nextEvent();
    assert.equal(shown.event, "announcement");
    assert.equal(entity(shown).id, made.id);
    assert.equal(entity(shown).published_at, new Date(t0 + HOUR).toISOString());

    s.app.now = () => t0 + 2 * HOUR;
    await s.drainJobs();
    assert.deepEqual(await ws.nextEvent(), { stream: ["user"], event: "announcement.delete", payload: made.id });

    // SSE: `event:` and `data:` lines with the same payload strings (after the filters_changed).
    const [f, announced, ended] = [await sse.next(), await sse.next(), await sse.next()];
    assert.equal(f.event, "filters_changed");
    assert.equal(announced.event, "announcement");
    assert.equal(entity(announced).id, made.id);
    assert.deepEqual(ended, { event: "announcement.delete", payload: made.id });
  } finally {
    s.app.now = realNow;
    ws.close();
    sse.close();
  }
});
