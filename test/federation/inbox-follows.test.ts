// Incoming Follow, Accept, Reject and Undo(Follow/Accept) (AP §5.4, §5.5), as Mastodon,
// GoToSocial, Akkoma, Pleroma and Misskey send them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { blockDomain } from "../../src/services/account-domain-blocks.ts";
import {
  accountIdOf,
  aliceFollows,
  deliverAndRun,
  fixture,
  localUri,
  notifications,
  received,
  relationship,
  startWorld,
} from "./inbox-helpers.ts";

for (const [software, username] of [
  ["mastodon", "bob"],
  ["gotosocial", "gts"],
  ["akkoma", "akko"],
  ["misskey", "9hx3mk"],
] as const) {
  test(`${software}: a Follow of an unlocked account makes a follow, notifies, and is answered with Accept`, async (t) => {
    const w = await startWorld(t);
    const actor = w.remote.actor(username);
    const follow = fixture(w, `${software}/follow`);
    await deliverAndRun(w, actor, follow);

    assert.equal((await relationship(w, actor)).followed_by, true);
    assert.deepEqual(await notifications(w), [["follow", `${username}@${w.remote.domain}`]]);
    const [accept] = received(w, "Accept");
    assert.equal(accept.actor, localUri(w, w.alice));
    // The Follow is embedded with its original id (AP §5.4).
    assert.deepEqual(accept.object, { id: follow.id, type: "Follow", actor: actor.id, object: localUri(w, w.alice) });
  });
}

test("a Follow of a locked account is a request with a follow_request notification; authorizing sends Accept", async (t) => {
  const w = await startWorld(t);
  await w.s.api(w.alice, "PATCH", "/api/v1/accounts/update_credentials", { locked: true });
  const bob = w.remote.actor("bob");
  const follow = fixture(w, "mastodon/follow");
  await deliverAndRun(w, bob, follow);

  const rel = await relationship(w, bob);
  assert.equal(rel.followed_by, false);
  assert.equal(rel.requested_by, true);
  assert.deepEqual(await notifications(w), [["follow_request", `bob@${w.remote.domain}`]]);
  assert.deepEqual(received(w, "Accept"), []);

  const bobId = await accountIdOf(w, bob);
  await w.s.api(w.alice, "POST", `/api/v1/follow_requests/${bobId}/authorize`);
  await w.s.drainJobs();
  assert.equal((await relationship(w, bob)).followed_by, true);
  assert.equal(received(w, "Accept")[0].object.id, follow.id);
});

test("a repeated Follow from a follower is answered with Accept again, for its new id", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  await deliverAndRun(w, bob, fixture(w, "mastodon/follow"));
  const again = fixture(w, "mastodon/follow-again");
  await deliverAndRun(w, bob, again);
  const accepts = received(w, "Accept");
  assert.equal(accepts.length, 2);
  assert.equal(accepts[1].object.id, again.id);
  // Undo naming the new id ends the follow.
  await deliverAndRun(w, bob, { ...fixture(w, "mastodon/undo-follow"), object: again });
  assert.equal((await relationship(w, bob)).followed_by, false);
});

test("a Follow from an account alice blocks is answered with Reject and stores nothing", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const bobId = await accountIdOf(w, bob);
  await w.s.api(w.alice, "POST", `/api/v1/accounts/${bobId}/block`);
  await w.s.drainJobs();
  const follow = fixture(w, "mastodon/follow");
  await deliverAndRun(w, bob, follow);
  const [reject] = received(w, "Reject");
  assert.equal(reject.object.id, follow.id);
  assert.equal(reject.actor, localUri(w, w.alice));
  assert.equal((await relationship(w, bob)).followed_by, false);
  assert.deepEqual(received(w, "Accept"), []);
});

test("a Follow from a domain alice blocks is answered with Reject", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  await accountIdOf(w, bob);
  // The API refuses a port in a domain; the fake remote has one, so the service is called.
  blockDomain(w.s.app, w.alice.account, w.remote.domain);
  const follow = fixture(w, "mastodon/follow");
  await deliverAndRun(w, bob, follow);
  assert.equal(received(w, "Reject")[0]?.object.id, follow.id);
});

test("Undo(Follow) ends the follow", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  await deliverAndRun(w, bob, fixture(w, "mastodon/follow"));
  assert.equal((await relationship(w, bob)).followed_by, true);
  await deliverAndRun(w, bob, fixture(w, "mastodon/undo-follow"));
  assert.equal((await relationship(w, bob)).followed_by, false);
  const me = await w.s.api(w.alice, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(me.followers_count, 0);
});

