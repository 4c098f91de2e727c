// Person-to-person activities (AP §5.4-5.6, 5.8, §9.2): Follow, Undo(Follow), Accept, Reject,
// Block and Undo(Block) go to the other account's personal inbox, signed by the local actor.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import { instanceActorKeys, instanceActorUri } from "../../src/federation/instance-actor.ts";
import { findAccountById, type Account } from "../../src/storage/accounts.ts";
import { type FakeActor, type FakeRemote, startFakeRemote } from "../helpers/fake-remote.ts";
import { clearReceived, remoteAccount, remoteFollows, verifyCavage } from "../helpers/outbox.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

let s: TestServer;
let r: FakeRemote;
let alice: TestUser, lucy: TestUser;
let aliceUri: string, lucyUri: string;
let pems: Map<string, string>;
let bob: FakeActor, carol: FakeActor, dave: FakeActor;
let bobAcct: Account, carolAcct: Account, daveAcct: Account;

before(async () => {
  s = await startTestServer();
  r = await startFakeRemote();
  alice = await s.user("alice");
  lucy = await s.user("lucy");
  await s.api(lucy, "PATCH", "/api/v1/accounts/update_credentials", { locked: true });
  const a = findAccountById(s.app.db, alice.id)!;
  const l = findAccountById(s.app.db, lucy.id)!;
  [aliceUri, lucyUri] = [a.uri, l.uri];
  pems = new Map([
    [aliceUri, a.publicKeyPem!],
    [lucyUri, l.publicKeyPem!],
  ]);
  bob = r.actor("bob");
  carol = r.actor("carol");
  dave = r.actor("dave");
  [bobAcct, carolAcct, daveAcct] = [await remoteAccount(s, bob), await remoteAccount(s, carol), await remoteAccount(s, dave)];
  await s.drainJobs();
});

after(async () => {
  await s.close();
  await r.close();
});

beforeEach(() => clearReceived(r));

/** The one delivery received, checked: personal inbox, signature of `actorUri`. */
function only(inboxOf: FakeActor, actorUri: string) {
  assert.equal(r.received.length, 1, `expected one delivery, got ${r.received.map((d) => d.body?.type).join(", ")}`);
  const [d] = r.received;
  assert.equal(d.path, new URL(inboxOf.inbox).pathname, "personal inbox, not the shared one");
  assert.equal(d.body.actor, actorUri);
  assert.equal(verifyCavage(d, pems.get(actorUri)!).keyId, `${actorUri}#main-key`);
  return d.body;
}

const followRow = (table: "follows" | "follow_requests", from: string, to: string) =>
  s.app.db.prepare(`SELECT id, uri FROM ${table} WHERE account_id = ? AND target_account_id = ?`).get(BigInt(from), BigInt(to)) as
    | { id: bigint; uri: string }
    | undefined;

test("following a remote account sends Follow; unfollowing sends Undo(Follow) embedding it", async () => {
  await s.api(alice, "POST", `/api/v1/accounts/${bobAcct.id}/follow`);
  await s.drainJobs();
  const request = followRow("follow_requests", alice.id, bobAcct.id)!;
  const follow = only(bob, aliceUri);
  assert.equal(follow.type, "Follow");
  assert.equal(follow.id, request.uri);
  assert.match(follow.id, new RegExp(`^${s.url}/follows/\\d+$`));
  assert.equal(follow.object, bob.id);

  clearReceived(r);
  await s.api(alice, "POST", `/api/v1/accounts/${bobAcct.id}/unfollow`);
  await s.drainJobs();
  const undo = only(bob, aliceUri);
  assert.equal(undo.type, "Undo");
  assert.equal(undo.id, `${aliceUri}#follows/${request.id}/undo`);
  assert.deepEqual(undo.object, { id: request.uri, type: "Follow", actor: aliceUri, object: bob.id });
});

test("a remote follower of an unlocked account gets Accept at once", async () => {
  remoteFollows(s, carolAcct, alice);
  await s.drainJobs();
  const f = followRow("follows", carolAcct.id, alice.id)!;
  const accept = only(carol, aliceUri);
  assert.equal(accept.type, "Accept");
  assert.equal(accept.id, `${aliceUri}#accepts/follows/${f.id}`);
  assert.deepEqual(accept.object, { id: f.uri, type: "Follow", actor: carol.id, object: aliceUri });
});

