// Outgoing status activities (AP §5.1-5.3, 5.7, §9.1-9.2): Create, Update, Delete, Announce and
// Undo(Announce) reach the right inboxes, once per shared inbox, signed by the author.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import { favouriteStatus, reblogStatus } from "../../src/services/status-interactions.ts";
import { findAccountById, type Account } from "../../src/storage/accounts.ts";
import { type FakeActor, type FakeRemote, startFakeRemote } from "../helpers/fake-remote.ts";
import { advance, clearReceived, ofType, PUBLIC, remoteAccount, remoteFollows, verifyCavage } from "../helpers/outbox.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

let s: TestServer;
let r1: FakeRemote; // bob and carol, one shared inbox
let r2: FakeRemote; // dave, personal inbox only
let r3: FakeRemote; // erin, follows nobody
let alice: TestUser;
let aliceUri: string;
let alicePem: string;
let bob: FakeActor, carol: FakeActor, dave: FakeActor, erin: FakeActor;
let bobAcct: Account, erinAcct: Account;

before(async () => {
  s = await startTestServer();
  [r1, r2, r3] = await Promise.all([startFakeRemote(), startFakeRemote(), startFakeRemote()]);
  alice = await s.user("alice");
  const row = findAccountById(s.app.db, alice.id)!;
  aliceUri = row.uri;
  alicePem = row.publicKeyPem!;
  bob = r1.actor("bob");
  carol = r1.actor("carol");
  dave = r2.actor("dave", { sharedInbox: false });
  erin = r3.actor("erin");
  bobAcct = await remoteAccount(s, bob);
  remoteFollows(s, bobAcct, alice);
  remoteFollows(s, await remoteAccount(s, carol), alice);
  remoteFollows(s, await remoteAccount(s, dave), alice);
  erinAcct = await remoteAccount(s, erin);
  await s.drainJobs();
});

after(async () => {
  await s.close();
  await Promise.all([r1.close(), r2.close(), r3.close()]);
});

beforeEach(() => clearReceived(r1, r2, r3));

const post = async (body: Record<string, unknown>) => {
  const st = await s.api(alice, "POST", "/api/v1/statuses", body);
  await s.drainJobs();
  return st as { id: string; uri: string };
};

test("a public post: Create to each follower server once (shared inbox), signed by the author", async () => {
  const st = await post({ status: "hello fediverse", visibility: "public" });
  assert.equal(r1.received.length, 1, "bob and carol share one inbox: one POST");
  const [d1] = r1.received;
  assert.equal(d1.path, "/inbox");
  assert.equal(r2.received.length, 1);
  assert.equal(r2.received[0].path, "/users/dave/inbox");
  assert.equal(r3.received.length, 0, "erin follows nobody here");
  for (const d of [d1, r2.received[0]]) {
    assert.equal(d.body.type, "Create");
    assert.equal(d.body.id, `${aliceUri}/statuses/${st.id}/activity`);
    assert.equal(d.body.actor, aliceUri);
    assert.deepEqual(d.body.to, [PUBLIC]);
    assert.deepEqual(d.body.cc, [`${aliceUri}/followers`]);
    assert.equal(d.body.object.id, st.uri);
    assert.equal(d.body.object.type, "Note");
    assert.match(d.headers["content-type"], /^application\/activity\+json/);
    const { keyId } = verifyCavage(d, alicePem);
    assert.equal(keyId, `${aliceUri}#main-key`);
  }
});

test("a followers-only post reaches followers' servers and no one else", async () => {
  await post({ status: "just for you", visibility: "private" });
  assert.equal(r1.received.length, 1);
  assert.equal(r2.received.length, 1);
  assert.equal(r3.received.length, 0);
  assert.deepEqual(r1.received[0].body.to, [`${aliceUri}/followers`]);
  assert.deepEqual(r1.received[0].body.cc, []);
});

