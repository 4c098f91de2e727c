import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { ids, post } from "../helpers/posting.ts";
import { remoteAccount } from "./relationships-helpers.ts";
import { persistStatus } from "../../src/services/statuses.ts";
import type { Account } from "../../src/storage/accounts.ts";
import type { App } from "../../src/app.ts";

// Public and hashtag timelines, and an account's statuses as seen by different viewers.

const PUBLIC = "/api/v1/timelines/public";

test("public timeline: public posts only, no replies to others, local/remote/only_media", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob] = [await s.user("alice"), await s.user("bob")];
  const pub = await post(s, alice, { status: "public post" });
  const unlisted = await post(s, alice, { status: "quiet", visibility: "unlisted" });
  const priv = await post(s, alice, { status: "followers", visibility: "private" });
  const dm = await post(s, alice, { status: "@bob dm", visibility: "direct" });
  const selfReply = await post(s, alice, { status: "thread", in_reply_to_id: pub.id });
  const otherReply = await post(s, bob, { status: "@alice reply", in_reply_to_id: pub.id });
  await s.drainJobs();

  const anon = await s.req(null, "GET", PUBLIC);
  assert.equal(anon.status, 200);
  assert.deepEqual(anon.body.map((x: { id: string }) => x.id), [selfReply.id, pub.id]);
  assert.match(anon.headers.get("cache-control") ?? "", /^public, max-age=15/);
  for (const hidden of [unlisted.id, priv.id, dm.id, otherReply.id]) assert.ok(!anon.body.some((x: { id: string }) => x.id === hidden));

  const authed = await s.req(bob, "GET", PUBLIC);
  assert.equal(authed.headers.get("cache-control"), "private, no-store");
  assert.deepEqual(await ids(s, bob, `${PUBLIC}?local=true`), [selfReply.id, pub.id]);
  assert.deepEqual(await ids(s, bob, `${PUBLIC}?remote=true`), []);
  assert.deepEqual(await ids(s, bob, `${PUBLIC}?local=true&remote=true`), [selfReply.id, pub.id]);
  // No uploads yet: only_media matches posts with attachments, so nothing here.
  assert.deepEqual(await ids(s, null, `${PUBLIC}?only_media=true`), []);

  const page = await s.req(null, "GET", `${PUBLIC}?local=true&limit=1&max_id=${selfReply.id}`);
  const base = `${s.app.baseUrl}${PUBLIC}`;
  assert.equal(page.headers.get("link"), `<${base}?limit=1&local=true&max_id=${pub.id}>; rel="next", <${base}?limit=1&local=true&min_id=${pub.id}>; rel="prev"`);

  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/block`);
  assert.deepEqual(await ids(s, bob, PUBLIC), [], "a blocked author is filtered for the blocker");
  assert.deepEqual(await ids(s, null, PUBLIC), [selfReply.id, pub.id]);
});

test("tag timeline: any, all, none, normalisation, unknown tag", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const cats = await post(s, alice, { status: "a #Cats post" });
  const dogs = await post(s, alice, { status: "a #dogs post" });
  const both = await post(s, alice, { status: "#cats and #dogs" });
  const birds = await post(s, alice, { status: "#birds and #cats" });
  const hidden = await post(s, alice, { status: "unlisted #cats", visibility: "unlisted" });
  await s.drainJobs();

  const tag = (q: string) => ids(s, null, `/api/v1/timelines/tag/${q}`);
  assert.deepEqual(await tag("cats"), [birds.id, both.id, cats.id]);
  assert.deepEqual(await tag("CATS"), [birds.id, both.id, cats.id]);
  assert.ok(!(await tag("cats")).includes(hidden.id));
  assert.deepEqual(await tag("dogs?any[]=birds"), [birds.id, both.id, dogs.id]);
  assert.deepEqual(await tag("cats?all[]=dogs"), [both.id]);
  assert.deepEqual(await tag("cats?none[]=dogs&none[]=birds"), [cats.id]);
  assert.deepEqual(await tag("cats?any[]=dogs&none[]=birds"), [both.id, dogs.id, cats.id]);
  assert.deepEqual(await tag("cats?any[]=dogs&limit=2"), [birds.id, both.id]);
  assert.deepEqual(await tag(`cats?any[]=dogs&limit=2&min_id=${cats.id}`), [both.id, dogs.id]);
  assert.deepEqual(await tag("cats?all[]=nosuchtag"), []);
  assert.deepEqual(await tag("nosuchtag"), []);
  assert.deepEqual(await tag("nosuchtag?any[]=cats"), []);

  const r = await s.req(null, "GET", "/api/v1/timelines/tag/cats?any[]=dogs&limit=1");
  const base = `${s.app.baseUrl}/api/v1/timelines/tag/cats`;
  assert.equal(r.headers.get("link"), `<${base}?limit=1&any[]=dogs&max_id=${birds.id}>; rel="next", <${base}?limit=1&any[]=dogs&min_id=${birds.id}>; rel="prev"`);
});

test("account statuses: visibility per viewer, filters, pinned, blocks", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol] = [await s.user("alice"), await s.user("bob"), await s.user("carol")];
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
  const pub = await post(s, alice, { status: "public #news" });
  const unlisted = await post(s, alice, { status: "unlisted", visibility: "unlisted" });
  const priv = await post(s, alice, { status: "private", visibility: "private" });
  const dmCarol = await post(s, alice, { status: "@carol dm", visibility: "direct" });
  const replyBob = await post(s, alice, { status: "@bob reply", in_reply_to_id: (await post(s, bob, { status: "bob post" })).id });
  const selfReply = await post(s, alice, { status: "self reply", in_reply_to_id: pub.id });
  await s.drainJobs();
  const path = `/api/v1/accounts/${alice.id}/statuses`;

  assert.deepEqual(await ids(s, null, path), [selfReply.id, replyBob.id, unlisted.id, pub.id]);
  assert.deepEqual(await ids(s, bob, path), [selfReply.id, replyBob.id, priv.id, unlisted.id, pub.id]);
  assert.deepEqual(await ids(s, carol, path), [selfReply.id, replyBob.id, dmCarol.id, unlisted.id, pub.id]);
  assert.deepEqual(await ids(s, alice, path), [selfReply.id, replyBob.id, dmCarol.id, priv.id, unlisted.id, pub.id]);
  assert.deepEqual(await ids(s, null, `${path}?exclude_replies=true`), [selfReply.id, unlisted.id, pub.id]);
  assert.deepEqual(await ids(s, null, `${path}?tagged=NEWS`), [pub.id]);
  assert.deepEqual(await ids(s, null, `${path}?tagged=unknown`), []);
  assert.deepEqual(await ids(s, null, `${path}?only_media=true`), []);

  // `next` only for a full page on this endpoint.
  const full = await s.req(null, "GET", `${path}?limit=2&exclude_replies=true`);
  const base = `${s.app.baseUrl}${path}`;
  assert.equal(
    full.headers.get("link"),
    `<${base}?limit=2&exclude_replies=true&max_id=${unlisted.id}>; rel="next", <${base}?limit=2&exclude_replies=true&min_id=${selfReply.id}>; rel="prev"`,
  );
  const short = await s.req(null, "GET", `${path}?limit=2&exclude_replies=true&max_id=${unlisted.id}`);
  assert.equal(short.headers.get("link"), `<${base}?limit=2&exclude_replies=true&min_id=${pub.id}>; rel="prev"`);

  assert.equal((await s.req(null, "GET", "/api/v1/accounts/999999/statuses")).status, 404);
  assert.equal((await s.req(null, "GET", "/api/v1/accounts/abc/statuses")).status, 404);

  await s.api(alice, "POST", `/api/v1/statuses/${unlisted.id}/pin`);
  await s.api(alice, "POST", `/api/v1/statuses/${pub.id}/pin`);
  // Newest pin first.
  assert.deepEqual(await ids(s, null, `${path}?pinned=true`), [pub.id, unlisted.id]);

  // Boosts: listed unless exclude_reblogs; a boost of an account the viewer mutes is dropped.
  const bobPost2 = await post(s, bob, { status: "bob again" });
  const boost = await s.api(alice, "POST", `/api/v1/statuses/${bobPost2.id}/reblog`);
  assert.equal((await ids(s, null, path))[0], boost.id);
  assert.notEqual((await ids(s, null, `${path}?exclude_reblogs=true`))[0], boost.id);
  await s.api(carol, "POST", `/api/v1/accounts/${bob.id}/mute`);
  assert.notEqual((await ids(s, carol, path))[0], boost.id);
  // Boosts are not in the public timeline.
  assert.ok(!(await ids(s, null, PUBLIC)).includes(boost.id));

  await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/block`);
  assert.deepEqual(await ids(s, carol, path), [], "an account that blocks the viewer shows nothing");
});

