// The inbox's front door (AP §7, §10.2): signatures, statuses, size limit, dedupe, personal inboxes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ACTIVITY_ID_TTL_MS, purgeOldActivityIds } from "../../src/federation/inbox/jobs.ts";
import { createDomainBlock } from "../../src/services/domain-blocks.ts";
import { freshKey, startFakeRemote } from "../helpers/fake-remote.ts";
import { activityId, AS_CONTEXT, deliver, localUri, startWorld, type World } from "./inbox-helpers.ts";

const follow = (w: World, actorId: string) => ({
  "@context": AS_CONTEXT,
  id: `${actorId}/follows/${Math.random().toString(36).slice(2)}`,
  type: "Follow",
  actor: actorId,
  object: localUri(w, w.alice),
});

/** Whether alice has bob of the fake remote as a follower, through the client API. */
async function followedByBob(w: World): Promise<boolean> {
  const followers = await w.s.api(w.alice, "GET", `/api/v1/accounts/${w.alice.id}/followers`);
  return followers.some((a: { acct: string }) => a.acct === `bob@${w.remote.domain}`);
}

test("a validly signed activity is answered 202 with an empty body and processed", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const r = await deliver(w, bob, follow(w, bob.id));
  assert.equal(r.status, 202);
  assert.equal(r.text, "");
  await w.s.drainJobs();
  assert.equal(await followedByBob(w), true);
});

test("tampered signatures are refused with 401 and a reason", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const cases: [string, Parameters<typeof deliver>[4]][] = [
    ["wrong digest", { digest: "SHA-256=" + Buffer.alloc(32).toString("base64") }],
    ["old Date", { date: new Date(Date.now() - 2 * 3600_000) }],
    ["wrong key", { privateKey: freshKey().privateKey }],
    ["unsigned", { unsigned: true }],
  ];
  for (const [name, opts] of cases) {
    const r = await deliver(w, bob, follow(w, bob.id), "/inbox", opts);
    assert.equal(r.status, 401, `${name}: ${r.text}`);
    assert.equal(typeof JSON.parse(r.text).error, "string", name);
  }
  await w.s.drainJobs();
  assert.equal(await followedByBob(w), false);
});

test("a key of one server speaking for an actor of another is refused with 401", async (t) => {
  const w = await startWorld(t);
  const other = await startFakeRemote();
  t.after(() => other.close());
  const bob = w.remote.actor("bob");
  const mallory = other.actor("mallory");
  // Mallory signs (valid signature, her own key) an activity claiming to be bob.
  const r = await deliver(w, mallory, follow(w, bob.id));
  assert.equal(r.status, 401);
  assert.match(JSON.parse(r.text).error, /actor/);
});

test("an activity by another actor of the signer's own server is dropped with 202", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const carol = w.remote.actor("carol");
  const r = await deliver(w, carol, follow(w, bob.id));
  assert.equal(r.status, 202);
  await w.s.drainJobs();
  assert.equal(await followedByBob(w), false);
});

test("a malformed Signature header is a 400", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const body = JSON.stringify(follow(w, bob.id));
  const res = await fetch(`${w.s.url}/inbox`, {
    method: "POST",
    headers: { "content-type": "application/activity+json", date: new Date().toUTCString(), signature: 'keyId="x",signature' },
    body,
  });
  assert.equal(res.status, 400);
  assert.equal(typeof (await res.json()).error, "string");
});

test("the signer's domain suspended by the admin is a 403", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  createDomainBlock(w.s.app, { domain: "127.0.0.1", severity: "suspend" });
  const r = await deliver(w, bob, follow(w, bob.id));
  assert.equal(r.status, 403);
});

test("a body over 1 MiB is a 413, by Content-Length and while reading", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const big = { ...follow(w, bob.id), padding: "x".repeat(1024 * 1024) };
  const r = await deliver(w, bob, big);
  assert.equal(r.status, 413);
  // Chunked: no Content-Length, so the limit applies as the body streams in.
  const chunks = [Buffer.from('{"padding":"'), Buffer.alloc(1024 * 1024 + 10, "x"), Buffer.from('"}')];
  const stream = new ReadableStream({
    start(c) {
      for (const b of chunks) c.enqueue(b);
      c.close();
    },
  });
  const res = await fetch(`${w.s.url}/inbox`, { method: "POST", headers: { "content-type": "application/activity+json" }, body: stream, duplex: "half" } as RequestInit);
  assert.equal(res.status, 413);
});

