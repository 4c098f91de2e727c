// Timelines and notifications are written as JSON text assembled from cached pieces (serializers/status.ts,
// toApiStatusesJson). These tests pin down that the text is exactly the page the object
// serializer builds, for every kind of field, and that no cached piece outlives a change.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { loadConfig } from "../../src/config/config.ts";
import { closeApp, createApp } from "../../src/main.ts";
import type { App } from "../../src/app.ts";
import { createCustomEmoji } from "../../src/services/custom-emojis.ts";
import { STATUS_JSON_CACHE, toApiStatuses } from "../../src/serializers/status.ts";
import { findRowCache } from "../../src/storage/row-cache.ts";
import { EMBEDDED_ACCOUNTS_CACHE } from "../../src/serializers/account.ts";
import { STATUS_ROWS_CACHE } from "../../src/storage/status-cache.ts";
import { toApiNotifications } from "../../src/serializers/notification.ts";
import { listNotifications, notificationFilter } from "../../src/services/notification-reads.ts";
import { insertRemoteMedia } from "../../src/storage/media-attachments.ts";
import { findStatusesByIds } from "../../src/storage/statuses.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

async function emoji(app: App, shortcode: string) {
  const png = await sharp({ create: { width: 16, height: 16, channels: 4, background: { r: 9, g: 8, b: 7, alpha: 1 } } })
    .png()
    .toBuffer();
  await createCustomEmoji(app, { shortcode, data: png, contentType: "image/png" });
}

function attachMedia(app: App, accountId: string, statusId: string, description: string) {
  insertRemoteMedia(app.db, {
    id: app.ids.next(),
    accountId,
    statusId,
    type: "image",
    contentType: "image/png",
    remoteUrl: "https://files.example/pic.png",
    thumbnailRemoteUrl: null,
    description,
    blurhash: null,
    meta: { original: { width: 640, height: 480 } },
    createdAt: app.now(),
  });
}

/** The page as the object serializer renders it for `viewerId`, through JSON like the wire. */
function expected(s: TestServer, page: { id: string }[], viewerId: string | null) {
  const rows = findStatusesByIds(s.app.db, page.map((p) => p.id));
  return JSON.parse(JSON.stringify(toApiStatuses(s.app, page.map((p) => rows.get(p.id)!), viewerId)));
}

/** A server where bob follows alice, who has posted `text` (fanned out to bob's home). */
async function followedPost(t: TestContext, text: string) {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
  const post = await s.api(alice, "POST", "/api/v1/statuses", { status: text });
  await s.drainJobs();
  return { s, alice, bob, post };
}

async function home(s: TestServer, who: TestUser) {
  return s.api<any[]>(who, "GET", "/api/v1/timelines/home");
}

