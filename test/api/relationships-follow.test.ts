import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { findFollow } from "../../src/storage/follows.ts";
import { findFollowRequest } from "../../src/storage/follow-requests.ts";
import { authorizeAllFollowRequests } from "../../src/services/follows.ts";
import { counts, relationship, setLocked, links, pathOf } from "./relationships-helpers.ts";

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.close());

async function notificationTypes(who: TestUser, fromId: string): Promise<string[]> {
  const list: any[] = await s.api(who, "GET", "/api/v1/notifications");
  return list.filter((n) => n.account.id === fromId).map((n) => n.type);
}

test("follow an unlocked account: relationship, counters, stored uri, follow notification", async () => {
  const alice = await s.user("f1alice");
  const bob = await s.user("f1bob");
  const rel = await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
  assert.deepEqual(rel, {
    id: bob.id,
    following: true,
    showing_reblogs: true,
    notifying: false,
    languages: null,
    followed_by: false,
    blocking: false,
    blocked_by: false,
    muting: false,
    muting_notifications: false,
    muting_expires_at: null,
    requested: false,
    requested_by: false,
    domain_blocking: false,
    endorsed: false,
    note: "",
  });
  const back = await relationship(s, bob, alice.id);
  assert.equal(back.followed_by, true);
  assert.equal(back.following, false);
  assert.deepEqual(counts(s.app, alice.id), { followers: 0, following: 1 });
  assert.deepEqual(counts(s.app, bob.id), { followers: 1, following: 0 });
  const follow = findFollow(s.app.db, alice.id, bob.id)!;
  assert.equal(follow.uri, `${s.app.baseUrl}/follows/${follow.id}`);
  assert.deepEqual(await notificationTypes(bob, alice.id), ["follow"]);
});

