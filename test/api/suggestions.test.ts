// Follow suggestions: GET /api/v2/suggestions (each source with the accounts it must name),
// GET /api/v1/suggestions, DELETE /api/v1/suggestions/:account_id, and every exclusion
// (Mastodon's AccountSuggestions::Source#base_account_scope).
import { test } from "node:test";
import assert from "node:assert/strict";
import { actorForAccount } from "../../src/admin/actor.ts";
import { featureAccount, unfeatureAccount } from "../../src/admin/featured-accounts.ts";
import { readAuditLog } from "../../src/admin/audit.ts";
import { updateAccount } from "../../src/storage/accounts.ts";
import { refreshSuggestions } from "../../src/suggestions/refresh.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

const acctSources = (list: { account: { acct: string }; sources: string[] }[]) => list.map((s) => [s.account.acct, ...s.sources].join(" "));

async function discoverable(s: TestServer, name: string, extra: Record<string, unknown> = {}): Promise<TestUser> {
  const u = await s.user(name);
  await s.api(u, "PATCH", "/api/v1/accounts/update_credentials", { discoverable: true, ...extra });
  return u;
}

test("suggestions: featured, friends of friends and the global ranking, merged with their sources", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const admin = await s.user("admin", { role: "admin" });
  const actor = actorForAccount(s.app, admin.id, "cli")!;
  const viewer = await s.user("viewer");

  // Friends of friends: the viewer follows amy and ben; both follow carl, amy follows dora.
  // hal hides whom he follows: his follow of eve does not count.
  const [amy, ben, hal] = [await discoverable(s, "amy"), await discoverable(s, "ben"), await discoverable(s, "hal", { hide_collections: true })];
  const [carl, dora, eve] = [await discoverable(s, "carl"), await discoverable(s, "dora"), await discoverable(s, "eve")];
  for (const f of [amy, ben, hal]) await s.api(viewer, "POST", `/api/v1/accounts/${f.id}/follow`);
  await s.api(amy, "POST", `/api/v1/accounts/${carl.id}/follow`);
  await s.api(ben, "POST", `/api/v1/accounts/${carl.id}/follow`);
  await s.api(amy, "POST", `/api/v1/accounts/${dora.id}/follow`);
  await s.api(hal, "POST", `/api/v1/accounts/${eve.id}/follow`);

  // Featured by the admin: fay, and carl (who is also a friend of friends).
  const fay = await discoverable(s, "fay");
  featureAccount(s.app, actor, fay.account);
  // A millisecond later: featured in the same one, the two would tie (then ordered by id).
  const featuredAt = s.app.now();
  const clock = s.app.now;
  s.app.now = () => featuredAt + 1;
  featureAccount(s.app, actor, carl.account);
  s.app.now = clock;

  // Global: max is followed by five active local users who also favourite his post (both
  // reasons); ivy's post is favourited by three and boosted by two (most_interactions); nat
  // has five followers but is not discoverable; lou has four (below the threshold).
  const max = await discoverable(s, "max");
  const ivy = await discoverable(s, "ivy");
  const nat = await s.user("nat");
  const lou = await discoverable(s, "lou");
  const maxPost = await s.api(max, "POST", "/api/v1/statuses", { status: "hello" });
  const ivyPost = await s.api(ivy, "POST", "/api/v1/statuses", { status: "look" });
  for (let i = 0; i < 5; i++) {
    const p = await s.user(`p${i}`);
    await s.api(p, "POST", `/api/v1/accounts/${max.id}/follow`);
    await s.api(p, "POST", `/api/v1/accounts/${nat.id}/follow`);
    if (i < 4) await s.api(p, "POST", `/api/v1/accounts/${lou.id}/follow`);
    await s.api(p, "POST", `/api/v1/statuses/${maxPost.id}/favourite`);
    await s.api(p, "POST", `/api/v1/statuses/${ivyPost.id}/${i < 3 ? "favourite" : "reblog"}`);
  }
  await s.drainJobs();
  assert.equal(await refreshSuggestions(s.app), 2);

  const res = await s.req(viewer, "GET", "/api/v2/suggestions");
  assert.equal(res.status, 200);
  assert.deepEqual(acctSources(res.body), [
    "fay featured",
    "carl featured friends_of_friends",
    "dora friends_of_friends",
    "max most_followed most_interactions",
    "ivy most_interactions",
  ]);
  assert.deepEqual(
    res.body.map((x: { source: string }) => x.source),
    ["staff", "staff", "past_interactions", "global", "global"],
  );
  assert.equal(res.body[0].account.id, fay.id);
  assert.equal(res.headers.get("link"), null);

  // offset and limit page through the same list; limit is at most 80; a negative offset is 400.
  assert.deepEqual(acctSources((await s.api(viewer, "GET", "/api/v2/suggestions?limit=2")).slice()), ["fay featured", "carl featured friends_of_friends"]);
  assert.deepEqual(acctSources(await s.api(viewer, "GET", "/api/v2/suggestions?limit=2&offset=2")), ["dora friends_of_friends", "max most_followed most_interactions"]);
  assert.equal((await s.api(viewer, "GET", "/api/v2/suggestions?limit=500")).length, 5);
  assert.equal((await s.req(viewer, "GET", "/api/v2/suggestions?offset=-1")).status, 400);

  // v1: the accounts alone, deprecated.
  const v1 = await s.req(viewer, "GET", "/api/v1/suggestions?limit=3");
  assert.equal(v1.status, 200);
  assert.deepEqual(v1.body.map((a: { acct: string }) => a.acct), ["fay", "carl", "dora"]);
  assert.equal(v1.headers.get("deprecation"), "@1621123200");

  // Another user's friends of friends are their own: amy follows carl and dora already, so
  // nobody of hers is left; the featured and global ones remain (not amy herself).
  assert.deepEqual(acctSources(await s.api(amy, "GET", "/api/v2/suggestions")), ["fay featured", "max most_followed most_interactions", "ivy most_interactions"]);

  // A follow, and a mute on a friend of a friend, apply at once.
  await s.api(viewer, "POST", `/api/v1/accounts/${carl.id}/follow`);
  await s.api(viewer, "POST", `/api/v1/accounts/${dora.id}/mute`);
  assert.deepEqual(acctSources(await s.api(viewer, "GET", "/api/v2/suggestions")), ["fay featured", "max most_followed most_interactions", "ivy most_interactions"]);

  // Unfeatured: gone from the featured source; both changes are in the audit log.
  unfeatureAccount(s.app, actor, fay.account);
  assert.deepEqual(acctSources(await s.api(viewer, "GET", "/api/v2/suggestions")), ["max most_followed most_interactions", "ivy most_interactions"]);
  const log = readAuditLog(s.app, actor, { targetType: "Account", targetId: fay.id, limit: 10 });
  assert.deepEqual(
    log.map((e) => [e.action, e.targetType, e.humanIdentifier, e.changes]),
    [
      ["unfeature", "Account", "fay", { featured: [true, false] }],
      ["feature", "Account", "fay", { featured: [false, true] }],
    ],
  );

  // The refresh again (it rewrites only what changed): lou gains a fifth and sixth follower
  // among active local users (6/7 ranks him above ivy's 5/6); max locks his account and leaves
  // the global sources.
  const [p5, p6] = [await s.user("p5"), await s.user("p6")];
  for (const p of [p5, p6]) await s.api(p, "POST", `/api/v1/accounts/${lou.id}/follow`);
  await s.api(max, "PATCH", "/api/v1/accounts/update_credentials", { locked: true });
  await s.drainJobs();
  assert.equal(await refreshSuggestions(s.app), 2);
  assert.deepEqual(acctSources(await s.api(viewer, "GET", "/api/v2/suggestions")), ["lou most_followed", "ivy most_interactions"]);
  // Three more favourites of ivy's post: 8/9 ranks her first again.
  for (const p of [p5, p6, amy]) await s.api(p, "POST", `/api/v1/statuses/${ivyPost.id}/favourite`);
  await s.drainJobs();
  assert.equal(await refreshSuggestions(s.app), 2);
  assert.deepEqual(acctSources(await s.api(viewer, "GET", "/api/v2/suggestions")), ["ivy most_interactions", "lou most_followed"]);

  // Tokens: a user token with read:accounts (write:accounts to dismiss).
  assert.equal((await s.req(null, "GET", "/api/v2/suggestions")).status, 401);
  const narrow = await s.user("narrow", { scopes: ["read:statuses"] });
  assert.equal((await s.req(narrow, "GET", "/api/v2/suggestions")).status, 403);
  assert.equal((await s.req(narrow, "DELETE", `/api/v1/suggestions/${max.id}`)).status, 403);
});

