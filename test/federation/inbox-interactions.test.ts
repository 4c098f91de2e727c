// Incoming Like, Announce, Block, Flag, Add/Remove and their Undos (AP §5.5-§5.10), as the
// servers of the interop corpus send them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createDomainBlock } from "../../src/services/domain-blocks.ts";
import { findAccountByUri } from "../../src/storage/accounts.ts";
import { listReportsAbout } from "../../src/storage/reports.ts";
import type { FakeActor } from "../helpers/fake-remote.ts";
import {
  accountIdOf,
  aliceFollows,
  alicePosts,
  AS_CONTEXT,
  deliverAndRun,
  fixture,
  localUri,
  notifications,
  PUBLIC,
  relationship,
  startWorld,
  type World,
} from "./inbox-helpers.ts";

const statusOf = (w: World, id: string) => w.s.api(w.alice, "GET", `/api/v1/statuses/${id}`);

for (const [file, username] of [
  ["mastodon/like", "bob"],
  ["gotosocial/like", "gts"],
  ["akkoma/like", "akko"],
  ["pleroma/like", "lain"],
  ["misskey/like-reaction", "9hx3mk"],
] as const) {
  test(`${file}: a Like of a local post is a favourite with a notification`, async (t) => {
    const w = await startWorld(t);
    const actor = w.remote.actor(username);
    const id = await alicePosts(w);
    await deliverAndRun(w, actor, fixture(w, file, { STATUS: id }));
    assert.equal((await statusOf(w, id)).favourites_count, 1);
    assert.deepEqual(await notifications(w), [["favourite", `${username}@${w.remote.domain}`]]);
    const by = await w.s.api(w.alice, "GET", `/api/v1/statuses/${id}/favourited_by`);
    assert.deepEqual(by.map((a: { acct: string }) => a.acct), [`${username}@${w.remote.domain}`]);
  });
}

for (const [like, undo, username] of [
  ["mastodon/like", "mastodon/undo-like", "bob"],
  ["gotosocial/like", "gotosocial/undo-like", "gts"],
  ["misskey/like-reaction", "misskey/undo-like", "9hx3mk"],
  // Pleroma names the Like by id only: found through the stored favourite uri.
  ["pleroma/like", "pleroma/undo-like-by-reference", "lain"],
] as const) {
  test(`${undo}: Undo(Like) removes the favourite`, async (t) => {
    const w = await startWorld(t);
    const actor = w.remote.actor(username);
    const id = await alicePosts(w);
    await deliverAndRun(w, actor, fixture(w, like, { STATUS: id }));
    await deliverAndRun(w, actor, fixture(w, undo, { STATUS: id }));
    assert.equal((await statusOf(w, id)).favourites_count, 0);
    assert.deepEqual(await w.s.api(w.alice, "GET", `/api/v1/statuses/${id}/favourited_by`), []);
  });
}

test("EmojiReact is ignored, as Mastodon does", async (t) => {
  const w = await startWorld(t);
  const akko = w.remote.actor("akko");
  const id = await alicePosts(w);
  await deliverAndRun(w, akko, fixture(w, "akkoma/emoji-react", { STATUS: id }));
  assert.equal((await statusOf(w, id)).favourites_count, 0);
  assert.deepEqual(await notifications(w), []);
});

test("a Like of a post alice cannot be seen by the liker changes nothing", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const id = await alicePosts(w, "only for followers", { visibility: "private" });
  await deliverAndRun(w, bob, fixture(w, "mastodon/like", { STATUS: id }));
  assert.equal((await statusOf(w, id)).favourites_count, 0);
});

