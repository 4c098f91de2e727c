// Hashtags by name and followed hashtags (issue 12 part 4): GET /api/v1/tags/:name, follow and
// unfollow, GET /api/v1/followed_tags, and followed tags' posts in the home timeline.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { createStatus } from "../../src/services/statuses.ts";
import { remoteAccount } from "./relationships-helpers.ts";

async function homeTexts(s: TestServer, who: TestUser): Promise<string[]> {
  await s.drainJobs();
  const home = await s.api(who, "GET", "/api/v1/timelines/home?limit=40");
  return home.map((st: any) => (st.reblog ? `boost:${st.reblog.content}` : st.content).replace(/<[^>]+>/g, ""));
}

const post = async (s: TestServer, who: TestUser, status: string, extra: Record<string, unknown> = {}) =>
  (await s.api(who, "POST", "/api/v1/statuses", { status, ...extra })).id as string;

test("GET /api/v1/tags/:name finds a tag by any spelling and answers an unsaved one for a new valid name", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  await post(s, alice, "#Caturday and #Café");
  await s.drainJobs();

  const anon = await s.req(null, "GET", "/api/v1/tags/caturday");
  assert.equal(anon.status, 200);
  assert.equal(anon.body.name, "Caturday");
  assert.equal(anon.body.url, `${s.url}/tags/caturday`);
  assert.match(anon.body.id, /^[0-9]+$/);
  assert.equal(anon.body.history.length, 7);
  assert.equal("following" in anon.body, false, "no relationship fields without a token");
  assert.equal("featuring" in anon.body, false);

  // Case, full-width letters and Latin accents are folded as Mastodon's HashtagNormalizer does.
  for (const spelling of ["CATURDAY", encodeURIComponent("Ｃａｔｕｒｄａｙ"), "cafe", encodeURIComponent("CAFÉ")]) {
    const r = await s.api(alice, "GET", `/api/v1/tags/${spelling}`);
    assert.ok(r.name === "Caturday" || r.name === "Café", `${spelling} → ${r.name}`);
    assert.equal(r.following, false);
    assert.equal(r.featuring, false);
  }
  assert.equal((await s.api(alice, "GET", "/api/v1/tags/cafe")).id, (await s.api(alice, "GET", `/api/v1/tags/${encodeURIComponent("Café")}`)).id);

  // A valid name nobody used: Mastodon renders an unsaved Tag (id "", no uses).
  const fresh = await s.api(alice, "GET", "/api/v1/tags/Neverused");
  assert.equal(fresh.id, "");
  assert.equal(fresh.name, "Neverused");
  assert.equal(fresh.url, `${s.url}/tags/neverused`);
  assert.deepEqual(fresh.history.map((h: any) => [h.uses, h.accounts]), Array(7).fill(["0", "0"]));
  assert.equal(fresh.following, false);
  assert.equal((await s.api(alice, "GET", `/api/v1/tags/${"a".repeat(500)}`)).id, "");

  // Names no post could carry: Tag::HASHTAG_NAME_RE fails, Mastodon answers 404.
  for (const bad of ["123", "foo%20bar", "foo-bar", "%23foo", "a".repeat(501), "a".repeat(1000)]) {
    const r = await s.req(alice, "GET", `/api/v1/tags/${bad}`);
    assert.equal(r.status, 404, `${bad.slice(0, 20)} → ${r.status}`);
    assert.deepEqual(r.body, { error: "Record not found" });
    assert.equal((await s.req(alice, "POST", `/api/v1/tags/${bad}/follow`)).status, 404);
  }
  const malformed = await s.req(alice, "GET", "/api/v1/tags/%ZZ");
  assert.ok(malformed.status === 400 || malformed.status === 404, `%ZZ → ${malformed.status}`);
});

test("a followed tag's public posts land in home: local authors not followed, no duplicates, not unlisted/private/boosts", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol, dave] = await Promise.all(["alice", "bob", "carol", "dave"].map((u) => s.user(u)));
  await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/follow`);

  const followed = await s.api(alice, "POST", "/api/v1/tags/Caturday/follow");
  assert.equal(followed.name, "Caturday");
  assert.equal(followed.following, true);
  assert.match(followed.id, /^[0-9]+$/, "following creates the tag");
  // Idempotent, and per viewer.
  assert.equal((await s.api(alice, "POST", "/api/v1/tags/caturday/follow")).following, true);
  assert.equal((await s.api(alice, "GET", "/api/v1/tags/caturday")).following, true);
  assert.equal((await s.api(bob, "GET", "/api/v1/tags/caturday")).following, false);

  await post(s, bob, "bob #caturday");
  await post(s, bob, "bob unlisted #caturday", { visibility: "unlisted" });
  await post(s, bob, "bob private #caturday", { visibility: "private" });
  await post(s, bob, `@alice bob direct #caturday`, { visibility: "direct" });
  await post(s, bob, "bob untagged");
  await post(s, carol, "carol #CATURDAY");
  await post(s, alice, "alice #caturday");
  const daveOriginal = await post(s, dave, "dave #caturday");
  await s.api(bob, "POST", `/api/v1/statuses/${daveOriginal}/reblog`);
  const replyTo = await post(s, carol, "carol asks");
  await post(s, dave, "dave replies #caturday", { in_reply_to_id: replyTo });
  assert.deepEqual(await homeTexts(s, alice), [
    "dave replies #caturday",
    "carol asks",
    "dave #caturday",
    "alice #caturday",
    "carol #CATURDAY",
    "bob #caturday",
  ]);
  // Bob follows nothing: his home has only his own posts and boost.
  assert.deepEqual(await homeTexts(s, bob), [
    "boost:dave #caturday",
    "bob untagged",
    "@alice bob direct #caturday",
    "bob private #caturday",
    "bob unlisted #caturday",
    "bob #caturday",
  ]);
});