test("suggestions never name the viewer, nor accounts it follows, requested, blocks, mutes, dismissed, nor hidden ones", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const admin = await s.user("admin", { role: "admin" });
  const actor = actorForAccount(s.app, admin.id, "cli")!;
  const viewer = await discoverable(s, "viewer");
  const names = ["ok", "followed", "requested", "blocked", "blocker", "muted", "dismissed", "suspended", "silenced", "moved", "memorial", "hidden"];
  const u: Record<string, TestUser> = {};
  for (const n of names) u[n] = n === "hidden" ? await s.user(n) : await discoverable(s, n, n === "requested" ? { locked: true } : {});
  for (const n of names) featureAccount(s.app, actor, u[n].account);
  featureAccount(s.app, actor, viewer.account);
  const featured = async () => (await s.api(viewer, "GET", "/api/v2/suggestions")).map((x: { account: { acct: string } }) => x.account.acct);
  assert.deepEqual(await featured(), names.filter((n) => n !== "hidden"));

  await s.api(viewer, "POST", `/api/v1/accounts/${u.followed.id}/follow`);
  await s.api(viewer, "POST", `/api/v1/accounts/${u.requested.id}/follow`); // locked: a request
  await s.api(viewer, "POST", `/api/v1/accounts/${u.blocked.id}/block`);
  await s.api(u.blocker, "POST", `/api/v1/accounts/${viewer.id}/block`);
  await s.api(viewer, "POST", `/api/v1/accounts/${u.muted.id}/mute`);
  assert.deepEqual(await s.api(viewer, "DELETE", `/api/v1/suggestions/${u.dismissed.id}`), {});
  updateAccount(s.app.db, u.suspended.id, { suspendedAt: s.app.now() });
  updateAccount(s.app.db, u.silenced.id, { silencedAt: s.app.now() });
  updateAccount(s.app.db, u.moved.id, { movedToAccountId: u.ok.id });
  updateAccount(s.app.db, u.memorial.id, { memorial: true });
  assert.deepEqual(await featured(), ["ok"]);

  // The dismissal is stored (others still see the account), and unknown ids are ignored.
  const other = await s.user("other");
  assert.ok((await s.api(other, "GET", "/api/v2/suggestions")).some((x: { account: { id: string } }) => x.account.id === u.dismissed.id));
  const row = s.app.db.prepare("SELECT count(*) AS n FROM follow_recommendation_mutes WHERE account_id = ? AND target_account_id = ?").get(BigInt(viewer.id), BigInt(u.dismissed.id)) as { n: bigint };
  assert.equal(Number(row.n), 1);
  assert.deepEqual(await s.api(viewer, "DELETE", "/api/v1/suggestions/123456789"), {});
  assert.deepEqual(await s.api(viewer, "DELETE", "/api/v1/suggestions/not-an-id"), {});
  // A mute that expired no longer hides the account.
  s.app.db.prepare("UPDATE mutes SET expires_at = ? WHERE target_account_id = ?").run(s.app.now() - 1, BigInt(u.muted.id));
  assert.deepEqual(await featured(), ["ok", "muted"]);
});