test("a direct post goes only to the mentioned account", async () => {
  await post({ status: `@erin@${r3.domain} psst`, visibility: "direct" });
  assert.equal(r1.received.length, 0);
  assert.equal(r2.received.length, 0);
  assert.equal(r3.received.length, 1);
  const [d] = r3.received;
  assert.equal(d.path, "/inbox");
  assert.equal(d.body.type, "Create");
  assert.deepEqual(d.body.to, [erin.id]);
  assert.deepEqual(d.body.cc, []);
  verifyCavage(d, alicePem);
});

test("a public post mentioning a non-follower reaches the followers and the mentioned server", async () => {
  await post({ status: `hi @erin@${r3.domain}`, visibility: "public" });
  assert.equal(r1.received.length, 1);
  assert.equal(r2.received.length, 1);
  assert.equal(r3.received.length, 1);
  assert.deepEqual(r3.received[0].body.cc, [`${aliceUri}/followers`, erin.id]);
});

test("a post nobody remote is concerned by sends nothing and queues no federation job", async () => {
  const zoe = await s.user("zoe");
  await s.api(zoe, "POST", "/api/v1/statuses", { status: "local only" });
  const jobs = s.app.db.prepare("SELECT count(*) AS n FROM jobs WHERE name LIKE 'federation.%'").get() as { n: bigint };
  assert.equal(jobs.n, 0n);
  await s.drainJobs();
  assert.equal(r1.received.length + r2.received.length + r3.received.length, 0);
});

test("a public reply to a local user reaches that user's remote followers (AP §9.1)", async () => {
  const st = await post({ status: "thoughts?", visibility: "public" });
  clearReceived(r1, r2, r3);
  const walt = await s.user("walt");
  const reply = await s.api(walt, "POST", "/api/v1/statuses", { status: "yes", in_reply_to_id: st.id, visibility: "public" });
  await s.drainJobs();
  for (const r of [r1, r2]) {
    assert.equal(r.received.length, 1);
    assert.equal(r.received[0].body.type, "Create");
    assert.equal(r.received[0].body.object.id, reply.uri);
  }
  assert.equal(r3.received.length, 0);
  clearReceived(r1, r2, r3);
  await s.api(walt, "POST", "/api/v1/statuses", { status: "quietly", in_reply_to_id: st.id, visibility: "private" });
  await s.drainJobs();
  assert.equal(r1.received.length + r2.received.length, 0, "not a followers-only reply");
});

test("an edit: Update to the same audience plus remote accounts that interacted", async () => {
  const st = await post({ status: "first draft", visibility: "public" });
  favouriteStatus(s.app, erinAcct, st.id); // as the inbox does for erin's Like
  await s.drainJobs();
  clearReceived(r1, r2, r3);
  await s.api(alice, "PUT", `/api/v1/statuses/${st.id}`, { status: "second draft" });
  await s.drainJobs();
  for (const r of [r1, r2, r3]) {
    assert.equal(r.received.length, 1);
    const d = r.received[0];
    assert.equal(d.body.type, "Update");
    assert.match(d.body.id, new RegExp(`^${st.uri}#updates/\\d+$`));
    assert.equal(d.body.actor, aliceUri);
    assert.equal(d.body.object.id, st.uri);
    assert.match(d.body.object.content, /second draft/);
    verifyCavage(d, alicePem);
  }
});

test("a deletion reaches followers and those who boosted or favourited, computed before the rows go", async () => {
  const st = await post({ status: "soon gone", visibility: "public" });
  // erin (not a follower) favourites it; a remote booster on a fourth server boosts it.
  const r4 = await startFakeRemote();
  try {
    const frank = await remoteAccount(s, r4.actor("frank"));
    favouriteStatus(s.app, erinAcct, st.id);
    reblogStatus(s.app, { account: frank, user: null }, st.id);
    await s.drainJobs();
    clearReceived(r1, r2, r3, r4);
    await s.api(alice, "DELETE", `/api/v1/statuses/${st.id}`);
    await s.drainJobs();
    for (const r of [r1, r2, r3, r4]) {
      assert.equal(r.received.length, 1, `${r.domain} gets the Delete`);
      const d = r.received[0];
      assert.equal(d.body.type, "Delete");
      assert.equal(d.body.id, `${st.uri}#delete`);
      assert.equal(d.body.actor, aliceUri);
      assert.deepEqual(d.body.to, [PUBLIC]);
      assert.deepEqual(d.body.object, { id: st.uri, type: "Tombstone", atomUri: st.uri });
      verifyCavage(d, alicePem);
    }
  } finally {
    await r4.close();
  }
});

