import { test } from "node:test";
import { insertCacheEntry } from "../../src/storage/remote-media-cache.ts";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { pruneStorage, storageUse } from "../../src/ops/storage-prune.ts";
import { findAccountById } from "../../src/storage/accounts.ts";
import { findStatusById } from "../../src/storage/statuses.ts";
import { mentionOf, noteDoc, remoteAccountOf, startWorld, stored, followRemote, type World } from "../federation/remote-status-helpers.ts";

// The storage budget (issue 14 part 2): what goes, what stays, oldest first, nothing local.

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

async function oldPost(w: World, days: number, extra: Record<string, unknown> = {}) {
  // Fetched (a thread, a search): stored whoever follows rita.
  return stored(w, noteDoc(w.rita, { published: ago(days), ...extra }), { fetched: true });
}

test("past remoteContentRetentionDays, remote posts nobody here touched go; every kind of interaction keeps one; nothing local goes", async (t) => {
  const w = await startWorld(t);
  const { s } = w;
  s.app.config.remoteContentRetentionDays = 90;
  const alice = await s.user("alice");
  const untouched = await oldPost(w, 200);
  const favouritedRemotely = await oldPost(w, 190);
  const favourited = await oldPost(w, 180);
  const bookmarked = await oldPost(w, 170);
  const boosted = await oldPost(w, 160);
  const repliedTo = await oldPost(w, 150);
  const mentioning = await oldPost(w, 140, { tag: [mentionOf(w, alice)], cc: [alice.account.uri] });
  const recent = await oldPost(w, 30);
  await s.api(alice, "POST", `/api/v1/statuses/${favourited.id}/favourite`);
  await s.api(alice, "POST", `/api/v1/statuses/${bookmarked.id}/bookmark`);
  await s.api(alice, "POST", `/api/v1/statuses/${boosted.id}/reblog`);
  await s.api(alice, "POST", "/api/v1/statuses", { status: "@rita indeed", in_reply_to_id: repliedTo.id });
  const own = await s.api(alice, "POST", "/api/v1/statuses", { status: "mine" });
  // A remote account's favourite is no reason to keep a post.
  const other = await remoteAccountOf(s, w.remote.actor("otto"));
  await s.api(alice, "GET", `/api/v1/statuses/${favouritedRemotely.id}`);
  const { favouriteStatus } = await import("../../src/services/status-interactions.ts");
  favouriteStatus(s.app, other, favouritedRemotely.id, { uri: `${other.uri}#likes/1` });
  await s.drainJobs();

  const ritaCount = findAccountById(s.app.db, w.author.id)!.statusesCount;
  const plan = await pruneStorage(s.app, { dryRun: true });
  assert.equal(plan.statuses.count, 2, "dry run: the untouched post and the one only a remote account favourited");
  assert.ok(findStatusById(s.app.db, untouched.id), "a dry run removes nothing");

  const done = await pruneStorage(s.app);
  assert.equal(done.statuses.count, 2);
  assert.equal(findStatusById(s.app.db, untouched.id), undefined);
  assert.equal(findStatusById(s.app.db, favouritedRemotely.id), undefined);
  for (const kept of [favourited, bookmarked, boosted, repliedTo, mentioning, recent]) {
    assert.ok(findStatusById(s.app.db, kept.id), `${kept.uri} is kept`);
  }
  assert.ok(findStatusById(s.app.db, own.id), "local posts are never pruned");
  assert.equal((await s.req(alice, "GET", `/api/v1/statuses/${untouched.id}`)).status, 404);
  assert.equal((await s.api(alice, "GET", `/api/v1/statuses/${favourited.id}`)).favourited, true);
  // The origin's counts are not ours to change: rita still has every post she made.
  assert.equal(findAccountById(s.app.db, w.author.id)!.statusesCount, ritaCount);

  const again = await pruneStorage(s.app);
  assert.equal(again.statuses.count, 0, "a second run finds nothing more");
});

