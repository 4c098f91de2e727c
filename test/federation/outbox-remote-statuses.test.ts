// Local actions on remote statuses (AP §5.5-5.7, §9.1): Like and Undo(Like) go to the author's
// personal inbox; a boost and a reply reach the author's server as well as local followers'.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import { resolveStatusByUri } from "../../src/federation/resolve/statuses.ts";
import { findAccountById } from "../../src/storage/accounts.ts";
import type { Status } from "../../src/storage/statuses.ts";
import { type FakeActor, type FakeRemote, startFakeRemote } from "../helpers/fake-remote.ts";
import { clearReceived, PUBLIC, remoteAccount, remoteFollows, verifyCavage } from "../helpers/outbox.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

let s: TestServer;
let r1: FakeRemote; // bob, author of the remote post
let r2: FakeRemote; // carol, alice's follower
let alice: TestUser;
let aliceUri: string, alicePem: string;
let bob: FakeActor;
let note: Status;

before(async () => {
  s = await startTestServer();
  [r1, r2] = await Promise.all([startFakeRemote(), startFakeRemote()]);
  alice = await s.user("alice");
  const a = findAccountById(s.app.db, alice.id)!;
  [aliceUri, alicePem] = [a.uri, a.publicKeyPem!];
  bob = r1.actor("bob");
  remoteFollows(s, await remoteAccount(s, r2.actor("carol")), alice);
  const uri = `${bob.id}/statuses/1`;
  r1.serve(new URL(uri).pathname, {
    "@context": "https://www.w3.org/ns/activitystreams",
    id: uri,
    type: "Note",
    attributedTo: bob.id,
    content: "<p>a remote thought</p>",
    published: new Date().toISOString(),
    to: [PUBLIC],
    cc: [bob.followers],
  });
  const resolved = await resolveStatusByUri(s.app, uri);
  assert.ok(resolved, "the remote Note resolves");
  note = resolved;
  await s.drainJobs();
});

after(async () => {
  await s.close();
  await Promise.all([r1.close(), r2.close()]);
});

beforeEach(() => clearReceived(r1, r2));

test("favouriting a remote status sends Like to the author's personal inbox; unfavouriting Undo(Like)", async () => {
  await s.api(alice, "POST", `/api/v1/statuses/${note.id}/favourite`);
  await s.drainJobs();
  const fav = s.app.db.prepare("SELECT id FROM favourites WHERE account_id = ? AND status_id = ?").get(BigInt(alice.id), BigInt(note.id)) as {
    id: bigint;
  };
  assert.equal(r2.received.length, 0, "followers do not hear of likes");
  assert.equal(r1.received.length, 1);
  const [like] = r1.received;
  assert.equal(like.path, "/users/bob/inbox");
  verifyCavage(like, alicePem);
  assert.deepEqual(
    { id: like.body.id, type: like.body.type, actor: like.body.actor, object: like.body.object },
    { id: `${aliceUri}#likes/${fav.id}`, type: "Like", actor: aliceUri, object: note.uri },
  );

  clearReceived(r1, r2);
  await s.api(alice, "POST", `/api/v1/statuses/${note.id}/unfavourite`);
  await s.drainJobs();
  assert.equal(r1.received.length, 1);
  const [undo] = r1.received;
  assert.equal(undo.path, "/users/bob/inbox");
  assert.equal(undo.body.type, "Undo");
  assert.equal(undo.body.id, `${aliceUri}#likes/${fav.id}/undo`);
  assert.deepEqual(undo.body.object, { id: `${aliceUri}#likes/${fav.id}`, type: "Like", actor: aliceUri, object: note.uri });
  verifyCavage(undo, alicePem);
});

test("boosting a remote status: Announce to the author's server and the booster's followers; Undo likewise", async () => {
  const boost = await s.api(alice, "POST", `/api/v1/statuses/${note.id}/reblog`);
  await s.drainJobs();
  for (const r of [r1, r2]) {
    assert.equal(r.received.length, 1);
    const d = r.received[0];
    assert.equal(d.path, "/inbox");
    assert.equal(d.body.type, "Announce");
    assert.equal(d.body.id, `${aliceUri}/statuses/${boost.id}/activity`);
    assert.equal(d.body.object, note.uri);
    assert.deepEqual(d.body.to, [PUBLIC]);
    assert.deepEqual(d.body.cc, [bob.id, `${aliceUri}/followers`]);
    verifyCavage(d, alicePem);
  }
  clearReceived(r1, r2);
  await s.api(alice, "POST", `/api/v1/statuses/${note.id}/unreblog`);
  await s.drainJobs();
  for (const r of [r1, r2]) {
    assert.deepEqual(
      r.received.map((d) => [d.body.type, d.body.id, d.body.object.id]),
      [["Undo", `${aliceUri}#announces/${boost.id}/undo`, `${aliceUri}/statuses/${boost.id}/activity`]],
    );
  }
});

test("a public reply to a remote status reaches its author's server and the replier's followers", async () => {
  const reply = await s.api(alice, "POST", "/api/v1/statuses", { status: "I agree", in_reply_to_id: note.id, visibility: "public" });
  await s.drainJobs();
  for (const r of [r1, r2]) {
    assert.equal(r.received.length, 1);
    const d = r.received[0];
    assert.equal(d.body.type, "Create");
    assert.equal(d.body.object.id, reply.uri);
    assert.equal(d.body.object.inReplyTo, note.uri);
  }
});

test("a followers-only reply without a mention stays with the followers", async () => {
  await s.api(alice, "POST", "/api/v1/statuses", { status: "between us", in_reply_to_id: note.id, visibility: "private" });
  await s.drainJobs();
  assert.equal(r1.received.length, 0);
  assert.equal(r2.received.length, 1);
});