test("a body that is not a JSON object is a 400", async (t) => {
  const w = await startWorld(t);
  for (const body of ["not json", "[1,2]", '"text"']) {
    const res = await fetch(`${w.s.url}/inbox`, { method: "POST", headers: { "content-type": "application/activity+json" }, body });
    assert.equal(res.status, 400, body);
  }
});

test("a repeated activity id is accepted once and processed once", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const status = await w.s.api(w.alice, "POST", "/api/v1/statuses", { status: "like me" });
  const like = { "@context": AS_CONTEXT, id: activityId(bob, "likes"), type: "Like", actor: bob.id, object: `${localUri(w, w.alice)}/statuses/${status.id}` };
  const first = await deliver(w, bob, like);
  const second = await deliver(w, bob, like);
  assert.deepEqual([first.status, second.status], [202, 202]);
  const jobs = w.s.app.db.prepare("SELECT count(*) AS n FROM jobs WHERE name = 'inbox.process'").get() as { n: bigint };
  assert.equal(jobs.n, 1n);
  await w.s.drainJobs();
  const after = await w.s.api(w.alice, "GET", `/api/v1/statuses/${status.id}`);
  assert.equal(after.favourites_count, 1);
});

test("personal inboxes: 404 for unknown or unapproved local users", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const pending = await w.s.user("pending", { approved: false });
  assert.equal((await deliver(w, bob, follow(w, bob.id), "/users/nobody/inbox")).status, 404);
  assert.equal((await deliver(w, bob, follow(w, bob.id), `/users/${pending.username}/inbox`)).status, 404);
  assert.equal((await deliver(w, bob, follow(w, bob.id), "/users/alice/inbox")).status, 202);
  assert.equal((await deliver(w, bob, follow(w, bob.id), "/actor/inbox")).status, 202);
});

test("a Delete of an unknown actor by itself is answered 202 before any signature check", async (t) => {
  const w = await startWorld(t);
  const gone = `${w.remote.origin}/users/gone`;
  const res = await fetch(`${w.s.url}/inbox`, {
    method: "POST",
    headers: { "content-type": "application/activity+json" },
    body: JSON.stringify({ "@context": AS_CONTEXT, id: `${gone}#delete`, type: "Delete", actor: gone, object: gone }),
  });
  assert.equal(res.status, 202);
  // Nothing was fetched from the remote to check it.
  assert.equal(w.remote.requests.length, 0);
});

test("a key whose server cannot be reached is a 503 (the sender should retry)", async (t) => {
  const w = await startWorld(t);
  const gone = await startFakeRemote();
  const dave = gone.actor("dave");
  await gone.close();
  const r = await deliver(w, dave, follow(w, dave.id));
  assert.equal(r.status, 503);
});

test("a rotated key is picked up: verification fails with the stored key, the actor is fetched again", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  assert.equal((await deliver(w, bob, follow(w, bob.id))).status, 202);
  await w.s.drainJobs(); // the follow touches bob's row (counters): the key cache entry goes
  const key = freshKey();
  bob.doc.publicKey = { id: bob.keyId, owner: bob.id, publicKeyPem: key.publicKeyPem };
  bob.privateKey = key.privateKey;
  const before = w.remote.requests.filter((r) => r.path === "/users/bob").length;
  assert.equal((await deliver(w, bob, follow(w, bob.id))).status, 202);
  assert.equal(w.remote.requests.filter((r) => r.path === "/users/bob").length, before + 1);
});

test("activity ids are forgotten after a week (the periodic purge)", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const activity = follow(w, bob.id);
  assert.equal((await deliver(w, bob, activity)).status, 202);
  await w.s.drainJobs();
  const count = () => (w.s.app.db.prepare("SELECT count(*) AS n FROM inbox_activity_ids").get() as { n: bigint }).n;
  assert.equal(purgeOldActivityIds(w.s.app), 0);
  assert.equal(count(), 1n);
  const now = w.s.app.now();
  w.s.app.now = () => now + ACTIVITY_ID_TTL_MS + 1000;
  assert.equal(purgeOldActivityIds(w.s.app), 1);
  assert.equal(count(), 0n);
});

