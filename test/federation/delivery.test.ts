// `federation.deliver` (AP §9.3, §10.1): retries with backoff, final failures, peers marked
// unavailable after failing on 7 days, the RFC 9421 double-knock, and the purge of bodies.
import assert from "node:assert/strict";
import { test } from "node:test";
import { isPeerUnavailable, recordPeerInbound } from "../../src/federation/peers.ts";
import { resolveAccountByUri } from "../../src/federation/resolve/accounts.ts";
import { createDomainBlock } from "../../src/services/domain-blocks.ts";
import { findAccountById } from "../../src/storage/accounts.ts";
import { type FakeRemote, startFakeRemote } from "../helpers/fake-remote.ts";
import { advance, clearReceived, ofType, remoteAccount, remoteFollows, verifyCavage, verifyRfc9421 } from "../helpers/outbox.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

const DAY = 86_400_000;

interface Setup {
  s: TestServer;
  r: FakeRemote;
  alice: TestUser;
  alicePem: string;
}

/** alice@test with one remote follower, bob, on a fake server with a shared inbox. */
async function setup(t: { after: (fn: () => Promise<void>) => void }): Promise<Setup> {
  const s = await startTestServer();
  const r = await startFakeRemote();
  t.after(async () => {
    await s.close();
    await r.close();
  });
  const alice = await s.user("alice");
  remoteFollows(s, await remoteAccount(s, r.actor("bob")), alice);
  await s.drainJobs();
  clearReceived(r);
  return { s, r, alice, alicePem: findAccountById(s.app.db, alice.id)!.publicKeyPem! };
}

interface JobRow {
  attempts: bigint;
  run_at: bigint;
  last_error: string | null;
}
const deliverJobs = (s: TestServer) => s.app.db.prepare("SELECT attempts, run_at, last_error FROM jobs WHERE name = 'federation.deliver'").all() as JobRow[];
const peerRow = (s: TestServer, domain: string) =>
  s.app.db.prepare("SELECT failure_count, failure_days, unavailable_since, signature_scheme FROM federation_peers WHERE domain = ?").get(domain) as
    | { failure_count: bigint; failure_days: bigint; unavailable_since: bigint | null; signature_scheme: string | null }
    | undefined;

const post = async (x: Setup, text: string) => {
  await x.s.api(x.alice, "POST", "/api/v1/statuses", { status: text });
  await x.s.drainJobs();
};

test("a 500 is retried after a backoff and then delivered; the peer's failure state clears", async (t) => {
  const x = await setup(t);
  let answers = [500, 202];
  x.r.respond = () => answers.shift() ?? 202;
  await post(x, "first try fails");
  assert.equal(x.r.received.length, 1);
  const [job] = deliverJobs(x.s);
  assert.equal(job.attempts, 1n);
  assert.ok(Number(job.run_at) > x.s.app.now(), "waits for the backoff");
  assert.match(job.last_error ?? "", /answered 500/);
  assert.deepEqual(
    { count: peerRow(x.s, x.r.domain)?.failure_count, days: peerRow(x.s, x.r.domain)?.failure_days },
    { count: 1n, days: 1n },
  );

  await x.s.drainJobs();
  assert.equal(x.r.received.length, 1, "not before the backoff");
  advance(x.s, 10 * 60_000);
  await x.s.drainJobs();
  assert.equal(x.r.received.length, 2);
  assert.equal(x.r.received[1].raw, x.r.received[0].raw, "the same stored body");
  verifyCavage(x.r.received[1], x.alicePem);
  assert.deepEqual(deliverJobs(x.s), []);
  assert.equal(peerRow(x.s, x.r.domain)?.failure_count, 0n);
  answers = [];
});

