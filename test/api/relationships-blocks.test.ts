import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { findBlock } from "../../src/storage/blocks.ts";
import { authorizeFollowRequest, followAccount } from "../../src/services/follows.ts";
import { findAccountById } from "../../src/storage/accounts.ts";
import { counts, relationship, setLocked, links, pathOf, remoteAccount } from "./relationships-helpers.ts";

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.close());

async function notificationsFrom(who: TestUser, fromId: string): Promise<string[]> {
  const list: any[] = await s.api(who, "GET", "/api/v1/notifications");
  return list.filter((n) => n.account.id === fromId).map((n) => n.type);
}

test("block ends follows and requests both ways, stores a uri, and refuses follows", async () => {
  const alice = await s.user("b1alice");
  const bob = await s.user("b1bob");
  await setLocked(s, alice, true);
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`); // pending: alice is locked
  assert.deepEqual(await notificationsFrom(alice, bob.id), ["follow_request"]);

  const rel = await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/block`);
  assert.equal(rel.blocking, true);
  assert.equal(rel.following, false);
  assert.equal(rel.followed_by, false);
  assert.equal(rel.requested_by, false);
  const theirs = await relationship(s, bob, alice.id);
  assert.equal(theirs.blocked_by, true);
  assert.equal(theirs.blocking, false);
  assert.equal(theirs.requested, false);
  assert.deepEqual(counts(s.app, alice.id), { followers: 0, following: 0 });
  assert.deepEqual(counts(s.app, bob.id), { followers: 0, following: 0 });
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/follow_requests"), []);
  assert.deepEqual(await notificationsFrom(alice, bob.id), []);
  const block = findBlock(s.app.db, alice.id, bob.id)!;
  assert.equal(block.uri, `${s.app.baseUrl}/blocks/${block.id}`);

  // Following is refused both ways while the block stands.
  for (const [who, target] of [
    [alice, bob],
    [bob, alice],
  ] as const) {
    const r = await s.req(who, "POST", `/api/v1/accounts/${target.id}/follow`);
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { error: "This action is not allowed" });
  }
  // Idempotent, then undone.
  assert.equal((await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/block`)).blocking, true);
  assert.equal(findBlock(s.app.db, alice.id, bob.id)!.id, block.id);
  assert.equal((await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/unblock`)).blocking, false);
  assert.equal((await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/unblock`)).blocking, false);
  assert.equal((await relationship(s, bob, alice.id)).blocked_by, false);
  // Blocking needs the blocks scope.
  const follower = await s.user("b1scoped", { scopes: ["write:follows"] });
  assert.equal((await s.req(follower, "POST", `/api/v1/accounts/${bob.id}/block`)).status, 403);
  assert.equal((await s.req(alice, "POST", "/api/v1/accounts/0/block")).status, 404);
});

test("GET /api/v1/blocks pages by the hidden block id (max_id, since_id, min_id)", async () => {
  const owner = await s.user("b2owner");
  const targets: TestUser[] = [];
  for (const n of ["a", "b", "c"]) targets.push(await s.user(`b2t${n}`));
  for (const t of targets) await s.api(owner, "POST", `/api/v1/accounts/${t.id}/block`);
  const blockIds = targets.map((t) => findBlock(s.app.db, owner.id, t.id)!.id);
  const page = await s.req(owner, "GET", "/api/v1/blocks?limit=2");
  assert.deepEqual(page.body.map((a: any) => a.id), [targets[2].id, targets[1].id]);
  const l = links(page.headers.get("link"));
  assert.equal(l.next.searchParams.get("max_id"), blockIds[1]);
  assert.equal(l.prev.searchParams.get("since_id"), blockIds[2]);
  assert.deepEqual((await s.api(owner, "GET", pathOf(l.next))).map((a: any) => a.id), [targets[0].id]);
  const after = await s.api(owner, "GET", `/api/v1/blocks?min_id=${blockIds[0]}&limit=1`);
  assert.deepEqual(after.map((a: any) => a.id), [targets[1].id]);
  const since = await s.api(owner, "GET", `/api/v1/blocks?since_id=${blockIds[0]}&limit=1`);
  assert.deepEqual(since.map((a: any) => a.id), [targets[2].id]);
  const empty = await s.req(owner, "GET", `/api/v1/blocks?max_id=${blockIds[0]}`);
  assert.deepEqual(empty.body, []);
  assert.equal(empty.headers.get("link"), null);
});

test("mute: notifications flag, creates or updates, duration and expiry, mutes list", async () => {
  const alice = await s.user("b3alice");
  const bob = await s.user("b3bob");
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
  assert.deepEqual(await notificationsFrom(alice, bob.id), ["follow"]);

  const rel = await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/mute`);
  assert.equal(rel.muting, true);
  assert.equal(rel.muting_notifications, true);
  assert.equal(rel.muting_expires_at, null);
  // Hiding notifications clears the ones already there.
  assert.deepEqual(await notificationsFrom(alice, bob.id), []);
  // The mute does not touch the follow.
  assert.equal(rel.followed_by, true);

  const updated = await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/mute`, { notifications: false, duration: 3600 });
  assert.equal(updated.muting, true);
  assert.equal(updated.muting_notifications, false);
  const expires = Date.parse(updated.muting_expires_at);
  const now = s.app.now();
  assert.ok(expires > now + 3590_000 && expires <= now + 3600_000, updated.muting_expires_at);

  const muted = await s.api(alice, "GET", "/api/v1/mutes");
  assert.deepEqual(muted.map((a: any) => [a.id, a.mute_expires_at]), [[bob.id, updated.muting_expires_at]]);

  // Past its end the mute no longer counts (the clock is moved, never slept on).
  const realNow = s.app.now;
  s.app.now = () => realNow() + 3601_000;
  try {
    const later = await relationship(s, alice, bob.id);
    assert.equal(later.muting, false);
    assert.equal(later.muting_expires_at, null);
    assert.deepEqual(await s.api(alice, "GET", "/api/v1/mutes"), []);
  } finally {
    s.app.now = realNow;
  }

  // Muting again without a duration makes it indefinite; unmute is idempotent.
  const forever = await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/mute`, new URLSearchParams({ notifications: "true" }));
  assert.equal(forever.muting_expires_at, null);
  assert.equal(forever.muting_notifications, true);
  assert.equal((await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/unmute`)).muting, false);
  assert.equal((await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/unmute`)).muting, false);
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/mutes"), []);
  // Self-mute does nothing; the blocks scope is not the mutes scope.
  assert.equal((await s.api(alice, "POST", `/api/v1/accounts/${alice.id}/mute`)).muting, false);
  const blocker = await s.user("b3scoped", { scopes: ["write:blocks", "read:blocks"] });
  assert.equal((await s.req(blocker, "POST", `/api/v1/accounts/${bob.id}/mute`)).status, 403);
  assert.equal((await s.req(blocker, "GET", "/api/v1/mutes")).status, 403);
});