test("following again is not an error and updates reblogs, notify and languages", async () => {
  const alice = await s.user("f2alice");
  const bob = await s.user("f2bob");
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
  const form = new URLSearchParams([["reblogs", "false"], ["notify", "true"], ["languages[]", "en"], ["languages[]", "de"]]);
  const rel = await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`, form);
  assert.equal(rel.following, true);
  assert.equal(rel.showing_reblogs, false);
  assert.equal(rel.notifying, true);
  assert.deepEqual(rel.languages, ["en", "de"]);
  // Options not sent are kept.
  const again = await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`, {});
  assert.equal(again.showing_reblogs, false);
  assert.equal(again.notifying, true);
  assert.deepEqual(again.languages, ["en", "de"]);
  const back = await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`, { reblogs: true, languages: [] });
  assert.equal(back.showing_reblogs, true);
  assert.equal(back.languages, null);
  const bad = await s.req(alice, "POST", `/api/v1/accounts/${bob.id}/follow`, { languages: ["en", "klingon"] });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.error, "Validation failed: Languages is invalid");
  // One follow, one notification, unchanged counters.
  assert.deepEqual(counts(s.app, bob.id), { followers: 1, following: 0 });
  assert.deepEqual(await notificationTypes(bob, alice.id), ["follow"]);
});

test("follow errors: self, unknown and malformed ids, scopes, app tokens", async () => {
  const alice = await s.user("f3alice");
  const reader = await s.user("f3reader", { scopes: ["read"] });
  const self = await s.req(alice, "POST", `/api/v1/accounts/${alice.id}/follow`);
  assert.equal(self.status, 403);
  assert.deepEqual(self.body, { error: "Following your own account is not allowed" });
  for (const id of ["999999999999", "abc", "-1"]) {
    const r = await s.req(alice, "POST", `/api/v1/accounts/${id}/follow`);
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { error: "Record not found" });
  }
  const scoped = await s.req(reader, "POST", `/api/v1/accounts/${alice.id}/follow`);
  assert.equal(scoped.status, 403);
  assert.equal(scoped.body.error, "This action is outside the authorized scopes");
  const anon = await s.req(null, "POST", `/api/v1/accounts/${alice.id}/follow`);
  assert.equal(anon.status, 401);
  // The granular and the legacy scopes both work.
  const granular = await s.user("f3granular", { scopes: ["write:follows", "read:follows"] });
  const legacy = await s.user("f3legacy", { scopes: ["follow"] });
  assert.equal((await s.api(granular, "POST", `/api/v1/accounts/${alice.id}/follow`)).following, true);
  assert.equal((await s.api(legacy, "POST", `/api/v1/accounts/${alice.id}/follow`)).following, true);
});

test("a locked account: a request (no error), reblogs=false from the start, authorize carries options and uri", async () => {
  const alice = await s.user("f4alice");
  const bob = await s.user("f4bob");
  await setLocked(s, bob, true);
  const res = await s.req(alice, "POST", `/api/v1/accounts/${bob.id}/follow`, { reblogs: false });
  assert.equal(res.status, 200);
  assert.equal(res.body.following, false);
  assert.equal(res.body.requested, true);
  assert.equal(res.body.showing_reblogs, false);
  assert.equal((await relationship(s, bob, alice.id)).requested_by, true);
  assert.deepEqual(counts(s.app, bob.id), { followers: 0, following: 0 });
  assert.deepEqual(await notificationTypes(bob, alice.id), ["follow_request"]);

  // Asking again is not an error either, and updates the pending request.
  const again = await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`, { notify: true });
  assert.equal(again.requested, true);
  assert.equal(again.notifying, true);
  assert.equal(again.showing_reblogs, false);

  const requests = await s.api(bob, "GET", "/api/v1/follow_requests");
  assert.deepEqual(requests.map((a: any) => a.id), [alice.id]);
  const request = findFollowRequest(s.app.db, alice.id, bob.id)!;
  assert.match(request.uri, /\/follows\/\d+$/);

  const rel = await s.api(bob, "POST", `/api/v1/follow_requests/${alice.id}/authorize`);
  assert.equal(rel.id, alice.id);
  assert.equal(rel.followed_by, true);
  assert.equal(rel.requested_by, false);
  const mine = await relationship(s, alice, bob.id);
  assert.equal(mine.following, true);
  assert.equal(mine.requested, false);
  assert.equal(mine.showing_reblogs, false);
  assert.equal(mine.notifying, true);
  const follow = findFollow(s.app.db, alice.id, bob.id)!;
  assert.equal(follow.uri, request.uri);
  assert.equal(follow.showReblogs, false);
  assert.equal(findFollowRequest(s.app.db, alice.id, bob.id), undefined);
  assert.deepEqual(counts(s.app, bob.id), { followers: 1, following: 0 });
  // The request's notification goes with it; authorizing makes a follow notification.
  assert.deepEqual(await notificationTypes(bob, alice.id), ["follow"]);
  assert.deepEqual(await s.api(bob, "GET", "/api/v1/follow_requests"), []);
  // Following an account already followed stays a plain follow even though it is locked.
  assert.equal((await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`)).following, true);
});

test("reject a request; authorize or reject without a request is 404", async () => {
  const carol = await s.user("f5carol");
  const bob = await s.user("f5bob");
  await setLocked(s, bob, true);
  await s.api(carol, "POST", `/api/v1/accounts/${bob.id}/follow`);
  const rel = await s.api(bob, "POST", `/api/v1/follow_requests/${carol.id}/reject`);
  assert.equal(rel.requested_by, false);
  assert.equal(rel.followed_by, false);
  assert.equal((await relationship(s, carol, bob.id)).requested, false);
  assert.deepEqual(await notificationTypes(bob, carol.id), []);
  for (const path of [`${carol.id}/reject`, `${carol.id}/authorize`, "12345/authorize", "nope/reject"]) {
    const r = await s.req(bob, "POST", `/api/v1/follow_requests/${path}`);
    assert.equal(r.status, 404, path);
    assert.equal(r.body.error, "Record not found");
  }
});

test("unlocking an account authorizes its pending requests", async () => {
  const dave = await s.user("f6dave");
  const alice = await s.user("f6alice");
  const carol = await s.user("f6carol");
  await setLocked(s, dave, true);
  await s.api(alice, "POST", `/api/v1/accounts/${dave.id}/follow`, { reblogs: false });
  await s.api(carol, "POST", `/api/v1/accounts/${dave.id}/follow`);
  await setLocked(s, dave, false);
  assert.deepEqual(await s.api(dave, "GET", "/api/v1/follow_requests"), []);
  const a = await relationship(s, alice, dave.id);
  assert.equal(a.following, true);
  assert.equal(a.showing_reblogs, false);
  assert.equal((await relationship(s, carol, dave.id)).following, true);
  assert.deepEqual(counts(s.app, dave.id), { followers: 2, following: 0 });

  // The service itself, as federation or the CLI would call it.
  const erin = await s.user("f6erin");
  await setLocked(s, erin, true);
  await s.api(alice, "POST", `/api/v1/accounts/${erin.id}/follow`);
  authorizeAllFollowRequests(s.app, erin.id);
  assert.equal((await relationship(s, alice, erin.id)).following, true);
});

test("unfollow removes a follow or withdraws a request, idempotently", async () => {
  const alice = await s.user("f7alice");
  const bob = await s.user("f7bob");
  const locked = await s.user("f7locked");
  await setLocked(s, locked, true);
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
  await s.api(alice, "POST", `/api/v1/accounts/${locked.id}/follow`);
  const rel = await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/unfollow`);
  assert.equal(rel.following, false);
  assert.equal(rel.showing_reblogs, false);
  assert.deepEqual(counts(s.app, bob.id), { followers: 0, following: 0 });
  assert.deepEqual(counts(s.app, alice.id), { followers: 0, following: 0 });
  // The follow notification belonged to the follow.
  assert.deepEqual(await notificationTypes(bob, alice.id), []);
  assert.equal((await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/unfollow`)).following, false);
  const withdrawn = await s.api(alice, "POST", `/api/v1/accounts/${locked.id}/unfollow`);
  assert.equal(withdrawn.requested, false);
  assert.deepEqual(await s.api(locked, "GET", "/api/v1/follow_requests"), []);
  assert.deepEqual(await notificationTypes(locked, alice.id), []);
});

test("remove_from_followers ends their follow of you", async () => {
  const alice = await s.user("f8alice");
  const bob = await s.user("f8bob");
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
  const rel = await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/remove_from_followers`);
  assert.equal(rel.followed_by, false);
  assert.equal((await relationship(s, alice, bob.id)).following, false);
  assert.deepEqual(counts(s.app, bob.id), { followers: 0, following: 0 });
  assert.equal((await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/remove_from_followers`)).followed_by, false);
});

test("followers and following: hidden follow-id cursors, Link headers, hidden collections, blocks", async () => {
  const owner = await s.user("f9owner");
  const fans: TestUser[] = [];
  for (const n of ["a", "b", "c"]) fans.push(await s.user(`f9fan${n}`));
  for (const f of fans) await s.api(f, "POST", `/api/v1/accounts/${owner.id}/follow`);
  const followIds = fans.map((f) => findFollow(s.app.db, f.id, owner.id)!.id);

  const first = await s.req(null, "GET", `/api/v1/accounts/${owner.id}/followers?limit=2`);
  assert.equal(first.status, 200);
  assert.deepEqual(first.body.map((a: any) => a.id), [fans[2].id, fans[1].id]);
  assert.match(first.headers.get("cache-control")!, /^public/);
  const l = links(first.headers.get("link"));
  assert.equal(l.next.searchParams.get("max_id"), followIds[1]);
  assert.equal(l.next.searchParams.get("limit"), "2");
  assert.equal(l.prev.searchParams.get("since_id"), followIds[2]);
  const second = await s.req(null, "GET", pathOf(l.next));
  assert.deepEqual(second.body.map((a: any) => a.id), [fans[0].id]);
  const l2 = links(second.headers.get("link"));
  assert.equal(l2.next, undefined); // short page: no next
  assert.equal(l2.prev.searchParams.get("since_id"), followIds[0]);
  const newer = await s.api(null, "GET", `/api/v1/accounts/${owner.id}/followers?since_id=${followIds[0]}`);
  assert.deepEqual(newer.map((a: any) => a.id), [fans[2].id, fans[1].id]);

  const following = await s.req(fans[0], "GET", `/api/v1/accounts/${fans[0].id}/following`);
  assert.deepEqual(following.body.map((a: any) => a.id), [owner.id]);
  assert.equal(following.headers.get("link")?.includes('rel="next"'), false);

  // Hidden collections: empty for others, complete for the owner.
  await s.api(owner, "PATCH", "/api/v1/accounts/update_credentials", { hide_collections: true });
  assert.deepEqual(await s.api(fans[0], "GET", `/api/v1/accounts/${owner.id}/followers`), []);
  assert.deepEqual(await s.api(null, "GET", `/api/v1/accounts/${owner.id}/followers`), []);
  assert.equal((await s.api(owner, "GET", `/api/v1/accounts/${owner.id}/followers`)).length, 3);
  await s.api(owner, "PATCH", "/api/v1/accounts/update_credentials", { hide_collections: false });

  // A viewer the owner blocks sees nothing; accounts the viewer blocks or mutes are left out.
  const viewer = await s.user("f9viewer");
  await s.api(viewer, "POST", `/api/v1/accounts/${fans[1].id}/mute`);
  await s.api(viewer, "POST", `/api/v1/accounts/${fans[2].id}/block`);
  assert.deepEqual((await s.api(viewer, "GET", `/api/v1/accounts/${owner.id}/followers`)).map((a: any) => a.id), [fans[0].id]);
  await s.api(owner, "POST", `/api/v1/accounts/${viewer.id}/block`);
  assert.deepEqual(await s.api(viewer, "GET", `/api/v1/accounts/${owner.id}/followers`), []);
  assert.equal((await s.req(null, "GET", "/api/v1/accounts/123456789/followers")).status, 404);
});

test("follow_requests list pages by the hidden request id", async () => {
  const star = await s.user("f10star");
  await setLocked(s, star, true);
  const askers: TestUser[] = [];
  for (const n of ["a", "b", "c"]) askers.push(await s.user(`f10ask${n}`));
  for (const a of askers) await s.api(a, "POST", `/api/v1/accounts/${star.id}/follow`);
  const requestIds = askers.map((a) => findFollowRequest(s.app.db, a.id, star.id)!.id);
  const page = await s.req(star, "GET", "/api/v1/follow_requests?limit=2");
  assert.deepEqual(page.body.map((a: any) => a.id), [askers[2].id, askers[1].id]);
  const l = links(page.headers.get("link"));
  assert.equal(l.next.searchParams.get("max_id"), requestIds[1]);
  assert.equal(l.prev.searchParams.get("since_id"), requestIds[2]);
  const rest = await s.api(star, "GET", pathOf(l.next));
  assert.deepEqual(rest.map((a: any) => a.id), [askers[0].id]);
  const reader = await s.user("f10reader", { scopes: ["write"] });
  assert.equal((await s.req(reader, "GET", "/api/v1/follow_requests")).status, 403);
});

test("POST /api/v1/follows follows a local handle and returns the Account", async () => {
  const alice = await s.user("f11alice");
  const bob = await s.user("f11bob");
  const acct = await s.api(alice, "POST", "/api/v1/follows", { uri: "f11bob" });
  assert.equal(acct.id, bob.id);
  assert.equal(acct.username, "f11bob");
  assert.equal((await relationship(s, alice, bob.id)).following, true);
  // Already following: no error; our own domain and a leading @ are accepted.
  const domain = new URL(s.url).host;
  assert.equal((await s.api(alice, "POST", "/api/v1/follows", { uri: `@f11bob@${domain}` })).id, bob.id);
  assert.equal((await s.api(alice, "POST", "/api/v1/follows", new URLSearchParams({ uri: `f11bob@${domain}` }))).id, bob.id);
  assert.deepEqual(counts(s.app, bob.id), { followers: 1, following: 0 });
  for (const uri of ["someone@remote.example", "", "nobody"]) {
    const r = await s.req(alice, "POST", "/api/v1/follows", { uri });
    assert.equal(r.status, 404, uri);
    assert.equal(r.body.error, "Record not found");
  }
});