test("a 410 is final: no retry, the job is dead, and the peer counts as alive", async (t) => {
  const x = await setup(t);
  x.r.respond = () => 410;
  await post(x, "gone");
  assert.equal(x.r.received.length, 1);
  assert.deepEqual(deliverJobs(x.s), []);
  const dead = x.s.app.db.prepare("SELECT attempts, last_error FROM dead_jobs WHERE name = 'federation.deliver'").all() as { attempts: bigint; last_error: string }[];
  assert.equal(dead.length, 1);
  assert.equal(dead[0].attempts, 1n);
  assert.match(dead[0].last_error, /answered 410/);
  assert.equal(peerRow(x.s, x.r.domain)?.failure_count ?? 0n, 0n);
  advance(x.s, DAY);
  await x.s.drainJobs();
  assert.equal(x.r.received.length, 1);
});

test("a 400 to both signature schemes is final; 429 is retried", async (t) => {
  const x = await setup(t);
  x.r.respond = () => 400;
  await post(x, "bad request");
  assert.equal(x.r.received.length, 2, "cavage, then the RFC 9421 knock");
  assert.deepEqual(deliverJobs(x.s), []);
  x.r.respond = () => 429;
  clearReceived(x.r);
  await post(x, "slow down");
  assert.equal(x.r.received.length, 1);
  assert.equal(deliverJobs(x.s).length, 1);
});

test("after 10 consecutive failures a peer is not tried for a minute", async (t) => {
  const x = await setup(t);
  x.r.respond = () => 500;
  for (let i = 1; i <= 11; i++) await x.s.api(x.alice, "POST", "/api/v1/statuses", { status: `post ${i}` });
  await x.s.drainJobs();
  assert.equal(x.r.received.length, 10, "the 11th delivery is not attempted");
  assert.equal(peerRow(x.s, x.r.domain)?.failure_count, 10n);
  const jobs = deliverJobs(x.s);
  assert.equal(jobs.length, 11);
  assert.ok(jobs.some((j) => /not tried for a minute/.test(j.last_error ?? "")));
  x.r.respond = () => 202;
  advance(x.s, 10 * 60_000);
  await x.s.drainJobs();
  assert.equal(x.r.received.length, 21);
  assert.deepEqual(deliverJobs(x.s), []);
});

test("a peer failing on 7 different days becomes unavailable and is skipped until it talks to us", async (t) => {
  const x = await setup(t);
  x.r.respond = () => 500;
  await post(x, "into the void");
  for (let day = 2; day <= 7; day++) {
    assert.equal(isPeerUnavailable(x.s.app, x.r.domain), false, `still available before day ${day}`);
    advance(x.s, DAY);
    await x.s.drainJobs();
  }
  assert.equal(x.r.received.length, 7, "one attempt a day");
  const peer = peerRow(x.s, x.r.domain)!;
  assert.equal(peer.failure_days, 7n);
  assert.equal(peer.failure_count, 7n);
  assert.ok(peer.unavailable_since !== null);
  assert.equal(isPeerUnavailable(x.s.app, x.r.domain), true);

  // The pending retry is dropped when its time comes, and a new post queues nothing for it.
  advance(x.s, DAY);
  await x.s.drainJobs();
  assert.equal(x.r.received.length, 7);
  assert.deepEqual(deliverJobs(x.s), []);
  await x.s.api(x.alice, "POST", "/api/v1/statuses", { status: "anyone?" });
  await x.s.drainJobs();
  assert.equal(x.r.received.length, 7);
  assert.deepEqual(deliverJobs(x.s), []);

  // An activity from the peer makes it available again.
  x.r.respond = () => 202;
  recordPeerInbound(x.s.app, x.r.domain);
  assert.equal(isPeerUnavailable(x.s.app, x.r.domain), false);
  await post(x, "welcome back");
  assert.equal(ofType(x.r, "Create").at(-1)?.body.object.content.includes("welcome back"), true);
  assert.equal(peerRow(x.s, x.r.domain)?.failure_days, 0n);
});

test("a Follow is delivered to an unavailable peer, and its success clears the peer", async (t) => {
  const x = await setup(t);
  x.r.respond = () => 500;
  await post(x, "failing");
  for (let day = 2; day <= 7; day++) {
    advance(x.s, DAY);
    await x.s.drainJobs();
  }
  assert.equal(isPeerUnavailable(x.s.app, x.r.domain), true);
  x.r.respond = () => 202;
  const carol = await remoteAccount(x.s, x.r.actor("carol"));
  await x.s.api(x.alice, "POST", `/api/v1/accounts/${carol.id}/follow`);
  await x.s.drainJobs();
  const [follow] = ofType(x.r, "Follow");
  assert.equal(follow.path, "/users/carol/inbox");
  assert.equal(isPeerUnavailable(x.s.app, x.r.domain), false);
});