test("timeline text carries exactly what the status serializer builds", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  await emoji(s.app, "wave");
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
  await s.api(bob, "POST", `/api/v1/accounts/${carol.id}/follow`);
  const rich = await s.api(alice, "POST", "/api/v1/statuses", {
    status: "hi @bob and @carol #Roost :wave: https://example.org/x",
    spoiler_text: "cw :wave:",
    sensitive: true,
    language: "en",
  });
  attachMedia(s.app, alice.id, rich.id, "a picture");
  const reply = await s.api(carol, "POST", "/api/v1/statuses", { status: "@alice yes", in_reply_to_id: rich.id });
  await s.api(carol, "POST", `/api/v1/statuses/${rich.id}/reblog`);
  const own = await s.api(bob, "POST", "/api/v1/statuses", { status: "mine, pinned" });
  await s.api(bob, "POST", `/api/v1/statuses/${own.id}/pin`);
  await s.api(bob, "POST", `/api/v1/statuses/${rich.id}/favourite`);
  await s.api(bob, "POST", `/api/v1/statuses/${rich.id}/bookmark`);
  await s.api(bob, "POST", `/api/v1/statuses/${reply.id}/mute`);
  await s.drainJobs();

  // Twice: the first page fills the caches, the second is served from them.
  for (let round = 0; round < 2; round++) {
    const page = await home(s, bob);
    assert.equal(page.length, 4);
    assert.deepEqual(page, expected(s, page, bob.id));
    const boost = page.find((x) => x.reblog !== null);
    assert.equal(boost.reblog.id, rich.id);
    assert.deepEqual([boost.reblog.favourited, boost.reblog.bookmarked, boost.favourited], [true, true, true]);
    assert.equal(boost.reblog.media_attachments[0].description, "a picture");
    assert.deepEqual(boost.reblog.emojis.map((e: { shortcode: string }) => e.shortcode), ["wave"]);
    assert.deepEqual(boost.reblog.mentions.map((m: { acct: string }) => m.acct), ["bob", "carol"]);
    assert.deepEqual(boost.reblog.tags, [{ name: "roost", url: `${s.app.baseUrl}/tags/roost` }]);
    const mine = page.find((x) => x.id === own.id);
    assert.equal(mine.pinned, true);
    assert.equal(typeof mine.application.name, "string");
    assert.equal(page.find((x) => x.id === reply.id).muted, true);

    const anonymous = await s.api<any[]>(null, "GET", "/api/v1/timelines/public");
    assert.deepEqual(anonymous, expected(s, anonymous, null));
    assert.equal(anonymous[0].favourited, undefined);
    const tagged = await s.api<any[]>(carol, "GET", "/api/v1/timelines/tag/roost");
    assert.deepEqual(tagged, expected(s, tagged, carol.id));
    assert.equal(tagged[0].favourited, false);
    const profile = await s.api<any[]>(bob, "GET", `/api/v1/accounts/${bob.id}/statuses`);
    assert.deepEqual(profile, expected(s, profile, bob.id));
  }
  const res = await s.req(bob, "GET", "/api/v1/timelines/home");
  assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
});

test("a cached status text never outlives a change to what it shows", async (t) => {
  const { s, alice, bob, post } = await followedPost(t, "hello :party:");
  const seen = async () => (await home(s, bob)).find((x) => x.id === post.id);
  for (let i = 0; i < 2; i++) assert.deepEqual([(await seen()).emojis, (await seen()).media_attachments], [[], []]);

  await emoji(s.app, "party");
  assert.deepEqual((await seen()).emojis.map((e: { shortcode: string }) => e.shortcode), ["party"]);

  // Attachments live in their own rows: the status row does not change when one is added.
  attachMedia(s.app, alice.id, post.id, "first");
  assert.deepEqual((await seen()).media_attachments.map((m: { description: string }) => m.description), ["first"]);

  await s.api(alice, "POST", `/api/v1/statuses/${post.id}/favourite`);
  assert.equal((await seen()).favourites_count, 1);
  await s.api(alice, "PUT", `/api/v1/statuses/${post.id}`, { status: "hello again #news" });
  const edited = await seen();
  assert.equal(edited.content.startsWith("<p>hello again"), true);
  assert.deepEqual(edited.tags.map((x: { name: string }) => x.name), ["news"]);
  assert.notEqual(edited.edited_at, null);

  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Alice A." });
  assert.equal((await seen()).account.display_name, "Alice A.");

  // Another process (a `roost` command) writes: seen on the next read.
  const other = createApp(loadConfig(s.dataDir, { logLevel: "silent", jobsAutorun: false }, {}));
  try {
    attachMedia(other, alice.id, post.id, "from elsewhere");
  } finally {
    await closeApp(other);
  }
  assert.deepEqual((await seen()).media_attachments.map((m: { description: string }) => m.description), ["first", "from elsewhere"]);
});

