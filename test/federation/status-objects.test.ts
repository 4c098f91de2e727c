import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { toApAnnounce } from "../../src/federation/serializers/activities.ts";
import { findStatusById } from "../../src/storage/statuses.ts";
import { AP_TYPE, AS_PUBLIC, apGet, post, statusPath } from "./ap-test-helpers.ts";

// Notes (AP §4) and their activities (§5) as peers fetch them.

const NOTE_CONTEXT = [
  "https://www.w3.org/ns/activitystreams",
  {
    ostatus: "http://ostatus.org#",
    atomUri: "ostatus:atomUri",
    inReplyToAtomUri: "ostatus:inReplyToAtomUri",
    conversation: "ostatus:conversation",
    sensitive: "as:sensitive",
    toot: "http://joinmastodon.org/ns#",
    votersCount: "toot:votersCount",
    blurhash: "toot:blurhash",
    focalPoint: { "@container": "@list", "@id": "toot:focalPoint" },
    Hashtag: "as:Hashtag",
    Emoji: "toot:Emoji",
  },
];

test("a public Note: fields, tags, addressing and headers", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const base = s.app.baseUrl;
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const st = await post(s, alice, { status: "a heron for @bob #Birds", spoiler_text: "bird photo", language: "en" });

  const res = await apGet(s, statusPath(alice, st.id));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), AP_TYPE);
  assert.equal(res.headers.get("cache-control"), "public, max-age=180");
  const note = res.body;
  const uri = `${base}/users/alice/statuses/${st.id}`;
  assert.deepEqual(note["@context"], NOTE_CONTEXT);
  assert.equal(note.id, uri);
  assert.equal(st.uri, uri);
  assert.equal(note.type, "Note");
  assert.equal(note.summary, "bird photo");
  assert.equal(note.inReplyTo, null);
  assert.match(note.published, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, "seconds precision");
  assert.equal(note.url, `${base}/@alice/${st.id}`);
  assert.equal(note.attributedTo, `${base}/users/alice`);
  assert.deepEqual(note.to, [AS_PUBLIC]);
  assert.deepEqual(note.cc, [`${base}/users/alice/followers`, `${base}/users/bob`]);
  assert.equal(note.sensitive, true, "a CW makes the status sensitive");
  assert.equal(note.atomUri, uri);
  assert.equal(note.inReplyToAtomUri, null);
  assert.match(note.conversation, new RegExp(`^tag:${s.app.config.domain.replace(/\./g, "\\.")},\\d{4}-\\d\\d-\\d\\d:objectId=\\d+:objectType=Conversation$`));
  assert.match(note.context, new RegExp(`^${base}/contexts/${alice.id}-\\d+$`));
  const api = await s.api(null, "GET", `/api/v1/statuses/${st.id}`);
  assert.equal(note.content, api.content);
  assert.deepEqual(note.contentMap, { en: api.content });
  assert.equal("updated" in note, false, "never edited");
  assert.deepEqual(note.attachment, []);
  assert.deepEqual(note.tag, [
    { type: "Mention", href: `${base}/users/bob`, name: "@bob" },
    { type: "Hashtag", href: `${base}/tags/birds`, name: "#Birds" },
  ]);
  assert.deepEqual(note.replies, {
    id: `${uri}/replies`,
    type: "Collection",
    first: { type: "CollectionPage", next: `${uri}/replies?only_other_accounts=true&page=true`, partOf: `${uri}/replies`, items: [] },
  });
  assert.deepEqual(note.likes, { id: `${uri}/likes`, type: "Collection", totalItems: 0 });
  assert.deepEqual(note.shares, { id: `${uri}/shares`, type: "Collection", totalItems: 0 });

  // The human URL serves the same Note to peers.
  const viaHuman = await apGet(s, `/@alice/${st.id}`);
  assert.equal(viaHuman.status, 200);
  assert.deepEqual(viaHuman.body, note);

  // Counters follow favourites and boosts.
  await s.api(bob, "POST", `/api/v1/statuses/${st.id}/favourite`);
  await s.api(bob, "POST", `/api/v1/statuses/${st.id}/reblog`);
  const { "@context": _context, ...likes } = (await apGet(s, `${statusPath(alice, st.id)}/likes`)).body;
  assert.deepEqual(likes, { id: `${uri}/likes`, type: "Collection", totalItems: 1 });
  assert.equal((await apGet(s, `${statusPath(alice, st.id)}/shares`)).body.totalItems, 1);
  assert.equal((await apGet(s, statusPath(alice, st.id))).body.likes.totalItems, 1);
});

test("addressing of the four visibilities (AP §4.3); followers-only and direct are 404 to anonymous peers", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const base = s.app.baseUrl;
  const alice = await s.user("alice");
  await s.user("bob");
  const followers = `${base}/users/alice/followers`;
  const bobUri = `${base}/users/bob`;
  const cases: [string, string[], string[], number][] = [
    ["public", [AS_PUBLIC], [followers, bobUri], 200],
    ["unlisted", [followers], [AS_PUBLIC, bobUri], 200],
    ["private", [followers], [bobUri], 404],
    ["direct", [bobUri], [], 404],
  ];
  for (const [visibility, to, cc, anonymousStatus] of cases) {
    const st = await post(s, alice, { status: `hi @bob (${visibility})`, visibility });
    const anon = await apGet(s, statusPath(alice, st.id));
    assert.equal(anon.status, anonymousStatus, visibility);
    assert.equal((await apGet(s, `${statusPath(alice, st.id)}/activity`)).status, anonymousStatus, `${visibility} activity`);
    if (anonymousStatus === 404) {
      assert.deepEqual(anon.body, { error: "Record not found" });
      assert.equal((await apGet(s, `/@alice/${st.id}`)).status, 404);
      continue;
    }
    assert.deepEqual([anon.body.to, anon.body.cc], [to, cc], visibility);
    const create = (await apGet(s, `${statusPath(alice, st.id)}/activity`)).body;
    assert.deepEqual([create.to, create.cc], [to, cc], `${visibility} Create`);
  }
  // Unknown, malformed and other accounts' ids are 404 too.
  const st = await post(s, alice, { status: "mine" });
  for (const path of [statusPath(alice, "999"), statusPath(alice, "abc"), `/users/bob/statuses/${st.id}`, `/users/alice/statuses/-1/activity`]) {
    assert.equal((await apGet(s, path)).status, 404, path);
  }
});