test("double-knock: a 401 to draft-cavage is retried at once with RFC 9421, which is then remembered", async (t) => {
  const x = await setup(t);
  x.r.respond = (d) => (d.headers["signature-input"] ? 202 : 401);
  await post(x, "knock knock");
  assert.equal(x.r.received.length, 2);
  const [cavage, rfc] = x.r.received;
  assert.equal(cavage.headers["signature-input"], undefined);
  verifyCavage(cavage, x.alicePem);
  const aliceUri = findAccountById(x.s.app.db, x.alice.id)!.uri;
  assert.equal(verifyRfc9421(rfc, x.alicePem, `${x.r.origin}/inbox`).keyId, `${aliceUri}#main-key`);
  assert.equal(rfc.raw, cavage.raw);
  assert.deepEqual(deliverJobs(x.s), []);
  assert.equal(peerRow(x.s, x.r.domain)?.signature_scheme, "rfc9421");
  assert.equal(peerRow(x.s, x.r.domain)?.failure_count, 0n);

  clearReceived(x.r);
  await post(x, "who's there");
  assert.equal(x.r.received.length, 1, "RFC 9421 first for this peer now");
  verifyRfc9421(x.r.received[0], x.alicePem, `${x.r.origin}/inbox`);
});

test("a remembered RFC 9421 peer that stops accepting it gets draft-cavage, remembered in turn", async (t) => {
  const x = await setup(t);
  x.r.respond = (d) => (d.headers["signature-input"] ? 202 : 401);
  await post(x, "learn 9421");
  x.r.respond = (d) => (d.headers["signature-input"] ? 401 : 202);
  clearReceived(x.r);
  await post(x, "back to cavage");
  assert.equal(x.r.received.length, 2);
  assert.ok(x.r.received[0].headers["signature-input"]);
  verifyCavage(x.r.received[1], x.alicePem);
  assert.equal(peerRow(x.s, x.r.domain)?.signature_scheme, "cavage");
});

test("an admin-suspended domain receives nothing", async (t) => {
  const x = await setup(t);
  createDomainBlock(x.s.app, { domain: "127.0.0.1", severity: "suspend" });
  await post(x, "not for them");
  assert.equal(x.r.received.length, 0);
  assert.deepEqual(deliverJobs(x.s), []);
});

test("a remote follower suspended by its server is left out", async (t) => {
  const x = await setup(t);
  const r2 = await startFakeRemote();
  t.after(() => r2.close());
  const mallory = r2.actor("mallory");
  remoteFollows(x.s, await remoteAccount(x.s, mallory), x.alice);
  await x.s.drainJobs();
  mallory.doc.suspended = true;
  const refreshed = await resolveAccountByUri(x.s.app, mallory.id, { refresh: true });
  assert.ok(refreshed?.suspendedAt);
  clearReceived(x.r, r2);
  await post(x, "not for mallory");
  assert.equal(x.r.received.length, 1);
  assert.equal(r2.received.length, 0);
});

test("stored bodies are purged once no delivery refers to them", async (t) => {
  const x = await setup(t);
  const count = () => (x.s.app.db.prepare("SELECT count(*) AS n FROM outgoing_activities").get() as { n: bigint }).n;
  x.r.respond = (d) => (d.body?.object?.content?.includes("pending") ? 503 : 202);
  const setupBodies = count(); // the Accept of bob's follow
  await post(x, "done");
  await post(x, "pending");
  assert.equal(count(), setupBodies + 2n);
  advance(x.s, 2 * 3_600_000);
  await x.s.drainJobs(); // the hourly purge runs; the retry of "pending" fails again
  assert.equal(count(), 1n, "the body a retry still needs is kept");
  assert.equal(deliverJobs(x.s).length, 1);
});
