// Incoming Create, Update, Delete and Move (AP §5.1-§5.3, §5.11): posts, profiles, accounts.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FakeActor } from "../helpers/fake-remote.ts";
import {
  accountIdOf,
  aliceFollows,
  alicePosts,
  AS_CONTEXT,
  deliverAndRun,
  fixture,
  localUri,
  PUBLIC,
  received,
  relationship,
  startWorld,
  type World,
} from "./inbox-helpers.ts";

/** alice follows `actor`, who accepts. */
async function aliceFollowsAccepted(w: World, actor: FakeActor): Promise<void> {
  const followId = await aliceFollows(w, actor);
  await deliverAndRun(w, actor, fixture(w, "mastodon/accept-follow", { FOLLOW_ID: followId }));
  assert.equal((await relationship(w, actor)).following, true);
}

/** alice's mention notifications as [acct, status content]. */
async function mentions(w: World): Promise<{ acct: string; id: string; content: string }[]> {
  const list = await w.s.api(w.alice, "GET", "/api/v1/notifications?types[]=mention");
  return list.map((n: { account: { acct: string }; status: { id: string; content: string } }) => ({ acct: n.account.acct, id: n.status.id, content: n.status.content }));
}

test("mastodon/create-note-reply: a reply mentioning alice notifies her and joins the thread", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const id = await alicePosts(w, "herons or egrets?");
  await deliverAndRun(w, bob, fixture(w, "mastodon/create-note-reply", { STATUS: id }));
  const [m] = await mentions(w);
  assert.equal(m.acct, `bob@${w.remote.domain}`);
  assert.match(m.content, /herons are the best/);
  const reply = await w.s.api(w.alice, "GET", `/api/v1/statuses/${m.id}`);
  assert.equal(reply.in_reply_to_id, id);
  assert.equal(reply.visibility, "public");
  assert.deepEqual(reply.tags.map((x: { name: string }) => x.name), ["birds"]);
  assert.equal((await w.s.api(w.alice, "GET", `/api/v1/statuses/${id}`)).replies_count, 1);
  const context = await w.s.api(w.alice, "GET", `/api/v1/statuses/${id}/context`);
  assert.deepEqual(context.descendants.map((s: { id: string }) => s.id), [m.id]);
});

for (const [file, username, text] of [
  ["gotosocial/create-note", "gts", /hello from gotosocial/],
  ["akkoma/create-note", "akko", /from <strong>akkoma<\/strong>/],
  ["misskey/create-note", "9hx3mk", /ねこ/],
] as const) {
  test(`${file}: a post mentioning alice reaches her as a mention`, async (t) => {
    const w = await startWorld(t);
    const actor = w.remote.actor(username);
    await deliverAndRun(w, actor, fixture(w, file));
    const found = await mentions(w);
    assert.equal(found.length, 1);
    assert.equal(found[0].acct, `${username}@${w.remote.domain}`);
    assert.match(found[0].content, text);
  });
}

test("mastodon/create-note: a post by an account alice follows lands in her home timeline", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  await aliceFollowsAccepted(w, bob);
  const create = fixture(w, "mastodon/create-note");
  await deliverAndRun(w, bob, create);
  const home = await w.s.api(w.alice, "GET", "/api/v1/timelines/home");
  assert.equal(home.length, 1);
  assert.deepEqual(
    { uri: home[0].uri, spoiler: home[0].spoiler_text, sensitive: home[0].sensitive, created: home[0].created_at },
    { uri: create.object.id, spoiler: "birds", sensitive: true, created: "2026-02-01T08:00:00.000Z" },
  );
  // Delivered again through bob's shared and alice's personal inbox: still one status.
  await deliverAndRun(w, bob, { ...create, id: `${create.id}#again` }, "/users/alice/inbox");
  assert.equal((await w.s.api(w.alice, "GET", "/api/v1/timelines/home")).length, 1);
});

test("a Note without its own to/cc takes the Create's addressing (public here, not direct)", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  await aliceFollowsAccepted(w, bob);
  const create = fixture(w, "mastodon/create-note");
  const { to: _to, cc: _cc, ...bare } = create.object;
  await deliverAndRun(w, bob, { ...create, id: `${create.id}-bare`, object: { ...bare, id: `${bare.id}-bare` }, to: [PUBLIC], cc: [bob.followers] });
  const [status] = await w.s.api(w.alice, "GET", "/api/v1/timelines/home");
  assert.equal(status.uri, `${bare.id}-bare`);
  assert.equal(status.visibility, "public");
});

test("a post nobody here follows or is mentioned in is not stored", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const create = fixture(w, "mastodon/create-note");
  await deliverAndRun(w, bob, create);
  const r = await w.s.req(w.alice, "GET", `/api/v2/search?q=${encodeURIComponent(create.object.id)}&type=statuses`);
  assert.deepEqual(r.body.statuses ?? [], []);
});

