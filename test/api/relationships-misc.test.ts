import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { updateAccount } from "../../src/storage/accounts.ts";
import { accountsBlockingViewer, blockedViewOf } from "../../src/services/blocks.ts";
import { links, pathOf, relationship, setLocked } from "./relationships-helpers.ts";

let s: TestServer;
let alice: TestUser, bob: TestUser, carol: TestUser, dave: TestUser;
before(async () => {
  s = await startTestServer();
  alice = await s.user("alice");
  bob = await s.user("bob");
  carol = await s.user("carol");
  dave = await s.user("dave");
});
after(() => s.close());

test("relationships: every field for a batch, request order, scalar id, unknown and suspended skipped", async () => {
  const locked = await s.user("m1locked");
  await setLocked(s, locked, true);
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`, { notify: true, languages: ["fr"] });
  await s.api(carol, "POST", `/api/v1/accounts/${alice.id}/follow`);
  await s.api(alice, "POST", `/api/v1/accounts/${locked.id}/follow`);
  await s.api(alice, "POST", `/api/v1/accounts/${dave.id}/mute`, { notifications: false });
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/note`, { comment: "met at the café" });

  const rels = await s.api(alice, "GET", `/api/v1/accounts/relationships?id[]=${dave.id}&id[]=999999999&id[]=${bob.id}&id[]=x&id[]=${carol.id}&id[]=${locked.id}`);
  assert.deepEqual(rels.map((r: any) => r.id), [dave.id, bob.id, carol.id, locked.id]);
  const [d, b, c, l] = rels;
  assert.equal(d.muting, true);
  assert.equal(d.muting_notifications, false);
  assert.equal(d.following, false);
  assert.deepEqual(
    { following: b.following, notifying: b.notifying, languages: b.languages, showing_reblogs: b.showing_reblogs, note: b.note },
    { following: true, notifying: true, languages: ["fr"], showing_reblogs: true, note: "met at the café" },
  );
  assert.equal(c.followed_by, true);
  assert.equal(c.following, false);
  assert.equal(l.requested, true);
  assert.equal(l.following, false);
  assert.deepEqual(Object.keys(b), [
    "id", "following", "showing_reblogs", "notifying", "languages", "followed_by", "blocking", "blocked_by", "muting",
    "muting_notifications", "muting_expires_at", "requested", "requested_by", "domain_blocking", "endorsed", "note",
  ]);

  // A bare scalar id works too (Mastodon reads the raw param); JSON bodies are not used on GET.
  const one = await s.api(alice, "GET", `/api/v1/accounts/relationships?id=${bob.id}`);
  assert.deepEqual(one.map((r: any) => r.id), [bob.id]);
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/accounts/relationships"), []);

  // Suspended accounts only with with_suspended.
  const gone = await s.user("m1gone");
  updateAccount(s.app.db, gone.id, { suspendedAt: s.app.now() });
  assert.deepEqual(await s.api(alice, "GET", `/api/v1/accounts/relationships?id[]=${gone.id}`), []);
  const withSuspended = await s.api(alice, "GET", `/api/v1/accounts/relationships?id[]=${gone.id}&with_suspended=true`);
  assert.deepEqual(withSuspended.map((r: any) => r.id), [gone.id]);

  const writer = await s.user("m1writer", { scopes: ["write"] });
  assert.equal((await s.req(writer, "GET", `/api/v1/accounts/relationships?id[]=${bob.id}`)).status, 403);
  assert.equal((await s.req(null, "GET", `/api/v1/accounts/relationships?id[]=${bob.id}`)).status, 401);
  // Following a suspended account is a 404.
  assert.equal((await s.req(alice, "POST", `/api/v1/accounts/${gone.id}/follow`)).status, 404);
});

test("private notes: set, replace, delete with a blank comment, 2000 characters at most", async () => {
  const rel = await s.api(carol, "POST", `/api/v1/accounts/${dave.id}/note`, { comment: "first" });
  assert.equal(rel.note, "first");
  assert.equal((await s.api(carol, "POST", `/api/v1/accounts/${dave.id}/note`, new URLSearchParams({ comment: "second" }))).note, "second");
  assert.equal((await relationship(s, dave, carol.id)).note, ""); // private to its author
  assert.equal((await s.api(carol, "POST", `/api/v1/accounts/${dave.id}/note`, { comment: "" })).note, "");
  assert.equal((await s.api(carol, "POST", `/api/v1/accounts/${dave.id}/note`, { comment: "again" })).note, "again");
  assert.equal((await s.api(carol, "POST", `/api/v1/accounts/${dave.id}/note`)).note, "");
  const ok = "é".repeat(2000);
  assert.equal((await s.api(carol, "POST", `/api/v1/accounts/${dave.id}/note`, { comment: ok })).note, ok);
  const long = await s.req(carol, "POST", `/api/v1/accounts/${dave.id}/note`, { comment: "x".repeat(2001) });
  assert.equal(long.status, 422);
  assert.equal(long.body.error, "Validation failed: Comment is too long (maximum is 2000 characters)");
  const followOnly = await s.user("m2follow", { scopes: ["follow"] });
  assert.equal((await s.req(followOnly, "POST", `/api/v1/accounts/${dave.id}/note`, { comment: "x" })).status, 403);
});