test("the notifications page as text carries exactly what the notification serializer builds", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice", { role: "admin" });
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  await emoji(s.app, "wave");
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
  const post = await s.api(alice, "POST", "/api/v1/statuses", { status: "hello :wave: #roost" });
  attachMedia(s.app, alice.id, post.id, "a picture");
  await s.api(bob, "POST", `/api/v1/statuses/${post.id}/favourite`);
  await s.api(carol, "POST", `/api/v1/statuses/${post.id}/reblog`);
  // Alice follows carol: a stranger's private mention would be held back by her notification policy.
  await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/follow`);
  await s.api(carol, "POST", "/api/v1/statuses", { status: "@alice look", visibility: "direct" });
  await s.api(alice, "POST", `/api/v1/statuses/${post.id}/favourite`);
  await s.api(carol, "POST", "/api/v1/reports", { account_id: bob.id, comment: "spam", category: "spam" });
  await s.drainJobs();

  for (let round = 0; round < 2; round++) {
    const page = await s.api<any[]>(alice, "GET", "/api/v1/notifications");
    assert.deepEqual(page.map((n) => n.type).sort(), ["admin.report", "favourite", "follow", "mention", "reblog"]);
    const list = listNotifications(s.app, alice.id, notificationFilter(undefined, undefined, undefined), { limit: 40 });
    assert.deepEqual(page, JSON.parse(JSON.stringify(toApiNotifications(s.app, list, alice.id))));
    const fav = page.find((n) => n.type === "favourite");
    assert.deepEqual([fav.status.favourited, fav.status.favourites_count, fav.status.media_attachments.length], [true, 2, 1]);
    const report = page.find((n) => n.type === "admin.report");
    assert.deepEqual([report.report.comment, report.report.target_account.id, report.status], ["spam", bob.id, undefined]);
  }
  const res = await s.req(alice, "GET", "/api/v1/notifications");
  assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
});

test("a very large post is served whole but kept in no cache", async (t) => {
  const { s, alice, bob, post } = await followedPost(t, "soon large");
  // As a remote server may send one (the inbox takes signed bodies up to 1 MB).
  const big = `<p>${"x".repeat(200_000)}</p>`;
  s.app.db.prepare("UPDATE statuses SET content = ? WHERE id = ?").run(big, BigInt(post.id));
  for (let i = 0; i < 2; i++) assert.equal((await home(s, bob)).find((x) => x.id === post.id).content, big);
  assert.equal(findRowCache(s.app, STATUS_ROWS_CACHE)!.get(post.id), undefined);
  assert.equal(findRowCache(s.app, STATUS_JSON_CACHE)!.get(post.id), undefined);
  // An ordinary post on the same page is cached.
  const small = await s.api(alice, "POST", "/api/v1/statuses", { status: "small" });
  await s.drainJobs();
  for (let i = 0; i < 2; i++) await home(s, bob);
  assert.notEqual(findRowCache(s.app, STATUS_JSON_CACHE)!.get(small.id), undefined);
});

test("a very large profile is embedded whole but kept in no cache", async (t) => {
  const { s, alice, bob, post } = await followedPost(t, "hello");
  const big = `<p>${"y".repeat(100_000)}</p>`;
  s.app.db.prepare("UPDATE accounts SET note = ? WHERE id = ?").run(big, BigInt(alice.id));
  for (let i = 0; i < 2; i++) assert.equal((await home(s, bob)).find((x) => x.id === post.id).account.note, big);
  assert.equal(findRowCache(s.app, EMBEDDED_ACCOUNTS_CACHE)!.get(alice.id), undefined);
  // An ordinary profile beside it is cached.
  const carol = await s.user("carol");
  await s.api(bob, "POST", `/api/v1/accounts/${carol.id}/follow`);
  await s.api(carol, "POST", "/api/v1/statuses", { status: "hi" });
  await s.drainJobs();
  for (let i = 0; i < 2; i++) await home(s, bob);
  assert.notEqual(findRowCache(s.app, EMBEDDED_ACCOUNTS_CACHE)!.get(carol.id), undefined);
});
