import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { ids, post } from "../helpers/posting.ts";
import { LIST_MERGE_INLINE_MAX } from "../../src/services/feeds.ts";

// List backfill (Mastodon 4.3+ AddAccountsToListService → MergeWorker → FeedManager#merge_into_list,
// RemoveAccountsFromListService → unmerge_from_list): a member's earlier posts enter the list
// under the fan-out's rules, and leave with the member.

const HOME = "/api/v1/timelines/home?limit=40";
const timeline = (s: TestServer, who: TestUser, list: { id: string }) => ids(s, who, `/api/v1/timelines/list/${list.id}?limit=40`);
const newestFirst = (xs: { id: string }[]) => xs.map((x) => x.id).sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1));

async function follow(s: TestServer, who: TestUser, target: TestUser, body: Record<string, unknown> = {}) {
  await s.api(who, "POST", `/api/v1/accounts/${target.id}/follow`, body);
}
async function addMembers(s: TestServer, owner: TestUser, list: { id: string }, members: TestUser[]) {
  await s.api(owner, "POST", `/api/v1/lists/${list.id}/accounts`, { account_ids: members.map((m) => m.id) });
}
async function newList(s: TestServer, owner: TestUser, title: string, replies_policy = "list", exclusive = false) {
  return s.api<{ id: string }>(owner, "POST", "/api/v1/lists", { title, replies_policy, exclusive });
}
const reblog = (s: TestServer, who: TestUser, p: { id: string }) => s.api<{ id: string }>(who, "POST", `/api/v1/statuses/${p.id}/reblog`);