test("mutes list pages by the hidden mute id", async () => {
  const owner = await s.user("b4owner");
  const a = await s.user("b4a");
  const b = await s.user("b4b");
  await s.api(owner, "POST", `/api/v1/accounts/${a.id}/mute`);
  await s.api(owner, "POST", `/api/v1/accounts/${b.id}/mute`, { duration: 60 });
  const page = await s.req(owner, "GET", "/api/v1/mutes?limit=1");
  assert.deepEqual(page.body.map((x: any) => x.id), [b.id]);
  assert.equal(typeof page.body[0].mute_expires_at, "string");
  const l = links(page.headers.get("link"));
  const rest = await s.api(owner, "GET", pathOf(l.next));
  assert.deepEqual(rest.map((x: any) => [x.id, x.mute_expires_at]), [[a.id, null]]);
});

test("account domain blocks: normalised, idempotent, paged, severing follows with that domain", async () => {
  const alice = await s.user("b5alice");
  const remote = remoteAccount(s.app, "rem", "remote.example");
  const other = remoteAccount(s.app, "oth", "other.example");
  // Remote follows exist only through federation later; the service takes any actor already.
  followAccount(s.app, remote, findAccountById(s.app.db, alice.id)!, {});
  await s.api(alice, "POST", `/api/v1/accounts/${remote.id}/follow`); // remote: pending until Accept
  assert.equal((await relationship(s, alice, remote.id)).requested, true);
  assert.equal((await relationship(s, alice, remote.id)).followed_by, true);
  const accepted = remoteAccount(s.app, "acc", "remote.example");
  await s.api(alice, "POST", `/api/v1/accounts/${accepted.id}/follow`);
  authorizeFollowRequest(s.app, accepted, alice.id); // its Accept, as federation will apply it
  assert.equal((await relationship(s, alice, accepted.id)).following, true);
  assert.deepEqual(counts(s.app, alice.id), { followers: 1, following: 1 });

  const preview = await s.api(alice, "GET", "/api/v1/domain_blocks/preview?domain=remote.example");
  assert.deepEqual(preview, { following_count: 1, followers_count: 1 });

  assert.deepEqual(await s.api(alice, "POST", "/api/v1/domain_blocks", { domain: " Remote.EXAMPLE " }), {});
  assert.deepEqual(await s.api(alice, "POST", "/api/v1/domain_blocks", new URLSearchParams({ domain: "remote.example" })), {});
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/domain_blocks"), ["remote.example"]);
  const rel = await relationship(s, alice, remote.id);
  assert.equal(rel.domain_blocking, true);
  assert.equal(rel.followed_by, false);
  assert.equal(rel.requested, false);
  assert.equal((await relationship(s, alice, accepted.id)).following, false);
  assert.deepEqual(counts(s.app, alice.id), { followers: 0, following: 0 });
  assert.equal((await relationship(s, alice, other.id)).domain_blocking, false);
  const refused = await s.req(alice, "POST", `/api/v1/accounts/${remote.id}/follow`);
  assert.equal(refused.status, 403);

  for (const [body, error] of [
    [{}, "Validation failed: Domain can't be blank"],
    [{ domain: "  " }, "Validation failed: Domain can't be blank"],
    [{ domain: "not a domain/x" }, "Validation failed: Domain is not a valid domain name"],
  ] as const) {
    const r = await s.req(alice, "POST", "/api/v1/domain_blocks", body);
    assert.equal(r.status, 422);
    assert.equal(r.body.error, error);
  }

  // Paging: 100 by default, hidden ids as cursors.
  for (const d of ["a.example", "b.example"]) await s.api(alice, "POST", "/api/v1/domain_blocks", { domain: d });
  const page = await s.req(alice, "GET", "/api/v1/domain_blocks?limit=2");
  assert.deepEqual(page.body, ["b.example", "a.example"]);
  const next = links(page.headers.get("link")).next;
  assert.deepEqual(await s.api(alice, "GET", pathOf(next)), ["remote.example"]);

  // DELETE takes the domain from the query string or the body; idempotent.
  assert.deepEqual(await s.api(alice, "DELETE", "/api/v1/domain_blocks?domain=A.example"), {});
  assert.deepEqual(await s.api(alice, "DELETE", "/api/v1/domain_blocks", { domain: "remote.example" }), {});
  assert.deepEqual(await s.api(alice, "DELETE", "/api/v1/domain_blocks", { domain: "remote.example" }), {});
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/domain_blocks"), ["b.example"]);
  assert.equal((await relationship(s, alice, remote.id)).domain_blocking, false);
});