test("endorsements: only followed accounts, idempotent, legacy pin aliases, lists, removed on unfollow", async () => {
  const owner = await s.user("m3owner");
  const refused = await s.req(owner, "POST", `/api/v1/accounts/${bob.id}/endorse`);
  assert.equal(refused.status, 422);
  assert.equal(refused.body.error, "Validation failed: You must be already following the person you want to endorse");
  for (const u of [bob, carol, dave]) await s.api(owner, "POST", `/api/v1/accounts/${u.id}/follow`);
  assert.equal((await s.api(owner, "POST", `/api/v1/accounts/${bob.id}/endorse`)).endorsed, true);
  assert.equal((await s.api(owner, "POST", `/api/v1/accounts/${bob.id}/endorse`)).endorsed, true);
  assert.equal((await s.api(owner, "POST", `/api/v1/accounts/${carol.id}/pin`)).endorsed, true);
  assert.equal((await s.api(owner, "POST", `/api/v1/accounts/${dave.id}/endorse`)).endorsed, true);

  const own = await s.req(owner, "GET", "/api/v1/endorsements?limit=2");
  assert.deepEqual(own.body.map((a: any) => a.id), [dave.id, carol.id]);
  const next = links(own.headers.get("link")).next;
  assert.deepEqual((await s.api(owner, "GET", pathOf(next))).map((a: any) => a.id), [bob.id]);
  const all = await s.req(owner, "GET", "/api/v1/endorsements?limit=0");
  assert.deepEqual(all.body.map((a: any) => a.id), [dave.id, carol.id, bob.id]);
  assert.equal(all.headers.get("link"), null);

  const pub = await s.req(null, "GET", `/api/v1/accounts/${owner.id}/endorsements`);
  assert.deepEqual(pub.body.map((a: any) => a.id), [dave.id, carol.id, bob.id]);
  assert.match(pub.headers.get("cache-control")!, /^public/);

  assert.equal((await s.api(owner, "POST", `/api/v1/accounts/${dave.id}/unendorse`)).endorsed, false);
  assert.equal((await s.api(owner, "POST", `/api/v1/accounts/${dave.id}/unpin`)).endorsed, false);
  // Ending the follow ends the endorsement.
  await s.api(owner, "POST", `/api/v1/accounts/${carol.id}/unfollow`);
  assert.deepEqual((await s.api(owner, "GET", "/api/v1/endorsements")).map((a: any) => a.id), [bob.id]);
  const followOnly = await s.user("m3follow", { scopes: ["follow", "read"] });
  assert.equal((await s.req(followOnly, "POST", `/api/v1/accounts/${bob.id}/endorse`)).status, 403);
  assert.equal((await s.req(owner, "GET", "/api/v1/accounts/999999/endorsements")).status, 404);
});

test("familiar_followers: accounts I follow that follow them; hidden collections give none", async () => {
  const me = await s.user("m4me");
  const friend1 = await s.user("m4friend1");
  const friend2 = await s.user("m4friend2");
  const shy = await s.user("m4shy");
  const star = await s.user("m4star");
  const hidden = await s.user("m4hidden");
  for (const f of [friend1, friend2, shy]) await s.api(me, "POST", `/api/v1/accounts/${f.id}/follow`);
  for (const f of [friend1, friend2, shy]) await s.api(f, "POST", `/api/v1/accounts/${star.id}/follow`);
  await s.api(friend1, "POST", `/api/v1/accounts/${hidden.id}/follow`);
  await s.api(shy, "PATCH", "/api/v1/accounts/update_credentials", { hide_collections: true });
  await s.api(hidden, "PATCH", "/api/v1/accounts/update_credentials", { hide_collections: true });
  await s.api(dave, "POST", `/api/v1/accounts/${star.id}/follow`); // not followed by me

  const res = await s.api(me, "GET", `/api/v1/accounts/familiar_followers?id[]=${star.id}&id[]=${hidden.id}&id[]=${me.id}&id[]=424242`);
  assert.deepEqual(
    res.map((x: any) => [x.id, x.accounts.map((a: any) => a.id)]),
    [
      [star.id, [friend2.id, friend1.id]],
      [hidden.id, []],
      [me.id, []],
    ],
  );
  const scalar = await s.api(me, "GET", `/api/v1/accounts/familiar_followers?id=${star.id}`);
  assert.equal(scalar[0].accounts.length, 2);
  assert.equal((await s.req(null, "GET", `/api/v1/accounts/familiar_followers?id[]=${star.id}`)).status, 401);
});

test("blocked-by: the blocked viewer's reduced view and hidden accounts (service helpers)", async () => {
  const blocker = await s.user("m5blocker");
  const victim = await s.user("m5victim");
  await s.api(blocker, "POST", `/api/v1/accounts/${victim.id}/block`);
  assert.equal(blockedViewOf(s.app, victim.id, blocker.id), true);
  assert.equal(blockedViewOf(s.app, blocker.id, victim.id), false);
  assert.equal(blockedViewOf(s.app, null, blocker.id), false);
  assert.deepEqual([...accountsBlockingViewer(s.app, victim.id, [blocker.id, alice.id])], [blocker.id]);
  // Their followers and following are empty for the blocked viewer.
  await s.api(alice, "POST", `/api/v1/accounts/${blocker.id}/follow`);
  assert.deepEqual(await s.api(victim, "GET", `/api/v1/accounts/${blocker.id}/followers`), []);
  assert.equal((await s.api(bob, "GET", `/api/v1/accounts/${blocker.id}/followers`)).length, 1);
});

test("every account action answers 404 Record not found for unknown or malformed ids", async () => {
  const actions = ["follow", "unfollow", "remove_from_followers", "block", "unblock", "mute", "unmute", "endorse", "unendorse", "pin", "unpin", "note"];
  for (const action of actions) {
    for (const id of ["123456789", "abc"]) {
      const r = await s.req(alice, "POST", `/api/v1/accounts/${id}/${action}`);
      assert.equal(r.status, 404, `${action} ${id}`);
      assert.deepEqual(r.body, { error: "Record not found" });
    }
  }
  for (const path of ["followers", "following", "endorsements"]) {
    assert.equal((await s.req(alice, "GET", `/api/v1/accounts/abc/${path}`)).status, 404);
  }
});