test("adding members backfills their earlier posts by the fan-out's rules; home is left alone", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const users: TestUser[] = [];
  for (const n of ["alice", "bob", "carol", "dave", "erin", "mallory", "blocky"]) users.push(await s.user(n));
  const [alice, bob, carol, dave, erin, mallory, blocky] = users;
  await follow(s, alice, bob, { reblogs: false });
  await follow(s, alice, carol);
  await follow(s, alice, dave);
  await s.api(alice, "POST", `/api/v1/accounts/${mallory.id}/mute`);
  await s.api(alice, "POST", `/api/v1/accounts/${blocky.id}/block`);

  // Twins: members added before the posts (filled by fan-out) and after them (backfilled).
  const policies = ["list", "followed", "none"];
  const fanned = [];
  for (const p of policies) {
    const l = await newList(s, alice, `fan-out ${p}`, p);
    await addMembers(s, alice, l, [bob, carol]);
    fanned.push(l);
  }

  const [ePost, dPost, mPost, kPost, aPost, cPost] = [
    await post(s, erin, { status: "erin" }),
    await post(s, dave, { status: "dave" }),
    await post(s, mallory, { status: "mallory" }),
    await post(s, blocky, { status: "blocky" }),
    await post(s, alice, { status: "alice" }),
    await post(s, carol, { status: "carol" }),
  ];
  const bPub = await post(s, bob, { status: "bob public" });
  const bUnl = await post(s, bob, { status: "bob unlisted", visibility: "unlisted" });
  const bPriv = await post(s, bob, { status: "bob followers-only", visibility: "private" });
  const bDm = await post(s, bob, { status: "@alice bob direct", visibility: "direct" });
  const bSelf = await post(s, bob, { status: "bob thread", in_reply_to_id: bPub.id });
  const bToAlice = await post(s, bob, { status: "@alice to the owner", in_reply_to_id: aPost.id });
  const bToCarol = await post(s, bob, { status: "@carol to a member", in_reply_to_id: cPost.id });
  const bToDave = await post(s, bob, { status: "@dave to a followed non-member", in_reply_to_id: dPost.id });
  const bToErin = await post(s, bob, { status: "@erin to a stranger", in_reply_to_id: ePost.id });
  const bBoost = await reblog(s, bob, ePost); // alice hides bob's boosts
  const bMuted = await post(s, bob, { status: "@mallory mentions a muted account" });
  const cBoost = await reblog(s, carol, ePost);
  const cBoostMuted = await reblog(s, carol, mPost);
  const cBoostBlocked = await reblog(s, carol, kPost);
  const cBlocked = await post(s, carol, { status: "@blocky mentions a blocked account" });
  await s.drainJobs();

  const homeBefore = await ids(s, alice, HOME);
  assert.ok(homeBefore.includes(bPub.id) && homeBefore.includes(cBoost.id) && homeBefore.includes(bDm.id));

  const backfilled = [];
  for (const p of policies) {
    const l = await newList(s, alice, `backfill ${p}`, p);
    assert.deepEqual(await timeline(s, alice, l), []);
    await addMembers(s, alice, l, [bob, carol]);
    backfilled.push(l);
  }
  // Few posts: merged in the request itself, before any job runs.
  const expected = {
    list: newestFirst([bPub, bUnl, bPriv, bSelf, bToAlice, bToCarol, cPost, cBoost]),
    followed: newestFirst([bPub, bUnl, bPriv, bSelf, bToAlice, bToCarol, bToDave, cPost, cBoost]),
    none: newestFirst([bPub, bUnl, bPriv, bSelf, bToAlice, cPost, cBoost]),
  } as Record<string, string[]>;
  for (const [i, p] of policies.entries()) assert.deepEqual(await timeline(s, alice, backfilled[i]), expected[p], `backfill, replies_policy ${p}`);
  await s.drainJobs();
  for (const [i, p] of policies.entries()) {
    assert.deepEqual(await timeline(s, alice, backfilled[i]), expected[p], `backfill after jobs, replies_policy ${p}`);
    assert.deepEqual(await timeline(s, alice, fanned[i]), expected[p], `fan-out, replies_policy ${p}`);
  }
  for (const p of [bDm, bToErin, bBoost, bMuted, cBoostMuted, cBoostBlocked, cBlocked])
    assert.ok(!expected.followed.includes(p.id), "left out by every policy");

  assert.deepEqual(await ids(s, alice, HOME), homeBefore, "a non-exclusive list does not change home");

  // Re-adding after leaving backfills again; new posts keep arriving by fan-out.
  await s.api(alice, "DELETE", `/api/v1/lists/${backfilled[0].id}/accounts`, { account_ids: [bob.id] });
  assert.deepEqual(await timeline(s, alice, backfilled[0]), newestFirst([cPost, cBoost]), "leaving takes the member's posts and boosts out");
  assert.deepEqual(await timeline(s, alice, fanned[0]), expected.list, "other lists keep them");
  await addMembers(s, alice, backfilled[0], [bob]);
  const later = await post(s, bob, { status: "later" });
  await s.drainJobs();
  assert.deepEqual(await timeline(s, alice, backfilled[0]), [later.id, ...expected.list]);

  // The owner may list itself: its own earlier posts come in, as fan-out brings its new ones.
  const own = await newList(s, alice, "self");
  await addMembers(s, alice, own, [alice]);
  assert.deepEqual(await timeline(s, alice, own), [aPost.id]);
});

test("exclusive list: backfilled; earlier posts stay in home (as in Mastodon), later ones skip it", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol] = [await s.user("alice"), await s.user("bob"), await s.user("carol")];
  await follow(s, alice, bob);
  await follow(s, alice, carol);
  const cPost = await post(s, carol, { status: "carol" });
  const b1 = await post(s, bob, { status: "one" });
  const b2 = await post(s, bob, { status: "two", visibility: "private" });
  const bToCarol = await post(s, bob, { status: "@carol hi", in_reply_to_id: cPost.id });
  await s.drainJobs();
  const homeBefore = await ids(s, alice, HOME);
  assert.deepEqual(homeBefore, [bToCarol.id, b2.id, b1.id, cPost.id]);

  const excl = await newList(s, alice, "exclusive", "list", true);
  await addMembers(s, alice, excl, [bob]);
  await s.drainJobs();
  // replies_policy "list": carol is not a member, so the reply to her stays out.
  assert.deepEqual(await timeline(s, alice, excl), [b2.id, b1.id]);
  assert.deepEqual(await ids(s, alice, HOME), homeBefore, "AddAccountsToListService does not unmerge from home");

  const b3 = await post(s, bob, { status: "three" });
  const c2 = await post(s, carol, { status: "carol again" });
  await s.drainJobs();
  assert.deepEqual(await timeline(s, alice, excl), [b3.id, b2.id, b1.id]);
  assert.deepEqual(await ids(s, alice, HOME), [c2.id, ...homeBefore], "new posts of an exclusive member skip home");
});

