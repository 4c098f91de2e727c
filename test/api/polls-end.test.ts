// The end of a poll on the app clock (no sleeping): the `poll.end` job notifies the author and
// every voter once (type `poll`, Mastodon's PollExpirationNotifyWorker), hidden totals appear,
// and an edit that moves the end moves the notifications with it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

const MIN = 60_000;

test("the end of a poll", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol, dave] = [await s.user("alice"), await s.user("bob"), await s.user("carol"), await s.user("dave")];
  let now = Date.parse("2031-06-01T12:00:00.000Z");
  s.app.now = () => now;
  const pollNotes = async (who: TestUser) =>
    (await s.api(who, "GET", "/api/v1/notifications?types[]=poll")).map((n: any) => ({ type: n.type, from: n.account.id, status: n.status.id }));

  await t.test("author and voters hear of the end once; others do not", async () => {
    const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "lunch?", poll: { options: ["soup", "salad"], expires_in: 3600, hide_totals: true } });
    await s.api(bob, "POST", `/api/v1/polls/${st.poll.id}/votes`, { choices: [0] });
    await s.api(carol, "POST", `/api/v1/polls/${st.poll.id}/votes`, { choices: [1] });
    const hidden = await s.api(bob, "GET", `/api/v1/polls/${st.poll.id}`);
    assert.deepEqual([hidden.options.map((o: any) => o.votes_count), hidden.votes_count], [[null, null], 2]);

    now += 59 * MIN;
    await s.drainJobs();
    assert.deepEqual(await pollNotes(alice), []);
    now += 2 * MIN;
    await s.drainJobs();
    const expected = [{ type: "poll", from: alice.id, status: st.id }];
    for (const who of [alice, bob, carol]) assert.deepEqual(await pollNotes(who), expected, who.username);
    assert.deepEqual(await pollNotes(dave), []);
    const ended = await s.api(dave, "GET", `/api/v1/polls/${st.poll.id}`);
    assert.deepEqual([ended.expired, ended.options.map((o: any) => o.votes_count)], [true, [1, 1]]);
    // Another run of the queue (or a day later) adds nothing.
    now += 24 * 60 * MIN;
    await s.drainJobs();
    assert.equal((await pollNotes(bob)).length, 1);
  });

  await t.test("an edit that moves the end moves the notifications; a deleted poll ends quietly", async () => {
    const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "when?", poll: { options: ["now", "later"], expires_in: 3600 } });
    await s.api(bob, "POST", `/api/v1/polls/${st.poll.id}/votes`, { choices: [1] });
    now += 10 * MIN;
    const edited = await s.api(alice, "PUT", `/api/v1/statuses/${st.id}`, { status: "when?", poll: { options: ["now", "later"], expires_in: 7200 } });
    // Same options: the votes stay.
    assert.deepEqual([edited.poll.votes_count, edited.poll.expires_at], [1, new Date(now + 7200_000).toISOString()]);
    const before = (await pollNotes(bob)).length;
    now += 60 * MIN; // past the first end
    await s.drainJobs();
    assert.equal((await pollNotes(bob)).length, before);
    now += 61 * MIN; // past the new one
    await s.drainJobs();
    assert.equal((await pollNotes(bob)).length, before + 1);

    const gone = await s.api(alice, "POST", "/api/v1/statuses", { status: "never mind", poll: { options: ["a", "b"], expires_in: 300 } });
    await s.api(bob, "POST", `/api/v1/polls/${gone.poll.id}/votes`, { choices: [0] });
    await s.api(alice, "DELETE", `/api/v1/statuses/${gone.id}`);
    now += 10 * MIN;
    await s.drainJobs();
    assert.equal((await pollNotes(bob)).length, before + 1);
    assert.equal(deadJobs(s), 0);
  });
});

function deadJobs(s: TestServer): number {
  return Number((s.app.db.prepare("SELECT count(*) AS n FROM dead_jobs").get() as { n: bigint }).n);
}