test("a Create naming its object by id fetches it from the actor's server only", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const id = await alicePosts(w);
  const note = fixture(w, "mastodon/create-note-reply", { STATUS: id }).object;
  w.remote.serve(new URL(note.id).pathname, { "@context": AS_CONTEXT, ...note });
  await deliverAndRun(w, bob, { "@context": AS_CONTEXT, id: `${note.id}/activity`, type: "Create", actor: bob.id, to: [PUBLIC], object: note.id });
  assert.equal((await mentions(w)).length, 1);

  // An object on another host is not fetched at all.
  await deliverAndRun(w, bob, { "@context": AS_CONTEXT, id: `${bob.id}/x/activity`, type: "Create", actor: bob.id, object: "http://127.0.0.2:9/notes/1" });
  assert.equal((await mentions(w)).length, 1);
});

test("mastodon/update-note: an edit of a known post changes it and keeps its history", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const id = await alicePosts(w);
  await deliverAndRun(w, bob, fixture(w, "mastodon/create-note-reply", { STATUS: id }));
  const [m] = await mentions(w);
  await deliverAndRun(w, bob, fixture(w, "mastodon/update-note", { STATUS: id }));
  const edited = await w.s.api(w.alice, "GET", `/api/v1/statuses/${m.id}`);
  assert.equal(edited.content, "<p>edited: herons are still the best</p>");
  assert.equal(edited.edited_at, "2026-02-01T10:00:00.000Z");
  const history = await w.s.api(w.alice, "GET", `/api/v1/statuses/${m.id}/history`);
  assert.equal(history.length, 2);
});

for (const [create, del, username] of [
  ["mastodon/create-note-reply", "mastodon/delete-note", "bob"],
  ["misskey/create-note", "misskey/delete-note", "9hx3mk"],
] as const) {
  test(`${del}: a Delete removes the post, and a late Create cannot bring it back`, async (t) => {
    const w = await startWorld(t);
    const actor = w.remote.actor(username);
    const id = await alicePosts(w);
    const doc = fixture(w, create, { STATUS: id });
    await deliverAndRun(w, actor, doc);
    const [m] = await mentions(w);
    await deliverAndRun(w, actor, fixture(w, del));
    assert.equal((await w.s.req(w.alice, "GET", `/api/v1/statuses/${m.id}`)).status, 404);
    await deliverAndRun(w, actor, { ...doc, id: `${doc.id}#late` });
    assert.deepEqual(await mentions(w), []);
  });
}

test("a Delete by someone else than the author leaves the post alone", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const mallory = w.remote.actor("mallory");
  const id = await alicePosts(w);
  await deliverAndRun(w, bob, fixture(w, "mastodon/create-note-reply", { STATUS: id }));
  const [m] = await mentions(w);
  const del = fixture(w, "mastodon/delete-note");
  await deliverAndRun(w, mallory, { ...del, id: `${mallory.id}#delete-1`, actor: mallory.id });
  assert.equal((await w.s.req(w.alice, "GET", `/api/v1/statuses/${m.id}`)).status, 200);
});

test("mastodon/update-person: a profile update is applied", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const bobId = await accountIdOf(w, bob);
  const pem = JSON.stringify(bob.publicKeyPem).slice(1, -1);
  await deliverAndRun(w, bob, fixture(w, "mastodon/update-person", { PEM: pem }));
  const account = await w.s.api(w.alice, "GET", `/api/v1/accounts/${bobId}`);
  assert.equal(account.display_name, "Bob the Heron Watcher");
  assert.equal(account.note, "<p>Watching herons since 1999</p>");
  assert.deepEqual(account.fields.map((f: { name: string; value: string }) => [f.name, f.value]), [["Birds", "herons"]]);
});

test("an Update of another actor's profile is ignored", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const mallory = w.remote.actor("mallory");
  const bobId = await accountIdOf(w, bob);
  const update = fixture(w, "mastodon/update-person", { PEM: JSON.stringify(bob.publicKeyPem).slice(1, -1) });
  await deliverAndRun(w, mallory, { ...update, id: `${mallory.id}#updates/1`, actor: mallory.id });
  assert.equal((await w.s.api(w.alice, "GET", `/api/v1/accounts/${bobId}`)).display_name, "BOB");
});