test("blocked, muted, blocking and domain-blocked authors never arrive through a followed tag; nor posts mentioning a muted account", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol, dave, erin] = await Promise.all(["alice", "bob", "carol", "dave", "erin"].map((u) => s.user(u)));
  await s.api(alice, "POST", "/api/v1/tags/birds/follow");
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/block`);
  await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/mute`);
  await s.api(dave, "POST", `/api/v1/accounts/${alice.id}/block`);
  await post(s, bob, "bob #birds");
  await post(s, carol, "carol #birds");
  await post(s, dave, "dave #birds");
  await post(s, erin, "erin and @carol #birds");
  await post(s, erin, "erin #birds");
  assert.deepEqual(await homeTexts(s, alice), ["erin #birds"]);

  // An author on a domain the follower blocks (a remote account's post, made through the
  // status service as federation lands them).
  await s.api(alice, "POST", "/api/v1/domain_blocks", { domain: "remote.example" });
  const zed = remoteAccount(s.app, "zed", "Remote.Example");
  createStatus(s.app, { account: zed, user: null }, { text: "zed #birds" }, { applicationId: null });
  assert.deepEqual(await homeTexts(s, alice), ["erin #birds"]);
  await s.api(erin, "POST", "/api/v1/tags/birds/follow");
  createStatus(s.app, { account: zed, user: null }, { text: "zed again #birds" }, { applicationId: null });
  assert.deepEqual(await homeTexts(s, erin), ["zed again #birds", "erin #birds", "erin and @carol #birds"]);
});

test("unfollowing a tag takes its posts out of home unless something else put them there", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol] = await Promise.all(["alice", "bob", "carol"].map((u) => s.user(u)));
  await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/follow`);
  await s.api(alice, "POST", "/api/v1/tags/birds/follow");
  await s.api(alice, "POST", "/api/v1/tags/cats/follow");
  await post(s, bob, "bob #birds");
  await post(s, bob, "bob #birds and #cats");
  await post(s, carol, "carol #birds");
  await post(s, alice, "alice #birds");
  assert.equal((await homeTexts(s, alice)).length, 4);

  const r = await s.api(alice, "POST", "/api/v1/tags/birds/unfollow");
  assert.equal(r.following, false);
  assert.deepEqual(await homeTexts(s, alice), ["alice #birds", "carol #birds", "bob #birds and #cats"]);
  // Idempotent; unknown-but-valid names are fine too.
  assert.equal((await s.api(alice, "POST", "/api/v1/tags/birds/unfollow")).following, false);
  assert.equal((await s.api(alice, "POST", "/api/v1/tags/neverused/unfollow")).id, "");
  await post(s, bob, "bob #birds again");
  assert.equal((await homeTexts(s, alice)).includes("bob #birds again"), false);
});

test("GET /api/v1/followed_tags: newest follow first, paged by the hidden follow id", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  for (const name of ["Birds", "cats", "dogs"]) await s.api(alice, "POST", `/api/v1/tags/${name}/follow`);
  await s.api(bob, "POST", "/api/v1/tags/otters/follow");

  const first = await s.req(alice, "GET", "/api/v1/followed_tags?limit=2");
  assert.equal(first.status, 200);
  assert.deepEqual(first.body.map((x: any) => [x.name, x.following, x.featuring, x.history.length]), [
    ["dogs", true, false, 7],
    ["cats", true, false, 7],
  ]);
  const link = first.headers.get("link") ?? "";
  const next = /<([^>]+)>; rel="next"/.exec(link)?.[1];
  assert.ok(next && /max_id=\d+/.test(next), link);
  assert.match(link, /rel="prev"/);
  assert.match(link, /since_id=\d+/);
  const second = await s.api(alice, "GET", next!.slice(s.url.length));
  assert.deepEqual(second.map((x: any) => x.name), ["Birds"]);
  assert.deepEqual((await s.api(alice, "GET", "/api/v1/followed_tags")).map((x: any) => x.name), ["dogs", "cats", "Birds"]);

  // Scopes: read:follows (or read / follow) to list, write:follows to follow.
  const reader = await s.user("reader", { scopes: ["read:statuses"] });
  assert.equal((await s.req(reader, "GET", "/api/v1/followed_tags")).status, 403);
  assert.equal((await s.req(reader, "POST", "/api/v1/tags/birds/follow")).status, 403);
  const follower = await s.user("follower", { scopes: ["follow"] });
  assert.equal((await s.req(follower, "POST", "/api/v1/tags/birds/follow")).status, 200);
  assert.equal((await s.req(follower, "GET", "/api/v1/followed_tags")).status, 200);
  assert.equal((await s.req(null, "GET", "/api/v1/followed_tags")).status, 401);
  assert.equal((await s.req(null, "POST", "/api/v1/tags/birds/follow")).status, 401);
});
