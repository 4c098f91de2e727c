// The remote media cache (issue 10 part 6): a second roost copies a followed account's avatar,
// header and photos into its own media store (jobs; safe fetch; the image worker's processing)
// and serves them from its own URLs with remote_url set; pruning drops copies nobody here uses,
// and the entities point at the origin again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { cacheStatusMedia } from "../../src/federation/remote-media-cache.ts";
import { pruneRemoteMedia } from "../../src/services/remote-media-prune.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { imageForm, png } from "../api/accounts-helpers.ts";
import { filesUnder, phoneJpeg, upload } from "../api/media-helpers.ts";

async function settle(...servers: TestServer[]): Promise<void> {
  for (let round = 0; round < 4; round++) for (const s of servers) await s.drainJobs();
}

const DAY = 86_400_000;

test("remote photos, avatars and headers are cached, served from here, and pruned back to their origin", async (t) => {
  const a = await startTestServer();
  const b = await startTestServer();
  t.after(() => Promise.all([a.close(), b.close()]));
  const alice = await a.user("alice");
  const bob = await b.user("bob");
  const carol = await b.user("carol");
  const cacheDir = join(b.dataDir, "media", "cache");

  const profile = await a.api(alice, "PATCH", "/api/v1/accounts/update_credentials", imageForm("avatar", await png(500, 500), "me.png", "image/png"));
  const found = await b.api(bob, "GET", `/api/v1/accounts/lookup?acct=alice@${a.app.config.domain}`);
  await b.api(bob, "POST", `/api/v1/accounts/${found.id}/follow`);
  await settle(b, a);

  // The avatar: copied by a job, served from b's own media URL.
  const seenAlice = await b.api(bob, "GET", `/api/v1/accounts/${found.id}`);
  assert.match(seenAlice.avatar, new RegExp(`^${b.url}/system/cache/accounts/avatars/${found.id}/[A-Za-z0-9_-]+\\.png$`));
  const avatar = await fetch(seenAlice.avatar);
  assert.equal(avatar.status, 200);
  assert.deepEqual((await sharp(Buffer.from(await avatar.arrayBuffer())).metadata()).width, 400);

  const photo = (await upload(a, alice, await phoneJpeg(400, 200), { version: 1, fields: { description: "heron" } })).body;
  const other = (await upload(a, alice, await png(300, 200), { version: 1 })).body;
  await a.api(alice, "POST", "/api/v1/statuses", { status: "Look!", media_ids: [photo.id] });
  await a.api(alice, "POST", "/api/v1/statuses", { status: "And this", media_ids: [other.id] });
  await settle(a, b);

  const home = await b.api(bob, "GET", "/api/v1/timelines/home");
  const first = home.find((s: any) => s.content.includes("Look!"));
  const second = home.find((s: any) => s.content.includes("And this"));
  const m = first.media_attachments[0];
  assert.equal(m.remote_url, photo.url);
  assert.match(m.url, new RegExp(`^${b.url}/system/cache/media_attachments/[A-Za-z0-9_-]+/original\\.jpg$`));
  assert.match(m.preview_url, new RegExp(`^${b.url}/system/cache/media_attachments/[A-Za-z0-9_-]+/small\\.jpg$`));
  assert.equal(m.description, "heron");
  assert.equal(m.blurhash, photo.blurhash, "the origin's blurhash is kept");
  assert.deepEqual(m.meta.original, { width: 200, height: 400, size: "200x400", aspect: 0.5 });
  assert.deepEqual(m.meta.small, photo.meta.small);
  const copy = await fetch(m.url);
  assert.equal(copy.headers.get("content-type"), "image/jpeg");
  const copyMeta = await sharp(Buffer.from(await copy.arrayBuffer())).metadata();
  assert.deepEqual([copyMeta.width, copyMeta.height, copyMeta.exif], [200, 400, undefined]);
  assert.match(second.media_attachments[0].url, new RegExp(`^${b.url}/system/cache/`));
  // Two photos (original + small each) and the avatar.
  assert.equal(filesUnder(cacheDir).length, 5);

  // Bob favourites the second post: an interaction keeps its copy when old copies are pruned.
  await b.api(bob, "POST", `/api/v1/statuses/${second.id}/favourite`);
  b.app.now = () => Date.now() + 10 * DAY;
  const dry = await pruneRemoteMedia(b.app, { olderThan: 7 * DAY, dryRun: true });
  assert.equal(dry.entries, 1, "only the first photo: the avatar is of an account bob follows");
  assert.equal(filesUnder(cacheDir).length, 5, "a dry run changes nothing");
  const pruned = await pruneRemoteMedia(b.app, { olderThan: 7 * DAY });
  assert.deepEqual(pruned, dry);
  assert.ok(pruned.bytes > 1000);
  assert.equal(pruned.remainingBytes + pruned.bytes, dry.remainingBytes + dry.bytes);

  const again = await b.api(carol, "GET", `/api/v1/statuses/${first.id}`);
  assert.equal(again.media_attachments[0].url, photo.url, "back at its origin");
  assert.equal(again.media_attachments[0].remote_url, photo.url);
  assert.equal(again.media_attachments[0].preview_url, photo.url);
  assert.equal(existsSync(join(b.dataDir, "media", new URL(m.url).pathname.slice("/system/".length))), false);
  assert.equal((await fetch(m.url)).status, 404);
  assert.equal(filesUnder(cacheDir).length, 3);

  // Opening the status asked for a copy again (a job); not from a private address when those are not allowed.
  b.app.config.allowPrivateAddresses = false;
  await b.drainJobs();
  assert.equal((await b.api(null, "GET", `/api/v1/statuses/${first.id}`)).media_attachments[0].url, photo.url);
  b.app.config.allowPrivateAddresses = true;
  assert.equal(await cacheStatusMedia(b.app, "1"), 0, "an unknown status has nothing to copy");
  // One request per status and hour: an hour later, opening it asks again.
  await b.api(carol, "GET", `/api/v1/statuses/${first.id}`);
  await b.drainJobs();
  assert.equal((await b.api(null, "GET", `/api/v1/statuses/${first.id}`)).media_attachments[0].url, photo.url);
  b.app.now = () => Date.now() + 10 * DAY + 2 * 3_600_000;
  await b.api(carol, "GET", `/api/v1/statuses/${first.id}`);
  await b.drainJobs();
  assert.match((await b.api(carol, "GET", `/api/v1/statuses/${first.id}`)).media_attachments[0].url, new RegExp(`^${b.url}/system/cache/`));

  b.app.now = Date.now; // signatures are checked against the clock
  // A deleted status leaves its copy behind until the next prune, which removes it as an orphan.
  const secondStatus = (await a.api(alice, "GET", `/api/v1/accounts/${alice.id}/statuses`)).find((s: any) => s.content.includes("And this"));
  await a.api(alice, "DELETE", `/api/v1/statuses/${secondStatus.id}`);
  await settle(a, b);
  assert.equal((await b.req(bob, "GET", `/api/v1/statuses/${second.id}`)).status, 404);
  const orphaned = await pruneRemoteMedia(b.app, {});
  assert.deepEqual([orphaned.entries, orphaned.orphans], [1, 1]);
  assert.equal(filesUnder(cacheDir).length, 3, "the avatar and the first photo's two files");

  // A byte budget evicts the oldest copies, interactions or not, until it is met: one byte
  // under the total takes the oldest copy only (the avatar, copied first).
  const oneLess = await pruneRemoteMedia(b.app, { maxBytes: orphaned.remainingBytes - 1, dryRun: true });
  assert.equal(oneLess.entries, 1);
  assert.ok(oneLess.remainingBytes < orphaned.remainingBytes - 1);
  const budget = await pruneRemoteMedia(b.app, { maxBytes: 0 });
  assert.equal(budget.entries, 2);
  assert.equal(budget.remainingBytes, 0);
  assert.deepEqual(filesUnder(cacheDir), []);
  assert.equal((await b.api(bob, "GET", `/api/v1/accounts/${found.id}`)).avatar, profile.avatar, "the avatar is the origin's again");

  // A new avatar: the account's Update brings a new copy.
  const changed = await a.api(alice, "PATCH", "/api/v1/accounts/update_credentials", imageForm("avatar", await png(64, 64, { r: 0, g: 90, b: 0 }), "new.png", "image/png"));
  await settle(a, b);
  const updated = await b.api(bob, "GET", `/api/v1/accounts/${found.id}`);
  assert.notEqual(changed.avatar, profile.avatar);
  assert.match(updated.avatar, new RegExp(`^${b.url}/system/cache/accounts/avatars/`));
  assert.equal(filesUnder(cacheDir).length, 1);
});