test("mastodon/delete-actor: the account's content and relationships go, counters follow", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const id = await alicePosts(w);
  await aliceFollowsAccepted(w, bob);
  await deliverAndRun(w, bob, fixture(w, "mastodon/follow"));
  await deliverAndRun(w, bob, fixture(w, "mastodon/like", { STATUS: id }));
  await deliverAndRun(w, bob, fixture(w, "mastodon/announce", { STATUS: id }));
  await deliverAndRun(w, bob, fixture(w, "mastodon/create-note-reply", { STATUS: id }));
  const bobId = await accountIdOf(w, bob);
  let mine = await w.s.api(w.alice, "GET", `/api/v1/statuses/${id}`);
  assert.deepEqual([mine.favourites_count, mine.reblogs_count, mine.replies_count], [1, 1, 1]);

  await deliverAndRun(w, bob, fixture(w, "mastodon/delete-actor"));
  mine = await w.s.api(w.alice, "GET", `/api/v1/statuses/${id}`);
  assert.deepEqual([mine.favourites_count, mine.reblogs_count, mine.replies_count], [0, 0, 0]);
  const me = await w.s.api(w.alice, "GET", "/api/v1/accounts/verify_credentials");
  assert.deepEqual([me.followers_count, me.following_count], [0, 0]);
  // Kept as a suspended account (Mastodon shows those with `suspended: true` and nothing else).
  const gone = await w.s.api(w.alice, "GET", `/api/v1/accounts/${bobId}`);
  assert.deepEqual([gone.suspended, gone.statuses_count, gone.followers_count], [true, 0, 0]);
  // Only alice's own post is left in her home timeline, and nothing bob caused in her notifications.
  const home = await w.s.api(w.alice, "GET", "/api/v1/timelines/home");
  assert.deepEqual(home.map((s: { id: string }) => s.id), [id]);
  assert.deepEqual(await w.s.api(w.alice, "GET", "/api/v1/notifications"), []);
  const context = await w.s.api(w.alice, "GET", `/api/v1/statuses/${id}/context`);
  assert.deepEqual(context.descendants, []);
});

test("mastodon/move: alice's follow moves to the new account, once per week", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const bob2 = w.remote.actor("bob2", { extra: { alsoKnownAs: [bob.id] } });
  await aliceFollowsAccepted(w, bob);
  w.remote.received.length = 0;
  await deliverAndRun(w, bob, fixture(w, "mastodon/move"));

  // A Follow to the new account, an Undo(Follow) to the old one.
  const [follow] = received(w, "Follow");
  assert.deepEqual([follow.actor, follow.object], [localUri(w, w.alice), bob2.id]);
  const [undo] = received(w, "Undo");
  assert.equal(undo.object.object, bob.id);
  assert.equal((await relationship(w, bob)).following, false);
  assert.equal((await relationship(w, bob2)).requested, true);
  const old = await w.s.api(w.alice, "GET", `/api/v1/accounts/${await accountIdOf(w, bob)}`);
  assert.equal(old.moved?.acct, `bob2@${w.remote.domain}`);

  // A second Move within the week does nothing.
  w.remote.received.length = 0;
  await deliverAndRun(w, bob, { ...fixture(w, "mastodon/move"), id: `${bob.id}#moves/4` });
  assert.deepEqual(received(w, "Follow"), []);
});

test("a Move carries local blocks, mutes and private notes over to the new account", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const bob2 = w.remote.actor("bob2", { extra: { alsoKnownAs: [bob.id] } });
  const carol = await w.s.user("carol");
  const dave = await w.s.user("dave");
  const oldId = await accountIdOf(w, bob);
  await w.s.api(w.alice, "POST", `/api/v1/accounts/${oldId}/block`);
  await w.s.api(carol, "POST", `/api/v1/accounts/${oldId}/mute`, { notifications: false, duration: 3600 });
  await w.s.api(dave, "POST", `/api/v1/accounts/${oldId}/note`, { comment: "met at the pond" });
  await w.s.drainJobs();
  await deliverAndRun(w, bob, fixture(w, "mastodon/move"));

  const newId = await accountIdOf(w, bob2);
  const rel = async (who: typeof carol) => (await w.s.api(who, "GET", `/api/v1/accounts/relationships?id[]=${newId}`))[0];
  assert.equal((await rel(w.alice)).blocking, true);
  const muted = await rel(carol);
  assert.deepEqual([muted.muting, muted.muting_notifications], [true, false]);
  const [mute] = await w.s.api(carol, "GET", "/api/v1/mutes");
  assert.equal(mute.id, newId);
  assert.ok(Date.parse(mute.mute_expires_at) - Date.now() <= 3600_000, "the rest of the timed mute");
  assert.equal((await rel(dave)).note, `This user moved from @bob@${w.remote.domain}:\nmet at the pond`);
  // The Block reached the new account's server.
  assert.ok(received(w, "Block").some((b) => b.object === bob2.id));
});

test("a Move whose target does not list the actor in alsoKnownAs is ignored", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  w.remote.actor("bob2");
  await aliceFollowsAccepted(w, bob);
  await deliverAndRun(w, bob, fixture(w, "mastodon/move"));
  assert.equal((await relationship(w, bob)).following, true);
  const old = await w.s.api(w.alice, "GET", `/api/v1/accounts/${await accountIdOf(w, bob)}`);
  assert.equal(old.moved ?? null, null);
});