test("a boost: Announce to the booster's followers; unboosting sends Undo(Announce) to the same", async () => {
  const yves = await s.user("yves");
  const original = await s.api(yves, "POST", "/api/v1/statuses", { status: "boost me", visibility: "public" });
  await s.drainJobs();
  assert.equal(r1.received.length + r2.received.length, 0, "yves has no remote followers");
  const boost = await s.api(alice, "POST", `/api/v1/statuses/${original.id}/reblog`);
  await s.drainJobs();
  assert.equal(ofType(r1, "Announce").length, 1);
  assert.equal(ofType(r2, "Announce").length, 1);
  assert.equal(r3.received.length, 0);
  const a = ofType(r1, "Announce")[0].body;
  assert.equal(a.id, `${aliceUri}/statuses/${boost.id}/activity`);
  assert.equal(a.actor, aliceUri);
  assert.equal(a.object, original.uri);
  assert.deepEqual(a.to, [PUBLIC]);
  clearReceived(r1, r2, r3);
  await s.api(alice, "POST", `/api/v1/statuses/${original.id}/unreblog`);
  await s.drainJobs();
  for (const r of [r1, r2]) {
    const [d] = r.received;
    assert.equal(r.received.length, 1);
    assert.equal(d.body.type, "Undo");
    assert.equal(d.body.id, `${aliceUri}#announces/${boost.id}/undo`);
    assert.equal(d.body.object.type, "Announce");
    assert.equal(d.body.object.id, a.id);
    verifyCavage(d, alicePem);
  }
});

test("pinning and unpinning: Add / Remove on the featured collection to followers", async () => {
  const st = await post({ status: "pin me", visibility: "public" });
  clearReceived(r1, r2, r3);
  await s.api(alice, "POST", `/api/v1/statuses/${st.id}/pin`);
  await s.drainJobs();
  await s.api(alice, "POST", `/api/v1/statuses/${st.id}/unpin`);
  await s.drainJobs();
  for (const r of [r1, r2]) {
    assert.deepEqual(
      r.received.map((d) => [d.body.type, d.body.object, d.body.target]),
      [
        ["Add", st.uri, `${aliceUri}/collections/featured`],
        ["Remove", st.uri, `${aliceUri}/collections/featured`],
      ],
    );
  }
  assert.equal(r3.received.length, 0);
});

test("a profile change: Update(Person) to followers and to accounts mentioned in the last 2 days", async () => {
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Alice Liddell" });
  await s.drainJobs();
  // r3: erin follows nobody but was mentioned by the earlier tests' posts.
  for (const r of [r1, r2, r3]) {
    assert.equal(r.received.length, 1);
    const d = r.received[0];
    assert.equal(d.body.type, "Update");
    assert.match(d.body.id, new RegExp(`^${aliceUri}#updates/\\d+$`));
    assert.deepEqual(d.body.to, [PUBLIC]);
    assert.equal(d.body.object.id, aliceUri);
    assert.equal(d.body.object.name, "Alice Liddell");
    verifyCavage(d, alicePem);
  }
  clearReceived(r1, r2, r3);
  advance(s, 3 * 86_400_000);
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Alice" });
  await s.drainJobs();
  assert.equal(r1.received.length, 1);
  assert.equal(r3.received.length, 0, "the mention is older than 2 days now");
});

test("nothing echoes back: a remote account's favourite of a local post sends nothing", async () => {
  const st = await post({ status: "like me", visibility: "public" });
  clearReceived(r1, r2, r3);
  favouriteStatus(s.app, bobAcct, st.id);
  await s.drainJobs();
  assert.equal(r1.received.length + r2.received.length + r3.received.length, 0);
});