for (const [file, username] of [
  ["mastodon/announce", "bob"],
  ["gotosocial/announce", "gts"],
  ["akkoma/announce", "akko"],
  ["pleroma/announce", "lain"],
  ["misskey/announce", "9hx3mk"],
] as const) {
  test(`${file}: an Announce of a local post is a boost with a reblog notification`, async (t) => {
    const w = await startWorld(t);
    const actor = w.remote.actor(username);
    const id = await alicePosts(w);
    const announce = fixture(w, file, { STATUS: id });
    await deliverAndRun(w, actor, announce);
    assert.equal((await statusOf(w, id)).reblogs_count, 1);
    assert.deepEqual(await notifications(w), [["reblog", `${username}@${w.remote.domain}`]]);
    const by = await w.s.api(w.alice, "GET", `/api/v1/statuses/${id}/reblogged_by`);
    assert.deepEqual(by.map((a: { acct: string }) => a.acct), [`${username}@${w.remote.domain}`]);
    // The boost keeps the Announce's time: its id is time-ordered from `published`.
    const boosts = await w.s.api(w.alice, "GET", `/api/v1/accounts/${await accountIdOf(w, actor)}/statuses`);
    assert.equal(boosts.length, 1);
    assert.equal(boosts[0].reblog.id, id);
    assert.equal(boosts[0].created_at, new Date(announce.published).toISOString());
    // Delivered again (new transport, same id): still one boost.
    await deliverAndRun(w, actor, { ...announce });
    assert.equal((await statusOf(w, id)).reblogs_count, 1);
  });
}

for (const [announce, undo, username] of [
  ["mastodon/announce", "mastodon/undo-announce", "bob"],
  ["akkoma/announce", "akkoma/undo-announce", "akko"],
] as const) {
  test(`${undo}: Undo(Announce) removes the boost`, async (t) => {
    const w = await startWorld(t);
    const actor = w.remote.actor(username);
    const id = await alicePosts(w);
    await deliverAndRun(w, actor, fixture(w, announce, { STATUS: id }));
    await deliverAndRun(w, actor, fixture(w, undo, { STATUS: id }));
    assert.equal((await statusOf(w, id)).reblogs_count, 0);
    assert.deepEqual(await w.s.api(w.alice, "GET", `/api/v1/accounts/${await accountIdOf(w, actor)}/statuses`), []);
  });
}

test("an Announce of a followers-only post by someone else is ignored", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const id = await alicePosts(w, "followers only", { visibility: "private" });
  await deliverAndRun(w, bob, fixture(w, "mastodon/announce", { STATUS: id }));
  assert.equal((await statusOf(w, id)).reblogs_count, 0);
});

/** A public Note by `author`, served by the fake remote. */
function remoteNote(w: World, author: FakeActor, n: number, content: string): Record<string, unknown> {
  const id = `${author.id}/statuses/${n}`;
  const note = {
    "@context": AS_CONTEXT,
    id,
    type: "Note",
    attributedTo: author.id,
    content: `<p>${content}</p>`,
    published: "2026-02-01T08:00:00Z",
    to: [PUBLIC],
    cc: [author.followers],
  };
  w.remote.serve(new URL(id).pathname, note);
  return note;
}

test("an Announce of a remote post by an account alice follows fetches the post and reaches her home", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const carol = w.remote.actor("carol");
  const followId = await aliceFollows(w, bob);
  await deliverAndRun(w, bob, fixture(w, "mastodon/accept-follow", { FOLLOW_ID: followId }));
  const note = remoteNote(w, carol, 7, "a heron by carol");
  await deliverAndRun(w, bob, {
    "@context": AS_CONTEXT,
    id: `${bob.id}/statuses/8/activity`,
    type: "Announce",
    actor: bob.id,
    published: "2026-02-01T09:00:00Z",
    to: [PUBLIC],
    cc: [carol.id, bob.followers],
    object: note.id,
  });
  const home = await w.s.api(w.alice, "GET", "/api/v1/timelines/home");
  assert.equal(home.length, 1);
  assert.equal(home[0].account.acct, `bob@${w.remote.domain}`);
  assert.equal(home[0].reblog.account.acct, `carol@${w.remote.domain}`);
  assert.equal(home[0].reblog.content, "<p>a heron by carol</p>");
  assert.equal(home[0].reblog.reblogs_count, 1);
});

test("an Announce by an account nobody here follows, of a remote post, is not stored (nothing fetched)", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const carol = w.remote.actor("carol");
  const note = remoteNote(w, carol, 9, "unseen");
  await deliverAndRun(w, bob, { "@context": AS_CONTEXT, id: `${bob.id}/statuses/10/activity`, type: "Announce", actor: bob.id, to: [PUBLIC], object: note.id });
  assert.equal(w.remote.requests.some((r) => r.path === new URL(note.id as string).pathname), false);
});