test("an activity whose id is on another server is dropped: it cannot shadow that server's activity", async (t) => {
  const w = await startWorld(t);
  const other = await startFakeRemote();
  t.after(() => other.close());
  const bob = w.remote.actor("bob");
  const carol = other.actor("carol");
  const id = await w.s.api(w.alice, "POST", "/api/v1/statuses", { status: "like me" }).then((s) => s.id);
  const object = `${localUri(w, w.alice)}/statuses/${id}`;
  const stolenId = `${carol.id}#likes/1`;
  // bob uses carol's activity id first...
  assert.equal((await deliver(w, bob, { "@context": AS_CONTEXT, id: stolenId, type: "Like", actor: bob.id, object })).status, 202);
  // ...carol's real Like with that id is still processed; bob's is not.
  assert.equal((await deliver(w, carol, { "@context": AS_CONTEXT, id: stolenId, type: "Like", actor: carol.id, object })).status, 202);
  await w.s.drainJobs();
  const by = await w.s.api(w.alice, "GET", `/api/v1/statuses/${id}/favourited_by`);
  assert.deepEqual(by.map((a: { acct: string }) => a.acct), [`carol@${other.domain}`]);
});

test("a server's instance actor named after its host:port signs a Flag: the key is found, the report lands", async (t) => {
  const w = await startWorld(t);
  const admin = await w.s.user("admin", { role: "admin" });
  const key = freshKey();
  const id = `${w.remote.origin}/actor`;
  const doc = {
    "@context": [AS_CONTEXT, "https://w3id.org/security/v1"],
    id,
    type: "Application",
    // roost's (and older Mastodon's) instance actor is named after the domain, port included.
    preferredUsername: w.remote.domain,
    inbox: `${id}/inbox`,
    outbox: `${id}/outbox`,
    publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: key.publicKeyPem },
  };
  w.remote.serve("/actor", doc);
  const instance = { username: w.remote.domain, id, keyId: `${id}#main-key`, inbox: `${id}/inbox`, followers: "", publicKeyPem: key.publicKeyPem, privateKey: key.privateKey, doc };
  const flag = { "@context": AS_CONTEXT, id: `${w.remote.origin}/flags/1`, type: "Flag", actor: id, content: "spam", object: [localUri(w, w.alice)] };
  const r = await deliver(w, instance, flag, "/users/alice/inbox");
  assert.equal(r.status, 202, r.text);
  await w.s.drainJobs();
  const row = w.s.app.db.prepare("SELECT comment, uri, target_account_id FROM reports").get() as { comment: string; uri: string; target_account_id: bigint };
  assert.equal(row.comment, "spam");
  assert.equal(row.uri, flag.id);
  assert.equal(String(row.target_account_id), w.alice.id);
  // Staff hear of it like of a local report.
  const [n] = await w.s.api(admin, "GET", "/api/v1/notifications?types[]=admin.report");
  assert.equal(n.report.comment, "spam");
  assert.equal(n.report.target_account.id, w.alice.id);
  assert.equal(n.account.acct, `${w.remote.domain.replace(":", "_")}@${w.remote.domain}`, "from the remote instance actor");
});

test("one activity delivered to two personal inboxes (no shared inbox) is processed for each recipient", async (t) => {
  const w = await startWorld(t);
  const carol = await w.s.user("carol");
  const bob = w.remote.actor("bob", { sharedInbox: false });
  const note = {
    id: `${bob.id}/statuses/bcc`,
    type: "Note",
    attributedTo: bob.id,
    content: "<p>for the two of you</p>",
    published: new Date().toISOString(),
    to: [bob.followers],
    cc: [],
  };
  const create = { "@context": AS_CONTEXT, id: `${note.id}/activity`, type: "Create", actor: bob.id, to: note.to, cc: [], object: note };
  for (const who of [w.alice, carol]) assert.equal((await deliver(w, bob, create, `/users/${who.username}/inbox`)).status, 202);
  await w.s.drainJobs();
  for (const who of [w.alice, carol]) {
    const found = await w.s.api(who, "GET", `/api/v2/search?q=${encodeURIComponent(note.id)}&type=statuses`);
    assert.equal(found.statuses.length, 1, `${who.username} may see it`);
  }
});
