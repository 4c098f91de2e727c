import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { ids, post } from "../helpers/posting.ts";
import { trimFeeds } from "../../src/services/feeds.ts";

// Home timeline: materialised by the status.fanout job with Mastodon's write-time rules, and
// read with read-time block/mute filters.

const HOME = "/api/v1/timelines/home";

async function follow(s: TestServer, who: TestUser, target: TestUser, body: Record<string, unknown> = {}) {
  await s.api(who, "POST", `/api/v1/accounts/${target.id}/follow`, body);
}

test("home timeline: who receives a post, replies, languages, mutes, unfollow, DMs, trim", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol, dave] = [await s.user("alice"), await s.user("bob"), await s.user("carol"), await s.user("dave")];
  await follow(s, bob, alice);
  await follow(s, bob, dave);
  await follow(s, carol, alice, { languages: ["en"] });

  await t.test("a post reaches the author and local followers, not others", async () => {
    const p = await post(s, alice, { status: "hello followers" });
    await s.drainJobs();
    assert.deepEqual(await ids(s, alice, HOME), [p.id]);
    assert.deepEqual(await ids(s, bob, HOME), [p.id]);
    assert.deepEqual(await ids(s, dave, HOME), []);
    const [entry] = await s.api(bob, "GET", HOME);
    assert.equal(entry.id, p.id);
    assert.equal((entry.account as { id: string }).id, alice.id);
  });

  await t.test("replies: only to the author itself, the reader, or someone the reader follows", async () => {
    const carolPost = await post(s, carol, { status: "carol speaks" });
    const davePost = await post(s, dave, { status: "dave speaks" });
    const bobPost = await post(s, bob, { status: "bob speaks" });
    const alicePost = await post(s, alice, { status: "alice thread start" });
    const toCarol = await post(s, alice, { status: "@carol hi", in_reply_to_id: carolPost.id });
    const toDave = await post(s, alice, { status: "@dave hi", in_reply_to_id: davePost.id });
    const toBob = await post(s, alice, { status: "@bob hi", in_reply_to_id: bobPost.id });
    const toSelf = await post(s, alice, { status: "and more", in_reply_to_id: alicePost.id });
    await s.drainJobs();
    const home = await ids(s, bob, HOME);
    assert.ok(!home.includes(toCarol.id), "reply to an account bob does not follow is left out");
    assert.ok(home.includes(toDave.id), "reply to a followed account is in");
    assert.ok(home.includes(toBob.id), "reply to bob himself is in");
    assert.ok(home.includes(toSelf.id), "self-reply is in");
    assert.ok(home.includes(davePost.id) && home.includes(bobPost.id));
    assert.ok((await ids(s, alice, HOME)).includes(toCarol.id), "the author always sees her own replies");
  });

  await t.test("the follow's languages filter hides posts in other languages", async () => {
    const en = await post(s, alice, { status: "in english", language: "en" });
    const de = await post(s, alice, { status: "auf deutsch", language: "de" });
    const none = await post(s, alice, { status: "no language given" });
    await s.drainJobs();
    const home = await ids(s, carol, HOME);
    assert.ok(home.includes(en.id));
    assert.ok(!home.includes(de.id));
    assert.ok(home.includes(none.id));
    assert.ok((await ids(s, bob, HOME)).includes(de.id), "bob's follow has no language filter");
  });

  await t.test("a muted author disappears from home at once", async () => {
    const before = await ids(s, bob, HOME);
    const daveIds = (await s.api<{ id: string; account: { id: string } }[]>(bob, "GET", HOME))
      .filter((x) => x.account.id === dave.id)
      .map((x) => x.id);
    assert.ok(daveIds.length > 0);
    await s.api(bob, "POST", `/api/v1/accounts/${dave.id}/mute`);
    const after = await ids(s, bob, HOME);
    assert.deepEqual(after, before.filter((id) => !daveIds.includes(id)));
    const later = await post(s, dave, { status: "still muted" });
    await s.drainJobs();
    assert.ok(!(await ids(s, bob, HOME)).includes(later.id));
  });

  await t.test("unfollowing removes the account's posts from home", async () => {
    await follow(s, dave, carol);
    const p = await post(s, carol, { status: "for dave" });
    await s.drainJobs();
    assert.ok((await ids(s, dave, HOME)).includes(p.id));
    await s.api(dave, "POST", `/api/v1/accounts/${carol.id}/unfollow`);
    assert.ok(!(await ids(s, dave, HOME)).includes(p.id));
  });

  await t.test("a direct message reaches only the author and mentioned followers, never public timelines", async () => {
    const dm = await post(s, alice, { status: "@bob secret", visibility: "direct" });
    const dmToDave = await post(s, alice, { status: "@dave psst", visibility: "direct" });
    await s.drainJobs();
    assert.ok((await ids(s, alice, HOME)).includes(dm.id));
    assert.ok((await ids(s, bob, HOME)).includes(dm.id), "bob is mentioned and follows alice");
    assert.ok(!(await ids(s, carol, HOME)).includes(dm.id), "carol follows alice but is not mentioned");
    // Mastodon's deliver_to_mentioned_followers: dave is mentioned but does not follow alice.
    assert.ok(!(await ids(s, dave, HOME)).includes(dmToDave.id));
    assert.ok(!(await ids(s, null, "/api/v1/timelines/public")).includes(dm.id));
  });

  await t.test("private posts reach followers' homes", async () => {
    const p = await post(s, alice, { status: "followers only", visibility: "private" });
    await s.drainJobs();
    assert.ok((await ids(s, bob, HOME)).includes(p.id));
    assert.ok(!(await ids(s, dave, HOME)).includes(p.id));
  });

  await t.test("the periodic trim keeps the newest entries of each feed", async () => {
    const home = await ids(s, bob, HOME + "?limit=40");
    assert.ok(home.length > 3);
    trimFeeds(s.app, 3);
    assert.deepEqual(await ids(s, bob, HOME), home.slice(0, 3));
  });
});