test("an Undo that overtakes its Follow wins: the Follow arriving later is dropped, as is a replay", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  await deliverAndRun(w, bob, fixture(w, "mastodon/undo-follow"));
  await deliverAndRun(w, bob, fixture(w, "mastodon/follow"));
  assert.equal((await relationship(w, bob)).followed_by, false);
  assert.deepEqual(await notifications(w), []);
  // A follow with a new id is a new follow.
  await deliverAndRun(w, bob, { ...fixture(w, "mastodon/follow"), id: `${bob.id}#follows/again` });
  assert.equal((await relationship(w, bob)).followed_by, true);
});

test("Undo(Follow) of a pending request withdraws it and its notification", async (t) => {
  const w = await startWorld(t);
  await w.s.api(w.alice, "PATCH", "/api/v1/accounts/update_credentials", { locked: true });
  const bob = w.remote.actor("bob");
  await deliverAndRun(w, bob, fixture(w, "mastodon/follow"));
  await deliverAndRun(w, bob, fixture(w, "mastodon/undo-follow"));
  assert.equal((await relationship(w, bob)).requested_by, false);
  assert.deepEqual(await notifications(w), []);
  assert.deepEqual(await w.s.api(w.alice, "GET", "/api/v1/follow_requests"), []);
});

for (const [software, username] of [
  ["mastodon", "bob"],
  ["gotosocial", "gts"],
  ["pleroma", "lain"],
] as const) {
  test(`${software}: Accept turns alice's follow request into a follow`, async (t) => {
    const w = await startWorld(t);
    const actor = w.remote.actor(username, { locked: true });
    const followId = await aliceFollows(w, actor);
    assert.equal((await relationship(w, actor)).requested, true);
    await deliverAndRun(w, actor, fixture(w, `${software}/accept-follow`, { FOLLOW_ID: followId }));
    const rel = await relationship(w, actor);
    assert.equal(rel.following, true);
    assert.equal(rel.requested, false);
    const me = await w.s.api(w.alice, "GET", "/api/v1/accounts/verify_credentials");
    assert.equal(me.following_count, 1);
  });
}

test("an Accept matched by an embedded Follow whose id is unknown still finds the request", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob", { locked: true });
  await aliceFollows(w, bob);
  await deliverAndRun(w, bob, fixture(w, "mastodon/accept-follow", { FOLLOW_ID: `${w.s.url}/some-other-id` }));
  assert.equal((await relationship(w, bob)).following, true);
});

test("an Accept by someone else than the followed account changes nothing", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob", { locked: true });
  const mallory = w.remote.actor("mallory");
  const followId = await aliceFollows(w, bob);
  const forged = fixture(w, "mastodon/accept-follow", { FOLLOW_ID: followId });
  await deliverAndRun(w, mallory, { ...forged, id: `${mallory.id}#accepts/1`, actor: mallory.id });
  assert.equal((await relationship(w, bob)).requested, true);
  assert.equal((await relationship(w, bob)).following, false);
});

test("Reject of a pending request drops it; Reject of a follow removes it", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob", { locked: true });
  const followId = await aliceFollows(w, bob);
  await deliverAndRun(w, bob, fixture(w, "mastodon/reject-follow", { FOLLOW_ID: followId }));
  let rel = await relationship(w, bob);
  assert.deepEqual([rel.requested, rel.following], [false, false]);

  const lain = w.remote.actor("lain", { locked: true });
  const second = await aliceFollows(w, lain);
  await deliverAndRun(w, lain, fixture(w, "pleroma/accept-follow", { FOLLOW_ID: second }));
  assert.equal((await relationship(w, lain)).following, true);
  await deliverAndRun(w, lain, fixture(w, "pleroma/reject-follow", { FOLLOW_ID: second }));
  rel = await relationship(w, lain);
  assert.equal(rel.following, false);
  const me = await w.s.api(w.alice, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(me.following_count, 0);
  // The removal came from bob's and lain's side: nothing is sent back.
  assert.deepEqual(received(w, "Undo"), []);
});

test("Undo(Accept) revokes the follow it accepted", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob", { locked: true });
  const followId = await aliceFollows(w, bob);
  const accept = fixture(w, "mastodon/accept-follow", { FOLLOW_ID: followId });
  await deliverAndRun(w, bob, accept);
  assert.equal((await relationship(w, bob)).following, true);
  await deliverAndRun(w, bob, { "@context": accept["@context"], id: `${bob.id}#accepts/undo/1`, type: "Undo", actor: bob.id, object: accept });
  assert.equal((await relationship(w, bob)).following, false);
});