test("members with many posts are merged by a job; leaving, removal and deletion before it runs", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol] = [await s.user("alice"), await s.user("bob"), await s.user("carol")];
  await follow(s, alice, bob);
  await follow(s, alice, carol);
  const many = [];
  for (let i = 0; i <= LIST_MERGE_INLINE_MAX; i++) many.push(await post(s, bob, { status: `bob ${i}` }));
  const cPost = await post(s, carol, { status: "carol" });
  await s.drainJobs();
  const bobIds = newestFirst(many);

  const list = await newList(s, alice, "big");
  await addMembers(s, alice, list, [bob, carol]);
  assert.deepEqual(await timeline(s, alice, list), [cPost.id], "the small account at once, the big one in a job");
  await s.drainJobs();
  const merged = [cPost.id, ...bobIds];
  assert.deepEqual(await timeline(s, alice, list), merged.slice(0, 40));
  assert.deepEqual(await ids(s, alice, `/api/v1/timelines/list/${list.id}?limit=40&max_id=${merged[39]}`), merged.slice(40));

  // Removed before its job ran: the job adds nothing.
  const gone = await newList(s, alice, "gone member");
  await addMembers(s, alice, gone, [bob]);
  await s.api(alice, "DELETE", `/api/v1/lists/${gone.id}/accounts`, { account_ids: [bob.id] });
  await s.drainJobs();
  assert.deepEqual(await timeline(s, alice, gone), []);

  // A list deleted before its job ran: the job is dropped quietly, no rows are left.
  const deleted = await newList(s, alice, "deleted");
  await addMembers(s, alice, deleted, [bob]);
  assert.deepEqual(await s.api(alice, "DELETE", `/api/v1/lists/${deleted.id}`), {});
  await s.drainJobs();
  assert.equal((await s.req(alice, "GET", `/api/v1/timelines/list/${deleted.id}`)).status, 404);
  const count = (sql: string) => Number((s.app.db.prepare(sql).get(BigInt(deleted.id)) as { n: bigint }).n);
  assert.equal(count("SELECT count(*) AS n FROM list_feeds WHERE list_id = ?"), 0);
  assert.equal(Number((s.app.db.prepare("SELECT count(*) AS n FROM jobs").get() as { n: bigint }).n), 0);
  assert.equal(Number((s.app.db.prepare("SELECT count(*) AS n FROM dead_jobs").get() as { n: bigint }).n), 0);

  // Deleting a backfilled list takes its feed with it.
  assert.deepEqual(await s.api(alice, "DELETE", `/api/v1/lists/${list.id}`), {});
  assert.equal(Number((s.app.db.prepare("SELECT count(*) AS n FROM list_feeds").get() as { n: bigint }).n), 0);
});

test("a requested member is backfilled once accepted; unmuting a member brings its posts back to the list", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol] = [await s.user("alice"), await s.user("bob"), await s.user("carol")];
  await s.api(bob, "PATCH", "/api/v1/accounts/update_credentials", { locked: true });
  const b1 = await post(s, bob, { status: "public" });
  const b2 = await post(s, bob, { status: "followers only", visibility: "private" });
  await follow(s, alice, bob);
  await follow(s, alice, carol);
  const c1 = await post(s, carol, { status: "carol" });
  await s.drainJobs();

  const list = await newList(s, alice, "pending");
  await addMembers(s, alice, list, [bob, carol]);
  await s.drainJobs();
  assert.deepEqual(await timeline(s, alice, list), [c1.id], "nothing of a member whose follow is pending");
  await s.api(bob, "POST", `/api/v1/follow_requests/${alice.id}/authorize`);
  await s.drainJobs();
  assert.deepEqual(await timeline(s, alice, list), [c1.id, b2.id, b1.id]);

  await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/mute`);
  assert.deepEqual(await timeline(s, alice, list), [b2.id, b1.id]);
  await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/unmute`);
  await s.drainJobs();
  assert.deepEqual(await timeline(s, alice, list), [c1.id, b2.id, b1.id], "UnmuteService merges into the lists too");
});