test("home timeline pagination: max_id, since_id, min_id and the Link header", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const posted: string[] = [];
  for (let i = 0; i < 5; i++) posted.push((await post(s, alice, { status: `post ${i}` })).id);
  await s.drainJobs();
  const [p0, p1, p2, p3, p4] = posted;
  const base = `${s.app.baseUrl}${HOME}`;

  const first = await s.req(alice, "GET", `${HOME}?limit=2`);
  assert.deepEqual(first.body.map((x: { id: string }) => x.id), [p4, p3]);
  assert.equal(first.headers.get("link"), `<${base}?limit=2&max_id=${p3}>; rel="next", <${base}?limit=2&min_id=${p4}>; rel="prev"`);

  assert.deepEqual(await ids(s, alice, `${HOME}?limit=2&max_id=${p3}`), [p2, p1]);
  const last = await s.req(alice, "GET", `${HOME}?limit=2&max_id=${p1}`);
  assert.deepEqual(last.body.map((x: { id: string }) => x.id), [p0]);
  // Timelines emit `next` for any non-empty page, even a short one.
  assert.equal(last.headers.get("link"), `<${base}?limit=2&max_id=${p0}>; rel="next", <${base}?limit=2&min_id=${p0}>; rel="prev"`);

  const empty = await s.req(alice, "GET", `${HOME}?max_id=${p0}`);
  assert.deepEqual(empty.body, []);
  assert.equal(empty.headers.get("link"), null);

  // since_id: still the newest page above the cursor; min_id: the page right after the cursor.
  assert.deepEqual(await ids(s, alice, `${HOME}?limit=2&since_id=${p1}`), [p4, p3]);
  assert.deepEqual(await ids(s, alice, `${HOME}?limit=2&min_id=${p1}`), [p3, p2]);
  assert.deepEqual(await ids(s, alice, `${HOME}?min_id=${p1}&max_id=${p4}`), [p3, p2]);
  assert.equal((await ids(s, alice, `${HOME}?limit=100`)).length, 5);
  assert.deepEqual(await ids(s, alice, `${HOME}?limit=0`), []);

  const anon = await s.req(null, "GET", HOME);
  assert.equal(anon.status, 401);
  const noScope = await s.user("nobody", { scopes: ["write"] });
  assert.equal((await s.req(noScope, "GET", HOME)).status, 403);
});

