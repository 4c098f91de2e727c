// A local poll as the fediverse sees it (AP §4.6, §5.2): a Question in Mastodon's shape, new
// tallies batched into one Update(Question) three minutes after a vote (never while totals are
// hidden), the final tallies with `closed` at the end, and the Question served on its id.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type FakeRemote, startFakeRemote } from "../helpers/fake-remote.ts";
import { advance, ofType, remoteAccount, remoteFollows } from "../helpers/outbox.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

async function world(t: { after: (fn: () => Promise<void>) => void }) {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(async () => {
    await s.close();
    await remote.close();
  });
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  remoteFollows(s, await remoteAccount(s, remote.actor("rita")), alice);
  await s.drainJobs();
  remote.received.length = 0;
  return { s, remote, alice, bob, carol };
}

const questionOf = (remote: FakeRemote, type: string) => ofType(remote, type).map((d) => d.body.object);
const totals = (q: any) => (q.oneOf ?? q.anyOf).map((o: any) => o.replies.totalItems);

async function vote(s: TestServer, who: TestUser, pollId: string, choices: number[]) {
  await s.api(who, "POST", `/api/v1/polls/${pollId}/votes`, { choices });
}

test("a local poll goes out as a Question; votes are batched into one Update(Question); the end sends the final tallies", async (t) => {
  const { s, remote, alice, bob, carol } = await world(t);
  const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "herons?", poll: { options: ["yes", "no"], expires_in: 3600 } });
  await s.drainJobs();
  const [q] = questionOf(remote, "Create");
  const end = new Date(Date.parse(st.poll.expires_at)).toISOString().replace(/\.\d{3}Z$/, "Z");
  assert.deepEqual(
    { type: q.type, id: q.id, oneOf: q.oneOf, endTime: q.endTime, closed: q.closed, votersCount: q.votersCount, anyOf: q.anyOf },
    {
      type: "Question",
      id: st.uri,
      oneOf: [
        { type: "Note", name: "yes", replies: { type: "Collection", totalItems: 0 } },
        { type: "Note", name: "no", replies: { type: "Collection", totalItems: 0 } },
      ],
      endTime: end,
      closed: undefined,
      votersCount: 0,
      anyOf: undefined,
    },
  );

  await vote(s, bob, st.poll.id, [0]);
  await vote(s, carol, st.poll.id, [0]);
  await s.drainJobs();
  assert.equal(ofType(remote, "Update").length, 0, "nothing before the three minutes");
  advance(s, 3 * 60_000 + 1000);
  await s.drainJobs();
  const updates = ofType(remote, "Update");
  assert.equal(updates.length, 1, "two votes, one Update");
  assert.match(updates[0].body.id, new RegExp(`^${st.uri}#updates/\\d+$`));
  assert.deepEqual([totals(updates[0].body.object), updates[0].body.object.votersCount], [[2, 0], 2]);
  // The Question served on its id says the same.
  const served = await remote.get(st.uri, remote.actor("rita"));
  assert.deepEqual([served.json.type, totals(served.json), served.json.votersCount], ["Question", [2, 0], 2]);

  // The end: the final tallies with `closed`, and the author and voters are notified.
  const dave = await s.user("dave");
  await vote(s, dave, st.poll.id, [1]);
  advance(s, 3600_000);
  await s.drainJobs();
  const last = ofType(remote, "Update").at(-1)!.body.object;
  assert.deepEqual([totals(last), last.votersCount, last.closed, last.endTime], [[2, 1], 3, end, end]);
  for (const who of [alice, bob, carol, dave]) {
    const n = await s.api(who, "GET", "/api/v1/notifications?types[]=poll");
    assert.deepEqual(n.map((x: any) => [x.type, x.status.id]), [["poll", st.id]], who.username);
  }
});

test("hidden totals: no Update for votes, null tallies in the Question until the end", async (t) => {
  const { s, remote, alice, bob } = await world(t);
  const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "secret ballot", poll: { options: ["a", "b", "c"], expires_in: 600, multiple: true, hide_totals: true } });
  await s.drainJobs();
  const [q] = questionOf(remote, "Create");
  assert.deepEqual([q.oneOf, totals(q)], [undefined, [null, null, null]]);
  await vote(s, bob, st.poll.id, [0, 2]);
  advance(s, 5 * 60_000);
  await s.drainJobs();
  assert.equal(ofType(remote, "Update").length, 0);
  advance(s, 6 * 60_000);
  await s.drainJobs();
  const [end] = questionOf(remote, "Update");
  assert.deepEqual([totals(end), end.votersCount, typeof end.closed], [[1, 0, 1], 1, "string"]);
});

test("an edit with new options goes out as an Update of the Question", async (t) => {
  const { s, remote, alice, bob } = await world(t);
  const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "v1", poll: { options: ["a", "b"], expires_in: 3600 } });
  await vote(s, bob, st.poll.id, [1]);
  await s.drainJobs();
  remote.received.length = 0;
  await s.api(alice, "PUT", `/api/v1/statuses/${st.id}`, { status: "v2", poll: { options: ["a", "c"], expires_in: 3600 } });
  await s.drainJobs();
  const [q] = questionOf(remote, "Update");
  assert.deepEqual([q.type, q.oneOf.map((o: any) => o.name), totals(q), q.votersCount, typeof q.updated], ["Question", ["a", "c"], [0, 0], 0, "string"]);
});
