// GET /api/v1/announcements, POST /:id/dismiss, PUT/DELETE /:id/reactions/:name
// (endpoints-instance.md §6, entities-other.md "Announcement"), with announcements made through
// the admin API, and publication at `scheduled_at` / withdrawal at `ends_at` by the jobs.
import { after, before, test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { png } from "./accounts-helpers.ts";
import { createCustomEmoji } from "../../src/services/custom-emojis.ts";

const ADMIN = ["read", "write", "admin:read", "admin:write"];
const HOUR = 3_600_000;

let s: TestServer;
let alice: TestUser, bob: TestUser, carol: TestUser;
// A domain with a top-level domain: Mastodon links (and so finds statuses by) such URLs only.
const BASE = "http://announce.test";

before(async () => {
  s = await startTestServer({ init: { domain: "announce.test" } });
  alice = await s.user("alice", { role: "owner", scopes: ADMIN });
  bob = await s.user("bob");
  carol = await s.user("carol");
  await createCustomEmoji(s.app, { shortcode: "blobcat", data: await png(16, 16), contentType: "image/png" });
});
after(() => s.close());

const remove = async (id: string) => {
  await s.req(alice, "DELETE", `/api/roost/v1/admin/announcements/${id}`);
  await s.drainJobs();
};
/** Made through the admin API; deleted after the test, so that each test starts with none. */
const announce = async (t: TestContext, body: Record<string, unknown>) => {
  const a = await s.api(alice, "POST", "/api/roost/v1/admin/announcements", body);
  t.after(() => remove(a.id));
  return a;
};
const list = (who: TestUser, query = "") => s.api(who, "GET", `/api/v1/announcements${query}`);
const react = (who: TestUser, id: string, name: string, method = "PUT") => s.req(who, method, `/api/v1/announcements/${id}/reactions/${encodeURIComponent(name)}`);

test("an announcement is rendered as Mastodon renders it: content, mentions, tags, emojis, linked statuses", async (t) => {
  const post = await s.api(bob, "POST", "/api/v1/statuses", { status: "the plan", visibility: "unlisted" });
  const hidden = await s.api(bob, "POST", "/api/v1/statuses", { status: "followers only", visibility: "private" });
  const made = await announce(t, { text: `Maintenance tonight, ask @bob or @nobody #Downtime :blobcat:\n\nDetails: ${post.url} ${hidden.url}` });

  const [a, ...rest] = await list(carol);
  assert.equal(rest.length, 0);
  assert.equal(a.id, made.id);
  // Links as in posts: the scheme hidden, 30 characters shown, the rest hidden.
  const link = (url: string) => {
    const rest = url.slice("http://".length);
    return (
      `<a href="${url}" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">http://</span>` +
      `<span class="ellipsis">${rest.slice(0, 30)}</span><span class="invisible">${rest.slice(30)}</span></a>`
    );
  };
  assert.equal(
    a.content,
    `<p>Maintenance tonight, ask <span class="h-card" translate="no"><a href="${BASE}/@bob" class="u-url mention">@<span>bob</span></a></span> or @nobody ` +
      `<a href="${BASE}/tags/Downtime" class="mention hashtag" rel="tag">#<span>Downtime</span></a> :blobcat:</p>` +
      `<p>Details: ${link(post.url)} ${link(hidden.url)}</p>`,
  );
  assert.deepEqual(a.mentions, [{ id: bob.id, username: "bob", url: `${BASE}/@bob`, acct: "bob" }]);
  assert.deepEqual(a.tags, [{ name: "downtime", url: `${BASE}/tags/downtime` }]);
  assert.deepEqual(a.emojis.map((e: any) => [e.shortcode, e.visible_in_picker]), [["blobcat", true]]);
  assert.match(a.emojis[0].url, /^http:\/\/announce\.test\/system\/.+\.png$/);
  // Full Status entities (4.3), public or unlisted only.
  assert.deepEqual(a.statuses.map((x: any) => [x.id, x.content]), [[post.id, "<p>the plan</p>"]]);
  assert.equal(a.read, false);
  assert.deepEqual(a.reactions, []);
  assert.equal(a.all_day, false);
  assert.equal(a.starts_at, null);
  assert.equal(a.ends_at, null);
  assert.equal(a.published_at, new Date(made.published_at).toISOString());
  assert.equal(typeof a.updated_at, "string");
  assert.deepEqual(Object.keys(a), ["id", "content", "starts_at", "ends_at", "all_day", "published_at", "updated_at", "read", "mentions", "statuses", "tags", "emojis", "reactions"]);

  // A user token is required, with any scope.
  assert.equal((await s.req(null, "GET", "/api/v1/announcements")).status, 401);
  const narrow = await s.user("dora", { scopes: ["read:statuses"] });
  assert.equal((await list(narrow)).length, 1);
});

test("only published announcements that have not ended are listed, by start time", async (t) => {
  const now = s.app.now();
  await announce(t, { text: "later event", starts_at: new Date(now + 5 * HOUR).toISOString(), ends_at: new Date(now + 6 * HOUR).toISOString(), all_day: true });
  await announce(t, { text: "sooner event", starts_at: new Date(now + HOUR).toISOString(), ends_at: new Date(now + 2 * HOUR).toISOString() });
  const planned = await announce(t, { text: "not yet", scheduled_at: new Date(now + 3 * HOUR).toISOString() });
  const over = await announce(t, { text: "over", starts_at: new Date(now - 3 * HOUR).toISOString(), ends_at: new Date(now - HOUR).toISOString() });
  const withdrawn = await announce(t, { text: "withdrawn" });
  await s.api(alice, "POST", `/api/roost/v1/admin/announcements/${withdrawn.id}/unpublish`);

  const shown = await list(bob);
  assert.deepEqual(shown.map((a: any) => a.content), ["<p>sooner event</p>", "<p>later event</p>"]);
  assert.equal(shown[1].all_day, true);
  assert.equal(shown[1].starts_at, new Date(now + 5 * HOUR).toISOString());
  assert.equal(shown[1].ends_at, new Date(now + 6 * HOUR).toISOString());
  assert.equal(planned.published, false);
  for (const a of [planned, over, withdrawn]) {
    assert.equal((await s.req(bob, "POST", `/api/v1/announcements/${a.id}/dismiss`)).status, 404, "not current: not found");
  }
});

test("dismiss marks an announcement read for the caller only; with_dismissed=false leaves it out", async (t) => {
  const a = await announce(t, { text: "read me" });
  const b = await announce(t, { text: "and me" });
  assert.deepEqual(await s.api(bob, "POST", `/api/v1/announcements/${a.id}/dismiss`), {});
  assert.deepEqual(await s.api(bob, "POST", `/api/v1/announcements/${a.id}/dismiss`), {}, "twice is fine");
  assert.deepEqual((await list(bob)).map((x: any) => [x.content, x.read]), [["<p>read me</p>", true], ["<p>and me</p>", false]]);
  assert.deepEqual((await list(carol)).map((x: any) => x.read), [false, false]);
  assert.deepEqual((await list(bob, "?with_dismissed=false")).map((x: any) => x.content), ["<p>and me</p>"]);
  assert.equal((await list(bob, "?with_dismissed=true")).length, 2);

  for (const id of ["999999", "nope", "-1"]) {
    assert.deepEqual(await s.req(bob, "POST", `/api/v1/announcements/${id}/dismiss`).then((r) => [r.status, r.body]), [404, { error: "Record not found" }]);
  }
  const readOnly = await s.user("erin", { scopes: ["read"] });
  assert.equal((await s.req(readOnly, "POST", `/api/v1/announcements/${b.id}/dismiss`)).status, 403);
  const accountsOnly = await s.user("fred", { scopes: ["write:accounts"] });
  assert.equal((await s.req(accountsOnly, "POST", `/api/v1/announcements/${b.id}/dismiss`)).status, 200);
});

test("reactions: unicode and custom emoji, counts and me, removal, Mastodon's errors and its limit of 8", async (t) => {
  const a = await announce(t, { text: "react!" });
  assert.equal((await react(bob, a.id, "👍")).status, 200);
  assert.equal((await react(carol, a.id, "👍")).status, 200);
  assert.equal((await react(bob, a.id, "blobcat")).status, 200);
  assert.equal((await react(carol, a.id, "👍🏽")).status, 200, "skin tones are emoji too");

  const [seenByBob] = await list(bob);
  assert.deepEqual(seenByBob.reactions.map((r: any) => [r.name, r.count, r.me]), [["👍", 2, true], ["blobcat", 1, true], ["👍🏽", 1, false]]);
  assert.match(seenByBob.reactions[1].url, /^http:\/\/announce\.test\/system\/.+\.png$/);
  assert.match(seenByBob.reactions[1].static_url, /^http:\/\/announce\.test\/system\/.+\.png$/);
  assert.equal("url" in seenByBob.reactions[0], false, "no image for a unicode emoji");
  const [seenByCarol] = await list(carol);
  assert.deepEqual(seenByCarol.reactions.map((r: any) => [r.name, r.me]), [["👍", true], ["blobcat", false], ["👍🏽", true]]);

  const err = async (r: Promise<{ status: number; body: any }>) => r.then((x) => [x.status, x.body]);
  assert.deepEqual(await err(react(bob, a.id, "👍")), [422, { error: "Duplicate record" }]);
  for (const bad of ["F", "nope_emoji", "👍👍", ":blobcat:", "Blobcat", "x".repeat(300)]) {
    assert.deepEqual(await err(react(bob, a.id, bad)), [422, { error: "Validation failed: Name is not a recognized emoji" }], bad);
  }
  // A malformed escape in the path is refused before routing (not a 500).
  assert.deepEqual(await err(s.req(bob, "PUT", `/api/v1/announcements/${a.id}/reactions/%E0%A4%A`)), [400, { error: "Bad Request" }]);
  assert.deepEqual(await err(react(bob, "999999", "👍")), [404, { error: "Record not found" }]);
  assert.equal((await s.req(await s.user("gil", { scopes: ["read"] }), "PUT", `/api/v1/announcements/${a.id}/reactions/${encodeURIComponent("👍")}`)).status, 403);

  // Removing: counts go down, the last one removes the entry; no such reaction is a 404.
  assert.equal((await react(bob, a.id, "👍", "DELETE")).status, 200);
  assert.deepEqual((await list(bob))[0].reactions.map((r: any) => [r.name, r.count, r.me]), [["👍", 1, false], ["blobcat", 1, true], ["👍🏽", 1, false]]);
  assert.deepEqual(await err(react(bob, a.id, "👍", "DELETE")), [404, { error: "Record not found" }]);
  assert.equal((await react(carol, a.id, "👍", "DELETE")).status, 200);
  assert.deepEqual((await list(carol))[0].reactions.map((r: any) => r.name), ["blobcat", "👍🏽"]);

  // At most 8 distinct emojis; an emoji already there may still be added by others.
  for (const e of ["😀", "🎉", "❤️", "🔥", "🚀", "❤"]) assert.equal((await react(bob, a.id, e)).status, 200, e);
  assert.equal((await list(bob))[0].reactions.length, 8);
  assert.deepEqual(await err(react(carol, a.id, "🌈")), [422, { error: "Validation failed: Limit of different reactions reached" }]);
  assert.equal((await react(carol, a.id, "🎉")).status, 200);
  await remove(a.id);
  assert.deepEqual(await err(react(bob, a.id, "🎉", "DELETE")), [404, { error: "Record not found" }]);
});

test("scheduled_at publishes at that time and ends_at withdraws, as the app's clock moves", async (t) => {
  const realNow = s.app.now;
  const t0 = realNow();
  try {
    const a = await announce(t, {
      text: "planned",
      scheduled_at: new Date(t0 + 2 * HOUR).toISOString(),
      starts_at: new Date(t0 + 2 * HOUR).toISOString(),
      ends_at: new Date(t0 + 4 * HOUR).toISOString(),
    });
    assert.deepEqual([a.published, a.published_at, a.scheduled_at], [false, null, new Date(t0 + 2 * HOUR).toISOString()]);
    await s.drainJobs();
    assert.deepEqual(await list(bob), [], "not before its time");

    s.app.now = () => t0 + 2 * HOUR + 1000;
    await s.drainJobs();
    const [shown] = await list(bob);
    assert.equal(shown.id, a.id);
    assert.equal(shown.published_at, new Date(t0 + 2 * HOUR + 1000).toISOString());
    const admin = await s.api(alice, "GET", `/api/roost/v1/admin/announcements/${a.id}`);
    assert.deepEqual([admin.published, admin.scheduled_at], [true, null]);

    s.app.now = () => t0 + 4 * HOUR + 1000;
    await s.drainJobs();
    assert.deepEqual(await list(bob), []);
    const ended = await s.api(alice, "GET", `/api/roost/v1/admin/announcements/${a.id}`);
    assert.equal(ended.published, false, "unpublished at ends_at");

    // Moved to a later time before it came: the old time publishes nothing.
    const b = await announce(t, { text: "moved", scheduled_at: new Date(t0 + 5 * HOUR).toISOString() });
    await s.api(alice, "PUT", `/api/roost/v1/admin/announcements/${b.id}`, { scheduled_at: new Date(t0 + 7 * HOUR).toISOString() });
    s.app.now = () => t0 + 6 * HOUR;
    await s.drainJobs();
    assert.deepEqual(await list(bob), []);
    s.app.now = () => t0 + 7 * HOUR;
    await s.drainJobs();
    assert.deepEqual((await list(bob)).map((x: any) => x.id), [b.id]);
  } finally {
    s.app.now = realNow;
  }
});