test("boosts: reblogs=false hides future boosts only; recent originals are not repeated", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol] = [await s.user("alice"), await s.user("bob"), await s.user("carol")];
  await follow(s, bob, alice);
  const first = await post(s, carol, { status: "first" });
  const second = await post(s, carol, { status: "second" });
  const boost1 = await s.api(alice, "POST", `/api/v1/statuses/${first.id}/reblog`);
  await s.drainJobs();
  assert.ok((await ids(s, bob, HOME)).includes(boost1.id));

  await follow(s, bob, alice, { reblogs: false });
  const boost2 = await s.api(alice, "POST", `/api/v1/statuses/${second.id}/reblog`);
  await s.drainJobs();
  const home = await ids(s, bob, HOME);
  assert.ok(!home.includes(boost2.id), "a boost after reblogs=false is hidden");
  assert.ok(home.includes(boost1.id), "the earlier boost stays");

  // bob follows carol too: her post is already near the top of his home, so dave's boost of it is not added.
  const dave = await s.user("dave");
  await follow(s, bob, carol);
  await follow(s, bob, dave);
  const third = await post(s, carol, { status: "third" });
  await s.drainJobs();
  const boost3 = await s.api(dave, "POST", `/api/v1/statuses/${third.id}/reblog`);
  await s.drainJobs();
  const after = await ids(s, bob, HOME);
  assert.ok(after.includes(third.id));
  assert.ok(!after.includes(boost3.id));

  // A boost of an account bob mutes is left out, and muting removes boosts of it already there.
  const erin = await s.user("erin");
  const erinPost = await post(s, erin, { status: "erin here" });
  await s.api(bob, "POST", `/api/v1/accounts/${erin.id}/mute`);
  const boost4 = await s.api(dave, "POST", `/api/v1/statuses/${erinPost.id}/reblog`);
  await s.drainJobs();
  assert.ok(!(await ids(s, bob, HOME)).includes(boost4.id));
  assert.ok((await ids(s, bob, HOME)).includes(boost1.id));
  await s.api(bob, "POST", `/api/v1/accounts/${carol.id}/mute`);
  const home2 = await ids(s, bob, HOME);
  assert.ok(!home2.includes(third.id), "the muted account's post is gone");
  assert.ok(!home2.includes(boost1.id), "so is alice's boost of it");
});

test("backfill: following, an accepted request and an unmute bring the account's recent posts home", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol, dave] = [await s.user("alice"), await s.user("bob"), await s.user("carol"), await s.user("dave")];
  await follow(s, carol, dave);
  const old1 = await post(s, alice, { status: "before the follow" });
  const old2 = await post(s, alice, { status: "followers only, before", visibility: "private" });
  const dm = await post(s, alice, { status: "@dave a secret", visibility: "direct" });
  const toCarol = await post(s, alice, { status: "@carol reply", in_reply_to_id: (await post(s, carol, { status: "c" })).id });
  const toDave = await post(s, alice, { status: "@dave reply", in_reply_to_id: (await post(s, dave, { status: "d" })).id });
  const boostOfDave = await s.api(alice, "POST", `/api/v1/statuses/${toDave.in_reply_to_id}/reblog`);
  await s.drainJobs();

  await t.test("a direct follow merges posts, followed-reply rules and boosts; never direct posts", async () => {
    await follow(s, bob, dave);
    await follow(s, bob, alice);
    await s.drainJobs();
    const home = await ids(s, bob, HOME + "?limit=40");
    for (const p of [old1, old2, toDave, boostOfDave]) assert.ok(home.includes(p.id), `${p.id} merged`);
    assert.ok(!home.includes(dm.id), "direct posts are not merged");
    assert.ok(!home.includes(toCarol.id), "a reply to someone bob does not follow is not merged");
  });

  await t.test("a follow without reblogs merges no boosts", async () => {
    await follow(s, carol, alice, { reblogs: false });
    await s.drainJobs();
    const home = await ids(s, carol, HOME + "?limit=40");
    assert.ok(home.includes(old1.id) && home.includes(toCarol.id));
    assert.ok(!home.includes(boostOfDave.id));
  });

  await t.test("an accepted follow request merges once accepted", async () => {
    await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { locked: true });
    await follow(s, dave, alice);
    await s.drainJobs();
    assert.ok(!(await ids(s, dave, HOME)).includes(old1.id), "nothing while pending");
    await s.api(alice, "POST", `/api/v1/follow_requests/${dave.id}/authorize`);
    await s.drainJobs();
    assert.ok((await ids(s, dave, HOME + "?limit=40")).includes(old1.id));
  });

  await t.test("unmuting a followed account brings its posts back; unmuting a stranger adds nothing", async () => {
    await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/mute`);
    assert.ok(!(await ids(s, bob, HOME + "?limit=40")).includes(old1.id));
    await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/unmute`);
    await s.drainJobs();
    assert.ok((await ids(s, bob, HOME + "?limit=40")).includes(old1.id));
    const before = await ids(s, dave, HOME + "?limit=40");
    await s.api(dave, "POST", `/api/v1/accounts/${carol.id}/mute`);
    await s.api(dave, "POST", `/api/v1/accounts/${carol.id}/unmute`);
    await s.drainJobs();
    assert.deepEqual(await ids(s, dave, HOME + "?limit=40"), before);
  });
});