for (const [file, username] of [
  ["mastodon/block", "bob"],
  ["misskey/block", "9hx3mk"],
] as const) {
  test(`${file}: a Block ends follows both ways and records the block`, async (t) => {
    const w = await startWorld(t);
    const actor = w.remote.actor(username);
    await deliverAndRun(w, actor, fixture(w, `${username === "bob" ? "mastodon" : "misskey"}/follow`));
    await aliceFollows(w, actor);
    await deliverAndRun(w, actor, { "@context": AS_CONTEXT, id: `${actor.id}#accepts/1`, type: "Accept", actor: actor.id, object: { type: "Follow", actor: localUri(w, w.alice), object: actor.id } });
    let rel = await relationship(w, actor);
    assert.deepEqual([rel.following, rel.followed_by, rel.blocked_by], [true, true, false]);

    await deliverAndRun(w, actor, fixture(w, file));
    rel = await relationship(w, actor);
    assert.deepEqual([rel.following, rel.followed_by, rel.blocked_by], [false, false, true]);
    const me = await w.s.api(w.alice, "GET", "/api/v1/accounts/verify_credentials");
    assert.deepEqual([me.following_count, me.followers_count], [0, 0]);
  });
}

test("Undo(Block) lifts the block, embedded or by the Block's id", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  await deliverAndRun(w, bob, fixture(w, "mastodon/block"));
  assert.equal((await relationship(w, bob)).blocked_by, true);
  await deliverAndRun(w, bob, fixture(w, "mastodon/undo-block"));
  assert.equal((await relationship(w, bob)).blocked_by, false);

  const block = fixture(w, "mastodon/block");
  await deliverAndRun(w, bob, { ...block, id: `${block.id}-2` });
  await deliverAndRun(w, bob, { "@context": AS_CONTEXT, id: `${bob.id}#blocks/78/undo`, type: "Undo", actor: bob.id, object: `${block.id}-2` });
  assert.equal((await relationship(w, bob)).blocked_by, false);
});

/** Mastodon's instance actor (`/actor`, an Application named after its domain). */
function instanceActor(w: World): FakeActor {
  const a = w.remote.actor("instance.actor", { type: "Application" });
  a.id = `${w.remote.origin}/actor`;
  a.keyId = `${a.id}#main-key`;
  a.doc = { ...a.doc, id: a.id, inbox: `${a.id}/inbox`, outbox: `${a.id}/outbox`, publicKey: { id: a.keyId, owner: a.id, publicKeyPem: a.publicKeyPem } };
  return a;
}

test("mastodon/flag: a Flag from the instance actor about alice is a report with the listed status", async (t) => {
  const w = await startWorld(t);
  const actor = instanceActor(w);
  const id = await alicePosts(w, "spam?");
  const flag = fixture(w, "mastodon/flag", { STATUS: id });
  await deliverAndRun(w, actor, flag);
  const reports = listReportsAbout(w.s.app.db, w.alice.id);
  assert.equal(reports.length, 1);
  assert.deepEqual(
    { statusIds: reports[0].statusIds, comment: reports[0].comment, uri: reports[0].uri, category: reports[0].category },
    { statusIds: [id], comment: "Spam links in replies", uri: flag.id, category: "other" },
  );
  assert.equal(reports[0].accountId, findAccountByUri(w.s.app.db, actor.id)!.id);
});

test("a Flag's comment is cut at 5000 characters", async (t) => {
  const w = await startWorld(t);
  const actor = instanceActor(w);
  const flag = fixture(w, "mastodon/flag", { STATUS: await alicePosts(w) });
  await deliverAndRun(w, actor, { ...flag, content: "é".repeat(6000) });
  assert.equal(listReportsAbout(w.s.app.db, w.alice.id)[0].comment.length, 5000);
});

test("Flags from a domain whose reports the admin rejects are ignored", async (t) => {
  const w = await startWorld(t);
  createDomainBlock(w.s.app, { domain: "127.0.0.1", severity: "noop", rejectReports: true });
  const actor = instanceActor(w);
  await deliverAndRun(w, actor, fixture(w, "mastodon/flag", { STATUS: await alicePosts(w) }));
  assert.deepEqual(listReportsAbout(w.s.app.db, w.alice.id), []);
});

