// POST /api/v1/polls/:id/votes between several users: tallies, voters, own votes, and every
// refusal in Mastodon's words (VoteValidator, PollPolicy, the `choices` parameter).
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

const HOUR = 3600;

async function pollBy(s: TestServer, who: TestUser, options: string[], extra: Record<string, unknown> = {}) {
  const st = await s.api(who, "POST", "/api/v1/statuses", { status: "vote!", poll: { options, expires_in: HOUR, ...extra } });
  return { statusId: st.id as string, pollId: st.poll.id as string };
}

const counts = (poll: { options: { votes_count: number | null }[] }) => poll.options.map((o) => o.votes_count);

test("voting", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol, dave] = [await s.user("alice"), await s.user("bob"), await s.user("carol"), await s.user("dave")];
  const reader = await s.user("reader", { scopes: ["read"] });
  const vote = (who: TestUser, pollId: string, body: unknown) => s.req(who, "POST", `/api/v1/polls/${pollId}/votes`, body);
  const refusal = async (who: TestUser, pollId: string, body: unknown) => {
    const r = await vote(who, pollId, body);
    return [r.status, r.body.error];
  };

  await t.test("single choice: tallies, voters, own votes, each reader's view", async () => {
    const { statusId, pollId } = await pollBy(s, alice, ["heron", "egret", "stork"]);
    const afterBob = (await vote(bob, pollId, { choices: ["1"] })).body;
    assert.deepEqual(
      { votes: afterBob.votes_count, voters: afterBob.voters_count, counts: counts(afterBob), voted: afterBob.voted, own: afterBob.own_votes },
      { votes: 1, voters: 1, counts: [0, 1, 0], voted: true, own: [1] },
    );
    // A form body with a bare scalar counts as one choice (Mastodon reads `choices` raw).
    const form = new URLSearchParams({ choices: "1" });
    assert.deepEqual(counts((await vote(carol, pollId, form)).body), [0, 2, 0]);
    // Each reader sees its own votes, in the poll and in the status (and so in timelines).
    const asCarol = await s.api(carol, "GET", `/api/v1/statuses/${statusId}`);
    assert.deepEqual([asCarol.poll.voted, asCarol.poll.own_votes, asCarol.poll.voters_count], [true, [1], 2]);
    const asDave = await s.api(dave, "GET", `/api/v1/polls/${pollId}`);
    assert.deepEqual([asDave.voted, asDave.own_votes, asDave.votes_count], [false, [], 2]);
    const asAlice = await s.api(alice, "GET", `/api/v1/polls/${pollId}`);
    assert.deepEqual([asAlice.voted, asAlice.own_votes], [true, []]);
  });

  await t.test("refusals: own poll, again, out of range, several on single choice, duplicates", async () => {
    const { pollId } = await pollBy(s, alice, ["a", "b"]);
    assert.deepEqual(await refusal(alice, pollId, { choices: [0] }), [422, "Validation failed: You cannot vote in your own polls"]);
    assert.deepEqual(await refusal(bob, pollId, { choices: [2] }), [422, "Validation failed: The chosen vote option does not exist"]);
    assert.deepEqual(await refusal(bob, pollId, { choices: [-1] }), [422, "Validation failed: The chosen vote option does not exist"]);
    assert.deepEqual(await refusal(bob, pollId, { choices: ["first"] }), [422, "Validation failed: The chosen vote option does not exist"]);
    // Several choices in a single-choice poll: the second one is a second vote.
    assert.deepEqual(await refusal(bob, pollId, { choices: [0, 1] }), [422, "Validation failed: You have already voted on this poll"]);
    // A refused request keeps none of its votes.
    assert.deepEqual((await s.api(bob, "GET", `/api/v1/polls/${pollId}`)).own_votes, []);
    assert.equal((await vote(bob, pollId, { choices: [0] })).status, 200);
    assert.deepEqual(await refusal(bob, pollId, { choices: [1] }), [422, "Validation failed: You have already voted on this poll"]);

    const multi = await pollBy(s, alice, ["x", "y", "z"], { multiple: true });
    assert.deepEqual(await refusal(carol, multi.pollId, { choices: [2, 2] }), [422, "Validation failed: You have already voted on this poll"]);
    const both = (await vote(carol, multi.pollId, { choices: [0, 2] })).body;
    assert.deepEqual({ votes: both.votes_count, voters: both.voters_count, counts: counts(both), own: both.own_votes }, { votes: 2, voters: 1, counts: [1, 0, 1], own: [0, 2] });
    // In a multiple-choice poll a later vote for another option is allowed, the same one is not.
    assert.deepEqual(counts((await vote(carol, multi.pollId, { choices: [1] })).body), [1, 1, 1]);
    assert.equal((await s.api(carol, "GET", `/api/v1/polls/${multi.pollId}`)).voters_count, 1);
    assert.deepEqual(await refusal(carol, multi.pollId, { choices: [0] }), [422, "Validation failed: You have already voted on this poll"]);
  });

  await t.test("missing choices, scopes, blocks", async () => {
    const { pollId } = await pollBy(s, alice, ["a", "b"]);
    for (const body of [{}, { choices: [] }, { choices: "" }]) {
      assert.deepEqual(await refusal(bob, pollId, body), [400, "param is missing or the value is empty: choices"]);
    }
    assert.deepEqual(await refusal(reader, pollId, { choices: [0] }), [403, "This action is outside the authorized scopes"]);
    assert.equal((await s.req(null, "POST", `/api/v1/polls/${pollId}/votes`, { choices: [0] })).status, 401);
    // A block either way forbids voting (PollPolicy#vote?): dave blocks alice; alice blocks carol.
    await s.api(dave, "POST", `/api/v1/accounts/${alice.id}/block`);
    assert.deepEqual(await refusal(dave, pollId, { choices: [0] }), [403, "This action is not allowed"]);
    await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/block`);
    // alice's block hides her post from carol altogether.
    assert.deepEqual(await refusal(carol, pollId, { choices: [0] }), [404, "Not Found"]);
    assert.equal((await s.api(alice, "GET", `/api/v1/polls/${pollId}`)).votes_count, 0);
  });

  await t.test("an ended poll takes no votes (the app clock moved past its end)", async () => {
    const { pollId } = await pollBy(s, bob, ["a", "b"]);
    const realNow = s.app.now;
    s.app.now = () => realNow() + HOUR * 1000 + 1;
    try {
      assert.deepEqual(await refusal(dave, pollId, { choices: [0] }), [422, "Validation failed: The poll has already ended"]);
      // Every failing rule of the vote is listed, in VoteValidator's order.
      assert.deepEqual(await refusal(bob, pollId, { choices: [5] }), [
        422,
        "Validation failed: The poll has already ended, The chosen vote option does not exist, You cannot vote in your own polls",
      ]);
      const poll = await s.api(dave, "GET", `/api/v1/polls/${pollId}`);
      assert.equal(poll.expired, true);
    } finally {
      s.app.now = realNow;
    }
  });
});
