// A poll between two roost servers over loopback, driven through the client API, with each
// server's clock moved instead of waiting: alice on A asks, bob on B votes, A counts the vote
// and sends its tallies back, both hear of the end, and both show the same final tallies.
import assert from "node:assert/strict";
import { test } from "node:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";

test("a poll round trip between two roost servers", async (t) => {
  const [A, B] = await Promise.all([startTestServer(), startTestServer()]);
  t.after(() => Promise.all([A.close(), B.close()]));
  const [alice, carol] = [await A.user("alice"), await A.user("carol")];
  const bob = await B.user("bob");
  const settle = async () => {
    for (let i = 0; i < 4; i++) {
      await A.drainJobs();
      await B.drainJobs();
    }
  };
  const move = (s: TestServer, ms: number) => {
    const at = s.app.now() + ms;
    s.app.now = () => at;
  };

  const aliceOnB = await B.api(bob, "GET", `/api/v1/accounts/lookup?acct=alice@${A.app.config.domain}`);
  await B.api(bob, "POST", `/api/v1/accounts/${aliceOnB.id}/follow`);
  await settle();
  assert.equal((await B.api(bob, "GET", `/api/v1/accounts/relationships?id[]=${aliceOnB.id}`))[0].following, true);

  const asked = await A.api(alice, "POST", "/api/v1/statuses", { status: "tea or coffee?", poll: { options: ["tea", "coffee"], expires_in: 3600 } });
  await settle();
  const [seen] = await B.api(bob, "GET", "/api/v1/timelines/home");
  assert.equal(seen.uri, asked.uri);
  assert.deepEqual(
    { options: seen.poll.options, expires_at: seen.poll.expires_at, voters: seen.poll.voters_count, voted: seen.poll.voted },
    { options: [{ title: "tea", votes_count: 0 }, { title: "coffee", votes_count: 0 }], expires_at: new Date(Math.floor(Date.parse(asked.poll.expires_at) / 1000) * 1000).toISOString(), voters: 0, voted: false },
  );

  // bob votes on B; A counts it; carol votes on A too.
  await B.api(bob, "POST", `/api/v1/polls/${seen.poll.id}/votes`, { choices: [1] });
  await settle();
  await A.api(carol, "POST", `/api/v1/polls/${asked.poll.id}/votes`, { choices: [0] });
  const onA = await A.api(alice, "GET", `/api/v1/polls/${asked.poll.id}`);
  assert.deepEqual([onA.options.map((o: any) => o.votes_count), onA.voters_count], [[1, 1], 2]);
  // B counted bob's vote at once; carol's arrives with A's Update(Question), three minutes later.
  const bobsView = async () => {
    const p = (await B.api(bob, "GET", `/api/v1/statuses/${seen.id}`)).poll;
    return { counts: p.options.map((o: any) => o.votes_count), voters: p.voters_count, own: p.own_votes, expired: p.expired };
  };
  assert.deepEqual(await bobsView(), { counts: [0, 1], voters: 1, own: [1], expired: false });
  move(A, 3 * 60_000 + 1000);
  await settle();
  assert.deepEqual(await bobsView(), { counts: [1, 1], voters: 2, own: [1], expired: false });

  // The end, an hour later on both clocks: alice and carol on A, bob on B (five minutes after).
  move(A, 3600_000);
  move(B, 3600_000 + 6 * 60_000);
  await settle();
  assert.deepEqual(await bobsView(), { counts: [1, 1], voters: 2, own: [1], expired: true });
  const pollNotes = async (s: TestServer, who: typeof alice) => (await s.api(who, "GET", "/api/v1/notifications?types[]=poll")).map((n: any) => n.status.uri);
  assert.deepEqual(await pollNotes(A, alice), [asked.uri]);
  assert.deepEqual(await pollNotes(A, carol), [asked.uri]);
  assert.deepEqual(await pollNotes(B, bob), [asked.uri]);
});