test("edits carry `updated`; replies point at their parent and self-replies appear in `replies`", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const base = s.app.baseUrl;
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const root = await post(s, alice, { status: "first" });
  await s.api(alice, "PUT", `/api/v1/statuses/${root.id}`, { status: "first, edited" });
  const edited = (await apGet(s, statusPath(alice, root.id))).body;
  assert.match(edited.updated, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.match(edited.content, /first, edited/);

  const selfReply = await post(s, alice, { status: "and a second thought", in_reply_to_id: root.id });
  const bobReply = await post(s, bob, { status: "@alice nice", in_reply_to_id: root.id });
  await post(s, bob, { status: "@alice hidden", in_reply_to_id: root.id, visibility: "private" });

  const reply = (await apGet(s, statusPath(bob, bobReply.id))).body;
  assert.equal(reply.inReplyTo, root.uri);
  assert.equal(reply.inReplyToAtomUri, root.uri);
  assert.equal(reply.conversation, edited.conversation, "one thread, one conversation");
  assert.equal(reply.context, edited.context);

  const note = (await apGet(s, statusPath(alice, root.id))).body;
  assert.deepEqual(note.replies.first.items, [selfReply.uri]);
  assert.equal(note.replies.first.next, `${root.uri}/replies?min_id=${selfReply.id}&page=true`);

  // The replies collection: the author's own replies, then everyone else's (local ones embedded).
  const coll = await apGet(s, `${statusPath(alice, root.id)}/replies`);
  assert.equal(coll.status, 200);
  assert.equal(coll.body.type, "Collection");
  assert.equal(coll.body.first.id, `${root.uri}/replies?page=true`);
  assert.equal(coll.body.first.next, `${root.uri}/replies?only_other_accounts=true&page=true`);
  assert.deepEqual(coll.body.first.items.map((n: { id: string }) => n.id), [selfReply.uri]);
  const others = (await apGet(s, `${statusPath(alice, root.id)}/replies?only_other_accounts=true&page=true`)).body;
  assert.equal(others.type, "CollectionPage");
  assert.equal(others.partOf, `${root.uri}/replies`);
  assert.equal("next" in others, false);
  assert.equal(others.items.length, 1, "the followers-only reply is left out");
  assert.equal(others.items[0].id, bobReply.uri);
  assert.equal(others.items[0].type, "Note");
  assert.equal(others.items[0].attributedTo, `${base}/users/bob`);
});

test("activity URLs: Create for posts, Announce for boosts; a boost's own URL leads to the original", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const base = s.app.baseUrl;
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const st = await post(s, alice, { status: "boost me" });

  const create = await apGet(s, `${statusPath(alice, st.id)}/activity`);
  assert.equal(create.status, 200);
  assert.equal(create.headers.get("content-type"), AP_TYPE);
  assert.equal(create.body["@context"][0], "https://www.w3.org/ns/activitystreams");
  assert.equal(create.body.id, `${st.uri}/activity`);
  assert.equal(create.body.type, "Create");
  assert.equal(create.body.actor, `${base}/users/alice`);
  assert.equal(create.body.object.id, st.uri);
  assert.equal(create.body.object.type, "Note");
  assert.equal("@context" in create.body.object, false, "embedded objects carry no context");
  assert.equal(create.body.published, create.body.object.published);

  const boost = await s.api(bob, "POST", `/api/v1/statuses/${st.id}/reblog`);
  const announce = await apGet(s, `${statusPath(bob, boost.id)}/activity`);
  assert.equal(announce.status, 200);
  assert.equal(announce.body.id, `${base}/users/bob/statuses/${boost.id}/activity`);
  assert.equal(announce.body.type, "Announce");
  assert.equal(announce.body.actor, `${base}/users/bob`);
  assert.deepEqual(announce.body.to, [AS_PUBLIC]);
  assert.deepEqual(announce.body.cc, [`${base}/users/alice`, `${base}/users/bob/followers`], "the boosted author first");
  assert.equal(announce.body.object, st.uri);

  const viaBoost = await apGet(s, statusPath(bob, boost.id));
  assert.equal(viaBoost.status, 302);
  assert.equal(viaBoost.headers.get("location"), st.uri);
  assert.match(viaBoost.headers.get("vary") ?? "", /Accept/);

  // A self-boost of a followers-only post embeds the Note: followers elsewhere could not fetch it.
  const priv = await post(s, alice, { status: "for followers", visibility: "private" });
  const self = await s.api(alice, "POST", `/api/v1/statuses/${priv.id}/reblog`);
  const selfBoost = toApAnnounce(s.app, findStatusById(s.app.db, self.id)!, findStatusById(s.app.db, priv.id)!, alice.account);
  assert.deepEqual(selfBoost.to, [`${base}/users/alice/followers`]);
  assert.deepEqual(selfBoost.cc, [`${base}/users/alice`]);
  assert.equal((selfBoost.object as { id: string }).id, priv.uri);
  assert.equal((selfBoost.object as { type: string }).type, "Note");
});
