// The profile directory: GET /api/v1/directory and the seed's /api/v1/directories (the same
// answer), its order, `local`, offset and limit, who is listed (discoverable only; never
// suspended, silenced or moved), a viewer's blocks, mutes and domain blocks, and /directory.
import { test } from "node:test";
import assert from "node:assert/strict";
import { blockDomain } from "../../src/services/account-domain-blocks.ts";
import { updateAccount } from "../../src/storage/accounts.ts";
import { startFakeRemote } from "../helpers/fake-remote.ts";
import { startTestServer, type TestUser } from "../helpers/server.ts";
import { remoteAccountOf } from "../federation/remote-status-helpers.ts";

const names = (list: { acct: string }[]) => list.map((a) => a.acct);

test("the directory lists discoverable accounts, most recently active or newest first", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const listed = async (u: TestUser) => {
    await s.api(u, "PATCH", "/api/v1/accounts/update_credentials", { discoverable: true });
    return u;
  };
  const alice = await listed(await s.user("alice"));
  const bob = await listed(await s.user("bob")); // never posts
  const carol = await s.user("carol"); // not discoverable
  const dave = await listed(await s.user("dave"));
  const erin = await listed(await s.user("erin"));
  const viewer = await s.user("viewer");
  const rita = await remoteAccountOf(s, remote.actor("rita", { extra: { discoverable: true } }));
  await remoteAccountOf(s, remote.actor("quiet", { extra: { discoverable: false } }));
  const ritaAcct = `rita@${remote.domain}`;

  await s.api(dave, "POST", "/api/v1/statuses", { status: "first" });
  s.app.now = ((now) => () => now() + 60_000)(s.app.now);
  await s.api(alice, "POST", "/api/v1/statuses", { status: "later" });
  await s.api(carol, "POST", "/api/v1/statuses", { status: "unlisted person" });
  updateAccount(s.app.db, rita.id, { lastStatusAt: s.app.now() - 30_000 });

  const anon = await s.req(null, "GET", "/api/v1/directory");
  assert.equal(anon.status, 200);
  assert.match(anon.headers.get("cache-control") ?? "", /^public, max-age=15/);
  // active: latest post first, those who never posted last (newest account first among them).
  assert.deepEqual(names(anon.body), ["alice", ritaAcct, "dave", "erin", "bob"]);
  assert.deepEqual(anon.body[0].id, alice.id);
  assert.deepEqual(names((await s.req(null, "GET", "/api/v1/directory?order=active")).body), names(anon.body));
  assert.deepEqual(names((await s.req(null, "GET", "/api/v1/directory?order=nonsense")).body), names(anon.body));
  // new: newest account first.
  assert.deepEqual(names((await s.req(null, "GET", "/api/v1/directory?order=new")).body), [ritaAcct, "erin", "dave", "bob", "alice"]);
  assert.deepEqual(names((await s.req(null, "GET", "/api/v1/directory?local=true")).body), ["alice", "dave", "erin", "bob"]);
  // The seed's path answers the same.
  const alias = await s.req(viewer, "GET", "/api/v1/directories?order=new&local=true");
  assert.equal(alias.status, 200);
  assert.deepEqual(names(alias.body), ["erin", "dave", "bob", "alice"]);

  // offset and limit page through the same order; limit is at most 80, offset never negative.
  assert.deepEqual(names((await s.req(null, "GET", "/api/v1/directory?limit=2")).body), ["alice", ritaAcct]);
  assert.deepEqual(names((await s.req(null, "GET", "/api/v1/directory?limit=2&offset=2")).body), ["dave", "erin"]);
  assert.deepEqual(names((await s.req(null, "GET", "/api/v1/directory?offset=4")).body), ["bob"]);
  assert.deepEqual((await s.req(null, "GET", "/api/v1/directory?offset=99")).body, []);
  assert.equal((await s.req(null, "GET", "/api/v1/directory?limit=500")).body.length, 5);
  const negative = await s.req(null, "GET", "/api/v1/directory?offset=-1");
  assert.equal(negative.status, 400);
  assert.equal(negative.body.error, "Pagination values for `offset` and `limit` must be positive");

  // Suspended, silenced and moved accounts leave it; so does one who opts out.
  updateAccount(s.app.db, dave.id, { suspendedAt: s.app.now() });
  updateAccount(s.app.db, erin.id, { silencedAt: s.app.now() });
  updateAccount(s.app.db, bob.id, { movedToAccountId: alice.id });
  assert.deepEqual(names((await s.req(null, "GET", "/api/v1/directory")).body), ["alice", ritaAcct]);
  updateAccount(s.app.db, bob.id, { movedToAccountId: null });
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { discoverable: false });
  assert.deepEqual(names((await s.req(null, "GET", "/api/v1/directory")).body), [ritaAcct, "bob"]);
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { discoverable: true });

  // A viewer does not see whom it blocks or mutes, who blocks it, nor domains it blocks.
  const seen = async () => names(await s.api(viewer, "GET", "/api/v1/directory"));
  assert.deepEqual(await seen(), ["alice", ritaAcct, "bob"]);
  await s.api(viewer, "POST", `/api/v1/accounts/${alice.id}/mute`);
  assert.deepEqual(await seen(), [ritaAcct, "bob"]);
  await s.api(bob, "POST", `/api/v1/accounts/${viewer.id}/block`);
  assert.deepEqual(await seen(), [ritaAcct]);
  // Through the service: the API refuses a host with a port (as in test/api/search.test.ts).
  blockDomain(s.app, viewer.account, remote.domain);
  assert.deepEqual(await seen(), []);
  // ...but with local=true the domain block has nothing to hide; anonymous callers see all.
  assert.deepEqual(names((await s.req(null, "GET", "/api/v1/directory")).body), ["alice", ritaAcct, "bob"]);
  const personal = await s.req(viewer, "GET", "/api/v1/directory");
  assert.equal(/public/.test(personal.headers.get("cache-control") ?? ""), false);
});

test("the /directory page lists the same accounts for browsers, escaped", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice", { displayName: "<b>Alice</b> & co" });
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { discoverable: true });
  await s.user("hidden");
  const res = await fetch(`${s.url}/directory`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
  const html = await res.text();
  assert.ok(html.includes("&#60;b&#62;Alice&#60;/b&#62; &#38; co"), html);
  assert.ok(html.includes("@alice"));
  assert.equal(html.includes("@hidden"), false);
  assert.equal(html.includes("<b>Alice"), false);
  const local = await fetch(`${s.url}/directory?local=true&order=new&offset=-3`);
  assert.equal(local.status, 400);
});