test("a remote file over the size limit is not cached: the attachment stays at its origin", async (t) => {
  const a = await startTestServer();
  const b = await startTestServer({ config: { maxImageBytes: 2048 } });
  t.after(() => Promise.all([a.close(), b.close()]));
  const alice = await a.user("alice");
  const bob = await b.user("bob");
  const found = await b.api(bob, "GET", `/api/v1/accounts/lookup?acct=alice@${a.app.config.domain}`);
  await b.api(bob, "POST", `/api/v1/accounts/${found.id}/follow`);
  await settle(b, a);
  const big = (await upload(a, alice, await phoneJpeg(800, 600), { version: 1 })).body;
  await a.api(alice, "POST", "/api/v1/statuses", { status: "big", media_ids: [big.id] });
  await settle(a, b);
  const [post] = await b.api(bob, "GET", "/api/v1/timelines/home");
  assert.equal(post.media_attachments[0].url, big.url);
  assert.deepEqual(filesUnder(join(b.dataDir, "media", "cache")), []);
  assert.deepEqual(filesUnder(join(b.dataDir, "tmp", "media")), [], "nothing left in the staging area");
});

test("with cacheRemoteMedia off, remote media are shown at their origin", async (t) => {
  const a = await startTestServer();
  const b = await startTestServer({ config: { cacheRemoteMedia: false } });
  t.after(() => Promise.all([a.close(), b.close()]));
  const alice = await a.user("alice");
  const bob = await b.user("bob");
  await a.api(alice, "PATCH", "/api/v1/accounts/update_credentials", imageForm("avatar", await png(50, 50), "me.png", "image/png"));
  const found = await b.api(bob, "GET", `/api/v1/accounts/lookup?acct=alice@${a.app.config.domain}`);
  await b.api(bob, "POST", `/api/v1/accounts/${found.id}/follow`);
  await settle(b, a);
  const seen = await b.api(bob, "GET", `/api/v1/accounts/${found.id}`);
  assert.ok(seen.avatar.startsWith(a.url + "/system/"), seen.avatar);
  assert.deepEqual(filesUnder(join(b.dataDir, "media")), []);
});
