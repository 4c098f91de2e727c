// Posting a poll (POST /api/v1/statuses with `poll[...]`): the Poll entity, Mastodon's
// validation messages for bad polls, the limits from config, and GET /api/v1/polls/:id with
// the visibility of the poll's status (a poll on a non-public status needs a token: the seed).
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";

const HOUR = 3600;

test("posting polls", async (t) => {
  const s = await startTestServer({ config: { maxPollOptions: 5 } });
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  const now = Date.parse("2031-05-01T10:00:00.000Z");
  s.app.now = () => now;

  await t.test("a JSON poll: the Poll entity on the status, the author counts as having voted", async () => {
    const st = await s.api(alice, "POST", "/api/v1/statuses", {
      status: "tea or coffee?",
      poll: { options: ["tea", " coffee ", "water", "juice", "milk"], expires_in: HOUR },
    });
    assert.match(st.poll.id, /^\d+$/);
    assert.deepEqual(st.poll, {
      id: st.poll.id,
      expires_at: "2031-05-01T11:00:00.000Z",
      expired: false,
      multiple: false,
      votes_count: 0,
      voters_count: 0,
      options: ["tea", "coffee", "water", "juice", "milk"].map((title) => ({ title, votes_count: 0 })),
      emojis: [],
      voted: true,
      own_votes: [],
    });
    // Another reader has not voted; an anonymous one gets no voted/own_votes at all.
    const seen = await s.api(bob, "GET", `/api/v1/statuses/${st.id}`);
    assert.deepEqual([seen.poll.voted, seen.poll.own_votes], [false, []]);
    const anon = await s.api(null, "GET", `/api/v1/polls/${st.poll.id}`);
    assert.equal("voted" in anon, false);
    assert.equal("own_votes" in anon, false);
    assert.deepEqual(anon.options[1], { title: "coffee", votes_count: 0 });
    const res = await s.req(null, "GET", `/api/v1/polls/${st.poll.id}`);
    assert.equal(res.headers.get("cache-control"), "public, max-age=15, stale-while-revalidate=30, stale-if-error=86400");
  });

  await t.test("a form poll (poll[options][]=...), multiple choice with hidden totals", async () => {
    const form = new URLSearchParams();
    form.append("status", "which birds?");
    for (const o of ["heron", "egret", "stork"]) form.append("poll[options][]", o);
    form.append("poll[expires_in]", "300");
    form.append("poll[multiple]", "true");
    form.append("poll[hide_totals]", "1");
    const st = await s.api(alice, "POST", "/api/v1/statuses", form);
    assert.equal(st.poll.multiple, true);
    assert.equal(st.poll.expires_at, "2031-05-01T10:05:00.000Z");
    // Hidden totals are hidden from everyone, the author too, until the end.
    assert.deepEqual(st.poll.options.map((o: { votes_count: unknown }) => o.votes_count), [null, null, null]);
    assert.equal(st.poll.votes_count, 0);
  });

  await t.test("bad polls: a clear 422 in Mastodon's words", async () => {
    const cases: [unknown, string][] = [
      [{ options: ["only"], expires_in: HOUR }, "Validation failed: Poll options must have more than one item"],
      [
        { options: Array.from({ length: 100 }, (_, i) => `option ${i}`), expires_in: HOUR },
        "Validation failed: Poll options can't contain more than 5 items",
      ],
      [{ options: ["same", "same"], expires_in: HOUR }, "Validation failed: Poll options contain duplicate items"],
      [{ options: ["a", "b"], expires_in: -5 }, "Validation failed: Poll expires at is too soon"],
      [{ options: ["a", "b"], expires_in: 299 }, "Validation failed: Poll expires at is too soon"],
      [{ options: ["a", "b"], expires_in: 2_629_747 }, "Validation failed: Poll expires at is too far into the future"],
      [{ options: ["a", "x".repeat(51)], expires_in: HOUR }, "Validation failed: Poll options cannot be longer than 50 characters each"],
      [{ options: ["a", "b"] }, "Validation failed: Poll expires at can't be blank"],
      [{ options: [], expires_in: 60 }, "Validation failed: Poll options can't be blank, Poll options must have more than one item, Poll expires at is too soon"],
      // Blank options are dropped before counting (Poll#prepare_options).
      [{ options: ["a", "  "], expires_in: HOUR }, "Validation failed: Poll options must have more than one item"],
      [{ options: "a", expires_in: HOUR }, "Validation failed: Poll options can't be blank, Poll options must have more than one item"],
    ];
    for (const [poll, error] of cases) {
      const res = await s.req(alice, "POST", "/api/v1/statuses", { status: "bad poll", poll });
      assert.equal(res.status, 422, JSON.stringify(poll).slice(0, 80));
      assert.deepEqual(res.body, { error });
    }
    // Exactly at the limits is fine: 50 grapheme clusters (an emoji with modifiers is one), 5 minutes, a month.
    const family = "👩‍👩‍👧‍👦".repeat(50);
    for (const expires_in of [300, 2_629_746]) {
      const ok = await s.api(alice, "POST", "/api/v1/statuses", { status: "edge", poll: { options: [family, "b"], expires_in } });
      assert.equal(ok.poll.options[0].title, family);
    }
    // A poll beside media is refused with Mastodon's media wording (before 4.6).
    const withMedia = await s.req(alice, "POST", "/api/v1/statuses", { status: "x", media_ids: ["1"], poll: { options: ["a", "b"], expires_in: HOUR } });
    assert.deepEqual([withMedia.status, withMedia.body], [422, { error: "Cannot attach more than 4 files" }]);
    // Nothing was posted by the refused requests.
    const mine = await s.api(alice, "GET", `/api/v1/accounts/${alice.id}/statuses`);
    assert.ok(!mine.some((x: { content: string }) => /bad poll|<p>x<\/p>/.test(x.content)));
    // An empty poll hash is no poll (Rails' `present?`).
    const none = await s.api(alice, "POST", "/api/v1/statuses", { status: "no poll", poll: {} });
    assert.equal(none.poll, null);
  });

  await t.test("GET /api/v1/polls/:id follows the visibility of the status", async () => {
    await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
    const priv = await s.api(alice, "POST", "/api/v1/statuses", { status: "followers only", visibility: "private", poll: { options: ["a", "b"], expires_in: HOUR } });
    const unlisted = await s.api(alice, "POST", "/api/v1/statuses", { status: "quiet", visibility: "unlisted", poll: { options: ["a", "b"], expires_in: HOUR } });
    const path = `/api/v1/polls/${priv.poll.id}`;
    assert.deepEqual(await s.req(null, "GET", path).then((r) => [r.status, r.body]), [404, { error: "Not Found" }]);
    assert.equal((await s.req(carol, "GET", path)).status, 404);
    assert.equal((await s.api(bob, "GET", path)).id, priv.poll.id);
    assert.equal((await s.api(alice, "GET", path)).voted, true);
    // Unlisted posts are readable without a token, as the status itself is (Mastodon's StatusPolicy).
    assert.equal((await s.req(null, "GET", `/api/v1/polls/${unlisted.poll.id}`)).status, 200);
    for (const id of ["999999999999", "abc", "-1"]) {
      const res = await s.req(bob, "GET", `/api/v1/polls/${id}`);
      assert.deepEqual([res.status, res.body], [404, { error: "Record not found" }]);
    }
    // Voting in a poll one may not see is the same 404.
    const vote = await s.req(carol, "POST", `${path}/votes`, { choices: [0] });
    assert.deepEqual([vote.status, vote.body], [404, { error: "Not Found" }]);
  });
});