test("misskey/flag: a remote account is reported only for statuses that reply to local users", async (t) => {
  const w = await startWorld(t);
  const mk = w.remote.actor("9hx3mk");
  const system = w.remote.actor("9sysactor", { type: "Application" });
  const id = await alicePosts(w);
  // The reported note replies to alice.
  const create = fixture(w, "misskey/create-note");
  create.object.inReplyTo = `${localUri(w, w.alice)}/statuses/${id}`;
  await deliverAndRun(w, mk, create);
  const mkId = await accountIdOf(w, mk);
  await deliverAndRun(w, system, fixture(w, "misskey/flag"));
  const [report] = listReportsAbout(w.s.app.db, mkId);
  assert.equal(report.comment, "spam reply [Misskey report]");
  assert.equal(report.statusIds.length, 1);

  // The same Flag about a note that replies to nobody here: no report.
  const other = w.remote.actor("otheruser");
  const plain = fixture(w, "misskey/create-note");
  plain.id = `${other.id}/notes/1/activity`;
  plain.actor = other.id;
  plain.object = { ...plain.object, id: `${w.remote.origin}/notes/other1`, attributedTo: other.id };
  await deliverAndRun(w, other, plain);
  const flag = fixture(w, "misskey/flag");
  await deliverAndRun(w, system, { ...flag, id: `${flag.id}-2`, object: [other.id, `${w.remote.origin}/notes/other1`] });
  assert.deepEqual(listReportsAbout(w.s.app.db, await accountIdOf(w, other)), []);
});

test("Add/Remove on the featured collection pin and unpin the actor's post; a Hashtag there is a featured tag, no pin", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  bob.doc.featured = `${bob.id}/collections/featured`;
  const note = fixture(w, "mastodon/create-note").object;
  w.remote.serve(new URL(note.id).pathname, { "@context": AS_CONTEXT, ...note });
  const bobId = await accountIdOf(w, bob);

  await deliverAndRun(w, bob, fixture(w, "mastodon/add-featured"));
  let pinned = await w.s.api(w.alice, "GET", `/api/v1/accounts/${bobId}/statuses?pinned=true`);
  assert.deepEqual(pinned.map((s: { uri: string }) => s.uri), [note.id]);

  await deliverAndRun(w, bob, fixture(w, "mastodon/add-featured-hashtag"));
  const featured = await w.s.api(w.alice, "GET", `/api/v1/accounts/${bobId}/featured_tags`);
  assert.deepEqual(featured.map((f: { name: string; url: string }) => [f.name, f.url]), [["birds", `${w.remote.origin}/@bob/tagged/birds`]]);
  await deliverAndRun(w, bob, fixture(w, "mastodon/remove-featured"));
  pinned = await w.s.api(w.alice, "GET", `/api/v1/accounts/${bobId}/statuses?pinned=true`);
  assert.deepEqual(pinned, []);
});

test("Add with another target than the actor's featured collection is ignored", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  bob.doc.featured = `${bob.id}/collections/featured`;
  const note = fixture(w, "mastodon/create-note").object;
  w.remote.serve(new URL(note.id).pathname, { "@context": AS_CONTEXT, ...note });
  const bobId = await accountIdOf(w, bob);
  await deliverAndRun(w, bob, { ...fixture(w, "mastodon/add-featured"), target: `${bob.id}/collections/other` });
  assert.deepEqual(await w.s.api(w.alice, "GET", `/api/v1/accounts/${bobId}/statuses?pinned=true`), []);
});

test("a Like of a local boost's uri is ignored (it would like the boosted post)", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const carol = await w.s.user("carol");
  const post = await w.s.api(carol, "POST", "/api/v1/statuses", { status: "carol's post" });
  const boost = await w.s.api(w.alice, "POST", `/api/v1/statuses/${post.id}/reblog`);
  await deliverAndRun(w, bob, { "@context": AS_CONTEXT, id: `${bob.id}#likes/boost`, type: "Like", actor: bob.id, object: boost.uri });
  assert.equal((await w.s.api(carol, "GET", `/api/v1/statuses/${post.id}`)).favourites_count, 0);
  assert.deepEqual(await w.s.api(carol, "GET", "/api/v1/notifications?types[]=favourite"), []);
});