test("a locked account's approval sends Accept; a refusal sends Reject", async () => {
  remoteFollows(s, bobAcct, lucy);
  remoteFollows(s, carolAcct, lucy);
  await s.drainJobs();
  assert.equal(r.received.length, 0, "requests wait for lucy");
  const bobRequest = followRow("follow_requests", bobAcct.id, lucy.id)!;
  const carolRequest = followRow("follow_requests", carolAcct.id, lucy.id)!;
  await s.api(lucy, "POST", `/api/v1/follow_requests/${bobAcct.id}/authorize`);
  await s.drainJobs();
  const accept = only(bob, lucyUri);
  assert.equal(accept.type, "Accept");
  assert.equal(accept.id, `${lucyUri}#accepts/follows/${bobRequest.id}`);
  assert.equal(accept.object.id, bobRequest.uri);

  clearReceived(r);
  await s.api(lucy, "POST", `/api/v1/follow_requests/${carolAcct.id}/reject`);
  await s.drainJobs();
  const reject = only(carol, lucyUri);
  assert.equal(reject.type, "Reject");
  assert.equal(reject.id, `${lucyUri}#rejects/follows/${carolRequest.id}`);
  assert.deepEqual(reject.object, { id: carolRequest.uri, type: "Follow", actor: carol.id, object: lucyUri });
});

test("removing a remote follower sends Reject(Follow)", async () => {
  remoteFollows(s, daveAcct, lucy);
  await s.api(lucy, "POST", `/api/v1/follow_requests/${daveAcct.id}/authorize`);
  await s.drainJobs();
  clearReceived(r);
  const f = followRow("follows", daveAcct.id, lucy.id)!;
  await s.api(lucy, "POST", `/api/v1/accounts/${daveAcct.id}/remove_from_followers`);
  await s.drainJobs();
  const reject = only(dave, lucyUri);
  assert.equal(reject.type, "Reject");
  assert.equal(reject.object.id, f.uri);
});

test("blocking a remote follower sends Reject(Follow) and Block; unblocking sends Undo(Block)", async () => {
  remoteFollows(s, daveAcct, alice);
  await s.drainJobs();
  clearReceived(r);
  await s.api(alice, "POST", `/api/v1/accounts/${daveAcct.id}/block`);
  await s.drainJobs();
  assert.deepEqual(
    r.received.map((d) => d.body.type),
    ["Reject", "Block"],
  );
  for (const d of r.received) {
    assert.equal(d.path, "/users/dave/inbox");
    verifyCavage(d, pems.get(aliceUri)!);
  }
  const block = r.received[1].body;
  const row = s.app.db.prepare("SELECT id, uri FROM blocks WHERE account_id = ? AND target_account_id = ?").get(BigInt(alice.id), BigInt(daveAcct.id)) as {
    id: bigint;
    uri: string;
  };
  assert.equal(block.id, row.uri);
  assert.equal(block.actor, aliceUri);
  assert.equal(block.object, dave.id);

  clearReceived(r);
  await s.api(alice, "POST", `/api/v1/accounts/${daveAcct.id}/unblock`);
  await s.drainJobs();
  const undo = only(dave, aliceUri);
  assert.equal(undo.type, "Undo");
  assert.equal(undo.id, `${aliceUri}#blocks/${row.id}/undo`);
  assert.deepEqual(undo.object, { id: row.uri, type: "Block", actor: aliceUri, object: dave.id });
});

test("local-to-local relationships send nothing", async () => {
  await s.api(alice, "POST", `/api/v1/accounts/${lucy.id}/follow`);
  await s.api(lucy, "POST", `/api/v1/follow_requests/${alice.id}/authorize`);
  await s.api(alice, "POST", `/api/v1/accounts/${lucy.id}/block`);
  const jobs = s.app.db.prepare("SELECT count(*) AS n FROM jobs WHERE name LIKE 'federation.%'").get() as { n: bigint };
  assert.equal(jobs.n, 0n);
  await s.drainJobs();
  assert.equal(r.received.length, 0);
});

test("a forwarded report sends a Flag from the instance actor to the reported account's personal inbox", async () => {
  const report = await s.api(alice, "POST", "/api/v1/reports", { account_id: bobAcct.id, comment: "spam links", forward: true });
  await s.drainJobs();
  assert.equal(r.received.length, 1);
  const [d] = r.received;
  assert.equal(d.path, "/users/bob/inbox");
  const actor = instanceActorUri(s.app);
  assert.equal(verifyCavage(d, instanceActorKeys(s.app).publicKeyPem).keyId, `${actor}#main-key`);
  assert.equal(d.body.type, "Flag");
  assert.equal(d.body.actor, actor);
  assert.match(d.body.id, new RegExp(`^${s.url}/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`));
  assert.equal(d.body.content, "spam links");
  assert.deepEqual(d.body.object, [bob.id]);
  const row = s.app.db.prepare("SELECT uri FROM reports WHERE id = ?").get(BigInt(report.id)) as { uri: string };
  assert.equal(row.uri, d.body.id, "the Flag's id is kept on the report");

  clearReceived(r);
  await s.api(alice, "POST", "/api/v1/reports", { account_id: carolAcct.id, comment: "not forwarded" });
  await s.drainJobs();
  assert.equal(r.received.length, 0);
});