test("a remote follow starts as a request but is answered optimistically", async () => {
  const alice = await s.user("b6alice");
  const remote = remoteAccount(s.app, "far", "far.example");
  const rel = await s.api(alice, "POST", `/api/v1/accounts/${remote.id}/follow`, { reblogs: false });
  assert.equal(rel.following, true);
  assert.equal(rel.requested, false);
  assert.equal(rel.showing_reblogs, false);
  const stored = await relationship(s, alice, remote.id);
  assert.equal(stored.following, false);
  assert.equal(stored.requested, true);
  assert.equal(stored.showing_reblogs, false);
});

test("a profile seen by someone it blocks is reduced", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { note: "my bio", display_name: "Alice" });
  await s.api(alice, "POST", "/api/v1/statuses", { status: "hello" });
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/block`);
  const seenByBob = await s.api(bob, "GET", `/api/v1/accounts/${alice.id}`);
  assert.equal(seenByBob.display_name, "Alice");
  assert.equal(seenByBob.note, "");
  assert.equal(seenByBob.statuses_count, 0);
  assert.deepEqual(seenByBob.fields, []);
  const viaLookup = await s.api(bob, "GET", "/api/v1/accounts/lookup?acct=alice");
  assert.equal(viaLookup.note, "");
  // Everyone else, anonymous callers included, sees the full profile.
  const anon = await s.api(null, "GET", `/api/v1/accounts/${alice.id}`);
  assert.equal(anon.note, "<p>my bio</p>");
  assert.equal(anon.statuses_count, 1);
});