test("over storageBudgetBytes, the oldest untouched remote posts go until under budget; the last day's stay", async (t) => {
  const w = await startWorld(t);
  const { s } = w;
  s.app.config.remoteContentRetentionDays = 0;
  const body = "x".repeat(3000);
  const posts = [];
  for (let i = 40; i >= 2; i--) posts.push(await oldPost(w, i, { content: `<p>${i} ${body}</p>` }));
  const fresh = await stored(w, noteDoc(w.rita, { published: new Date(Date.now() - 3600_000).toISOString(), content: `<p>${body}</p>` }), { fetched: true });
  const use = storageUse(s.app);
  assert.ok(use.databaseBytes > 100 * 1024);
  s.app.config.storageBudgetBytes = use.totalBytes - 30 * 1024;

  const plan = await pruneStorage(s.app, { dryRun: true });
  assert.ok(plan.statuses.count >= 8 && plan.statuses.count <= 15, `the estimate takes about 10 posts of ~3 KB: ${plan.statuses.count}`);
  assert.ok(plan.after.totalBytes <= s.app.config.storageBudgetBytes);

  const done = await pruneStorage(s.app);
  assert.equal(done.warning, null);
  assert.ok(done.after.totalBytes <= s.app.config.storageBudgetBytes, `${done.after.totalBytes} within ${s.app.config.storageBudgetBytes}`);
  const gone = posts.filter((p) => !findStatusById(s.app.db, p.id)).length;
  assert.ok(gone >= 8 && gone < posts.length, `${gone} posts went`);
  // Oldest first: what went is exactly the oldest `gone` posts.
  posts.forEach((p, i) => assert.equal(findStatusById(s.app.db, p.id) === undefined, i < gone, `post ${i}`));
  assert.ok(findStatusById(s.app.db, fresh.id));
  assert.ok(done.after.databaseBytes < use.databaseBytes);
});

test("a budget smaller than the local data: remote untouched content goes, nothing local or interacted with, and a warning", async (t) => {
  const w = await startWorld(t);
  const { s } = w;
  s.app.config.remoteContentRetentionDays = 0;
  s.app.config.storageBudgetBytes = 1;
  const alice = await s.user("alice");
  const own = await s.api(alice, "POST", "/api/v1/statuses", { status: "mine" });
  const untouched = await oldPost(w, 5);
  const bookmarked = await oldPost(w, 6);
  await s.api(alice, "POST", `/api/v1/statuses/${bookmarked.id}/bookmark`);
  const r = await pruneStorage(s.app);
  assert.match(r.warning ?? "", /over the 1-byte budget, with nothing more that may be pruned/);
  assert.equal(r.statuses.count, 1);
  assert.equal(findStatusById(s.app.db, untouched.id), undefined);
  assert.ok(findStatusById(s.app.db, bookmarked.id));
  assert.equal((await s.api(alice, "GET", `/api/v1/statuses/${own.id}`)).content, "<p>mine</p>");
  assert.ok(findAccountById(s.app.db, alice.id));
});

test("cached copies of remote media go first, past retention or for the budget; the attachment points at the origin again", async (t) => {
  const w = await startWorld(t);
  const { s } = w;
  s.app.config.remoteContentRetentionDays = 0;
  const alice = await s.user("alice");
  const photo = (n: number) => ({ type: "Document", mediaType: "image/png", url: `${new URL(w.rita.id).origin}/files/${n}.png` });
  const older = await oldPost(w, 20, { attachment: [photo(1)] });
  const newer = await oldPost(w, 10, { attachment: [photo(2)] });
  await s.api(alice, "POST", `/api/v1/statuses/${older.id}/bookmark`);
  await s.api(alice, "POST", `/api/v1/statuses/${newer.id}/bookmark`);
  // The remote media cache keeps a copy beside the origin's URL. The fake remote serves no
  // files, so the copies (a file, the row showing it, the cache's entry) are made here, the
  // older one first.
  const copies: string[] = [];
  for (const [i, post] of [older, newer].entries()) {
    const m = s.app.db.prepare("SELECT id FROM media_attachments WHERE status_id = ?").pluck().get(BigInt(post.id)) as bigint;
    const name = `cache/media_attachments/${m}/original.png`;
    mkdirSync(dirname(join(s.app.mediaDir, name)), { recursive: true });
    writeFileSync(join(s.app.mediaDir, name), Buffer.alloc(50_000, 1));
    s.app.db.prepare("UPDATE media_attachments SET file = ? WHERE id = ?").run(name, m);
    insertCacheEntry(s.app.db, { kind: "attachment", ownerId: String(m), sourceUrl: photo(i + 1).url, files: [name], bytes: 50_000, cachedAt: s.app.now() - (3 - i) * 86_400_000 });
    copies.push(name);
  }
  const use = storageUse(s.app);
  s.app.config.storageBudgetBytes = use.totalBytes - 20_000;
  const r = await pruneStorage(s.app);
  assert.deepEqual([r.media.items, r.media.bytes, r.statuses.count], [1, 50_000, 0], "one copy, the older, was enough");
  assert.equal(existsSync(join(s.app.mediaDir, copies[0])), false);
  assert.equal(existsSync(join(s.app.mediaDir, copies[1])), true);
  const shown = await s.api(alice, "GET", `/api/v1/statuses/${older.id}`);
  assert.equal(shown.media_attachments[0].remote_url, photo(1).url);
  assert.ok(findStatusById(s.app.db, older.id), "a bookmarked post stays; only its copy went");
});

