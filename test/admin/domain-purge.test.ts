// `roost domains purge` (Mastodon's tootctl domains purge): after limited federation is switched
// on, `--limited-federation` removes what came from the domains without an allow, and only
// that; `roost domains purge DOMAIN` removes one domain's accounts. Real remote content: two
// fake remote servers (127.0.0.1 allowed, 127.0.0.2 not) deliver signed posts and follows.
import assert from "node:assert/strict";
import { test } from "node:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { findAccountById } from "../../src/storage/accounts.ts";
import { listActionLogs } from "../../src/storage/admin-action-logs.ts";
import { type FakeActor, type FakeRemote, startFakeRemote } from "../helpers/fake-remote.ts";
import { PUBLIC } from "../helpers/outbox.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { roost } from "../cli/cli-helpers.ts";
import { ADMIN_SCOPES } from "./admin-helpers.ts";

let n = 0;
/** A signed Follow of the owner and a Create(Note) mentioning them, from `actor`. */
async function arrive(s: TestServer, r: FakeRemote, actor: FakeActor): Promise<void> {
  const owner = `${s.url}/users/boss`;
  const follow = await r.post(`${s.url}/inbox`, { "@context": "https://www.w3.org/ns/activitystreams", id: `${actor.id}/follows/${++n}`, type: "Follow", actor: actor.id, object: owner }, actor);
  assert.equal(follow.status, 202);
  for (let i = 0; i < 2; i++) {
    const note = {
      id: `${actor.id}/notes/${++n}`,
      type: "Note",
      attributedTo: actor.id,
      content: `<p>@boss note ${n} :${actor.username}_blob:</p>`,
      to: [PUBLIC],
      cc: [owner],
      tag: [{ type: "Mention", href: owner, name: "@boss" }, { type: "Emoji", name: `:${actor.username}_blob:`, icon: { type: "Image", mediaType: "image/png", url: `${r.origin}/blob.png` } }],
      published: new Date(s.app.now()).toISOString(),
    };
    const res = await r.post(`${s.url}/inbox`, { "@context": "https://www.w3.org/ns/activitystreams", id: `${note.id}/activity`, type: "Create", actor: actor.id, to: [PUBLIC], object: note }, actor);
    assert.equal(res.status, 202);
  }
  await s.drainJobs();
}

const count = (s: TestServer, sql: string, ...args: unknown[]) => Number((s.app.db.prepare(sql).get(...args) as { n: bigint }).n);
const accountOf = (s: TestServer, actor: FakeActor) => s.app.db.prepare("SELECT id FROM accounts WHERE uri = ?").get(actor.id) as { id: bigint } | undefined;