/** A public remote post, stored the way federation stores one (persistStatus). */
function remotePost(app: App, author: Account, html: string, tags: string[] = []) {
  const id = app.ids.next();
  return persistStatus(app, {
    author,
    text: "",
    content: html,
    spoilerText: "",
    sensitive: false,
    visibility: "public",
    language: null,
    inReplyTo: null,
    applicationId: null,
    mentions: [],
    tags: tags.map((t) => ({ name: t, display: t })),
    id,
    uri: `https://${author.domain}/users/${author.username}/statuses/${id}`,
  });
}

test("remote posts on timelines; an account domain block hides them and their boosts", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob] = [await s.user("alice"), await s.user("bob")];
  const rita = remoteAccount(s.app, "rita", "spam.example");
  const local = await post(s, bob, { status: "a local post #birds" });
  const remote = remotePost(s.app, rita, "<p>remote #birds</p>", ["birds"]);
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
  await s.drainJobs();

  assert.deepEqual(await ids(s, alice, `${PUBLIC}?remote=true`), [remote.id]);
  assert.deepEqual(await ids(s, alice, `${PUBLIC}?local=true`), [local.id]);
  assert.deepEqual(await ids(s, alice, PUBLIC), [remote.id, local.id]);
  assert.deepEqual(await ids(s, alice, "/api/v1/timelines/tag/birds"), [remote.id, local.id]);
  const [entry] = await s.api(alice, "GET", `${PUBLIC}?remote=true`);
  assert.equal(entry.account.acct, "rita@spam.example");

  await s.api(alice, "POST", "/api/v1/domain_blocks", { domain: "spam.example" });
  assert.deepEqual(await ids(s, alice, PUBLIC), [local.id], "the blocked domain leaves the public timeline");
  assert.deepEqual(await ids(s, alice, `${PUBLIC}?remote=true`), []);
  assert.deepEqual(await ids(s, alice, "/api/v1/timelines/tag/birds"), [local.id], "and the tag timeline");
  assert.deepEqual(await ids(s, bob, PUBLIC), [remote.id, local.id], "other users still see it");

  // bob (whom alice follows) boosts the remote post: alice's home leaves the boost out.
  const boost = await s.api(bob, "POST", `/api/v1/statuses/${remote.id}/reblog`);
  const other = await post(s, bob, { status: "after the boost" });
  await s.drainJobs();
  const home = await ids(s, alice, "/api/v1/timelines/home");
  assert.ok(home.includes(other.id));
  assert.ok(!home.includes(boost.id), "a boost of a domain-blocked account is dropped from home");
  assert.ok((await ids(s, bob, "/api/v1/timelines/home")).includes(boost.id));
});