test("remote accounts nobody here deals with stop being refreshed, keeping their row and key; followed ones are left alone", async (t) => {
  const w = await startWorld(t);
  const { s } = w;
  const alice = await s.user("alice");
  followRemote(w, alice);
  const otto = await remoteAccountOf(s, w.remote.actor("otto"));
  assert.notEqual(otto.fetchedAt, null);
  s.app.config.remoteContentRetentionDays = 90;
  const realNow = s.app.now;
  s.app.now = () => realNow() + 100 * DAY;
  const r = await pruneStorage(s.app);
  assert.equal(r.accounts.count, 1);
  const after = findAccountById(s.app.db, otto.id)!;
  assert.equal(after.fetchedAt, null);
  assert.equal(after.publicKeyPem, otto.publicKeyPem);
  assert.notEqual(findAccountById(s.app.db, w.author.id)!.fetchedAt, null, "rita, followed by alice, keeps being refreshed");
});

test("a prune of more posts than one batch takes every untouched one with its tags, media rows and feed rows, leaves no dangling reference and nothing local", async (t) => {
  const w = await startWorld(t);
  const { s } = w;
  const db = s.app.db;
  s.app.config.remoteContentRetentionDays = 90;
  const alice = await s.user("alice");
  const own = await s.api(alice, "POST", "/api/v1/statuses", { status: "mine #kept" });
  const tagged = await oldPost(w, 150, {
    tag: [{ type: "Hashtag", name: "#pruned", href: "https://remote.example/tags/pruned" }],
    attachment: [{ type: "Document", mediaType: "image/png", url: `${new URL(w.rita.id).origin}/files/p.png` }],
  });
  const bookmarked = await oldPost(w, 140);
  await s.api(alice, "POST", `/api/v1/statuses/${bookmarked.id}/bookmark`);
  // More bare remote posts than a transaction's batch, of 200 to 110 days ago, in alice's home.
  const bulk = 2_500;
  const old = Date.now() - 200 * DAY;
  const insert = db.prepare(
    `INSERT INTO statuses (id, account_id, local, uri, content, visibility, created_at, updated_at) VALUES (?, ?, 0, ?, '<p>old</p>', 'public', ?, ?)`,
  );
  const home = db.prepare("INSERT INTO home_feeds (account_id, status_id) VALUES (?, ?)");
  db.transaction(() => {
    for (let i = 0; i < bulk; i++) {
      const at = old + i * 1000;
      const id = (BigInt(at) << 16n) | BigInt(i);
      insert.run(id, BigInt(w.author.id), `${w.rita.id}/bulk/${i}`, at, at);
      home.run(BigInt(alice.id), id);
    }
  })();
  home.run(BigInt(alice.id), BigInt(tagged.id));
  await s.drainJobs();
  const count = (sql: string, ...args: unknown[]) => Number(db.prepare(sql).pluck().get(...args));
  assert.equal(count("SELECT count(*) FROM statuses_tags WHERE status_id = ?", BigInt(tagged.id)), 1);
  assert.equal(count("SELECT count(*) FROM media_attachments WHERE status_id = ?", BigInt(tagged.id)), 1);

  const done = await pruneStorage(s.app);
  assert.equal(done.statuses.count, bulk + 1);
  assert.equal(count("SELECT count(*) FROM statuses WHERE local = 0 AND account_id = ?", BigInt(w.author.id)), 1, "only the bookmarked post of rita's is left");
  assert.ok(findStatusById(db, bookmarked.id));
  assert.ok(findStatusById(db, own.id), "local posts are never pruned");
  assert.equal(count("SELECT count(*) FROM home_feeds WHERE account_id = ? AND status_id NOT IN (SELECT id FROM statuses)", BigInt(alice.id)), 0);
  assert.equal(count("SELECT count(*) FROM statuses_tags WHERE status_id = ?", BigInt(tagged.id)), 0);
  assert.equal(count("SELECT count(*) FROM media_attachments WHERE status_id = ?", BigInt(tagged.id)), 0);
  assert.deepEqual(db.pragma("foreign_key_check"), [], "no row refers to a pruned status");
});