test("roost domains purge: --limited-federation removes the content of domains without an allow, DOMAIN one domain's; dry runs, refusals, audit", async (t) => {
  const s = await startTestServer();
  const friend = await startFakeRemote();
  const stranger = await startFakeRemote({ host: "127.0.0.2" });
  t.after(async () => {
    await s.close();
    await friend.close();
    await stranger.close();
  });
  const boss = await s.user("boss", { role: "owner", scopes: ADMIN_SCOPES });
  await s.user("mia", { role: "moderator", scopes: ADMIN_SCOPES });
  const [ann, zed] = [friend.actor("ann"), stranger.actor("zed")];
  const png = await sharp({ create: { width: 16, height: 16, channels: 4, background: "#c0ffee" } }).png().toBuffer();
  for (const r of [friend, stranger]) r.serveFile("/blob.png", png, "image/png");
  await arrive(s, friend, ann);
  await arrive(s, stranger, zed);
  const zedId = String(accountOf(s, zed)!.id);
  const annId = String(accountOf(s, ann)!.id);
  // The owner interacted with the stranger's post: that goes with it.
  const [zedPost] = await s.api(boss, "GET", `/api/v1/accounts/${zedId}/statuses`);
  await s.api(boss, "POST", `/api/v1/statuses/${zedPost.id}/favourite`);
  assert.equal(count(s, "SELECT count(*) AS n FROM statuses WHERE account_id = ?", BigInt(zedId)), 2);
  assert.deepEqual(
    (s.app.db.prepare("SELECT shortcode FROM custom_emojis WHERE domain IS NOT NULL ORDER BY shortcode").all() as { shortcode: string }[]).map((e) => e.shortcode),
    ["ann_blob", "zed_blob"],
  );
  const zedEmojiFile = (s.app.db.prepare("SELECT file FROM custom_emojis WHERE shortcode = 'zed_blob'").get() as { file: string | null }).file;
  assert.ok(zedEmojiFile && existsSync(join(s.app.mediaDir, zedEmojiFile)), "the emoji's image was copied");
  assert.equal((await s.api(boss, "GET", "/api/v1/accounts/verify_credentials")).followers_count, 2);
  await s.api(boss, "POST", "/api/v1/admin/domain_allows", { domain: "127.0.0.1" });

  const dd = ["--data-dir", s.dataDir];
  // With limited federation off, --limited-federation would mean every remote account: refused.
  const off = await roost(["domains", "purge", "--limited-federation", ...dd]);
  assert.deepEqual([off.code, off.stderr], [1, "error: limited federation is off: every domain is allowed (roost settings set limited-federation on)\n"]);
  const on = await roost(["settings", "set", "limited-federation", "on", ...dd]);
  assert.equal(on.code, 0, on.stderr);
  assert.match(on.stderr, /roost domains purge --limited-federation/);

  const [dry, both, none, bad, moderator] = await Promise.all([
    roost(["domains", "purge", "--limited-federation", "--dry-run", "--json", ...dd]),
    roost(["domains", "purge", "x.example", "--limited-federation", ...dd]),
    roost(["domains", "purge", ...dd]),
    roost(["domains", "purge", "not a domain", ...dd]),
    roost(["domains", "purge", "--limited-federation", "--as", "mia", ...dd]),
  ]);
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(JSON.parse(dry.stdout), { domains: "127.0.0.2", accounts: 1, statuses: 2, custom_emojis: 1, dry_run: true });
  assert.equal(dry.stderr, "dry run: would remove 1 accounts, 2 posts and 1 custom emojis\n");
  assert.deepEqual([both.code, both.stderr], [1, "error: DOMAIN is not supported with --limited-federation\n"]);
  assert.deepEqual([none.code, none.stderr], [1, "error: No domain(s) given\n"]);
  assert.deepEqual([bad.code, bad.stderr], [1, "error: Validation failed: not a domain is not a domain\n"]);
  assert.deepEqual([moderator.code, moderator.stderr], [1, "error: This action is not allowed\n"], "moderators lack manage_federation");
  await s.drainJobs();
  assert.ok(findAccountById(s.app.db, zedId), "a dry run removes nothing");

  const purge = await roost(["domains", "purge", "--limited-federation", "--json", ...dd]);
  assert.equal(purge.code, 0, purge.stderr);
  assert.deepEqual(JSON.parse(purge.stdout), { domains: "127.0.0.2", accounts: 1, statuses: 2, custom_emojis: 1, dry_run: false });
  await s.drainJobs();
  // The stranger is gone without a trace: account, posts, the follow, the favourite, the notifications.
  assert.equal(findAccountById(s.app.db, zedId), undefined);
  assert.equal(count(s, "SELECT count(*) AS n FROM statuses WHERE account_id = ?", BigInt(zedId)), 0);
  assert.equal(count(s, "SELECT count(*) AS n FROM favourites WHERE status_id = ?", BigInt(zedPost.id)), 0);
  assert.equal(count(s, "SELECT count(*) AS n FROM notifications WHERE from_account_id = ?", BigInt(zedId)), 0);
  assert.equal((await s.api(boss, "GET", "/api/v1/accounts/verify_credentials")).followers_count, 1);
  assert.deepEqual((s.app.db.prepare("SELECT shortcode FROM custom_emojis WHERE domain IS NOT NULL").all() as { shortcode: string }[]).map((e) => e.shortcode), ["ann_blob"]);
  assert.equal(existsSync(join(s.app.mediaDir, zedEmojiFile)), false, "and its copy removed");
  // The allowed friend keeps everything.
  assert.equal(count(s, "SELECT count(*) AS n FROM statuses WHERE account_id = ?", BigInt(annId)), 2);
  assert.equal((await s.api(boss, "GET", "/api/v1/accounts/relationships?id[]=" + annId))[0].followed_by, true);
  // Audited as Mastodon's destroy Instance, with what went.
  const [entry] = listActionLogs(s.app.db, { action: "destroy", targetType: "Instance", limit: 5 });
  assert.deepEqual([entry.actorName, entry.source, entry.humanIdentifier, entry.changes], ["boss", "cli", "127.0.0.2", { accounts: [1, 0], statuses: [2, 0], custom_emojis: [1, 0] }]);

  // An explicit domain, allowed or not: its accounts go too (a port is not part of the name).
  const one = await roost(["domains", "purge", "127.0.0.1", "--dry-run", ...dd]);
  assert.equal(one.code, 0, one.stderr);
  assert.match(one.stdout, /^domains\s+127\.0\.0\.1\naccounts\s+1\nstatuses\s+2\n/);
  assert.equal((await roost(["domains", "purge", "127.0.0.1", ...dd])).code, 0);
  await s.drainJobs();
  assert.equal(findAccountById(s.app.db, annId), undefined);
  assert.equal(count(s, "SELECT count(*) AS n FROM statuses WHERE account_id = ?", BigInt(annId)), 0);
  assert.equal((await s.api(boss, "GET", "/api/v1/accounts/verify_credentials")).followers_count, 0);
});
