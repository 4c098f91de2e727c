// Editing a status's poll (PUT /api/v1/statuses/:id), as Mastodon's UpdateStatusService does:
// new options or a switch between single and multiple choice drop every vote; the same
// options keep them; no `poll` removes it; each revision in the history shows its options.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";

test("editing polls", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol] = [await s.user("alice"), await s.user("bob"), await s.user("carol")];
  const poll = (options: string[], extra: Record<string, unknown> = {}) => ({ options, expires_in: 3600, ...extra });
  const put = (id: string, body: unknown) => s.api(alice, "PUT", `/api/v1/statuses/${id}`, body);

  await t.test("same options keep the votes; new options or another kind reset them", async () => {
    const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "best bird?", poll: poll(["heron", "egret"]) });
    await s.api(bob, "POST", `/api/v1/polls/${st.poll.id}/votes`, { choices: [0] });
    await s.api(carol, "POST", `/api/v1/polls/${st.poll.id}/votes`, { choices: [1] });

    const kept = await put(st.id, { status: "best bird??", poll: poll(["heron", "egret"], { hide_totals: false }) });
    assert.equal(kept.poll.id, st.poll.id);
    assert.deepEqual([kept.poll.votes_count, kept.poll.voters_count], [2, 2]);

    const changed = await put(st.id, { status: "best bird??", poll: poll(["heron", "stork"]) });
    assert.deepEqual([changed.poll.votes_count, changed.poll.voters_count, changed.poll.options], [0, 0, [{ title: "heron", votes_count: 0 }, { title: "stork", votes_count: 0 }]]);
    const asBob = await s.api(bob, "GET", `/api/v1/polls/${st.poll.id}`);
    assert.deepEqual([asBob.voted, asBob.own_votes], [false, []]);
    // Everyone may vote again.
    assert.deepEqual((await s.api(bob, "POST", `/api/v1/polls/${st.poll.id}/votes`, { choices: [1] })).own_votes, [1]);

    const multi = await put(st.id, { status: "best bird??", poll: poll(["heron", "stork"], { multiple: true }) });
    assert.deepEqual([multi.poll.multiple, multi.poll.votes_count], [true, 0]);

    const history = await s.api(bob, "GET", `/api/v1/statuses/${st.id}/history`);
    assert.deepEqual(
      history.map((h: any) => h.poll.options.map((o: { title: string }) => o.title)),
      [["heron", "egret"], ["heron", "egret"], ["heron", "stork"], ["heron", "stork"]],
    );
  });

  await t.test("no poll in the request removes it; a poll can be added; bad polls are refused", async () => {
    const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "tea?", poll: poll(["yes", "no"]) });
    await s.api(bob, "POST", `/api/v1/polls/${st.poll.id}/votes`, { choices: [0] });
    const removed = await put(st.id, { status: "tea? never mind" });
    assert.equal(removed.poll, null);
    assert.equal((await s.req(bob, "GET", `/api/v1/polls/${st.poll.id}`)).status, 404);
    const history = await s.api(bob, "GET", `/api/v1/statuses/${st.id}/history`);
    assert.deepEqual(history.map((h: any) => h.poll?.options.length ?? null), [2, null]);

    const plain = await s.api(alice, "POST", "/api/v1/statuses", { status: "plain" });
    const added = await put(plain.id, { status: "plain, now a poll", poll: poll(["a", "b", "c"]) });
    assert.deepEqual(added.poll.options.map((o: any) => o.title), ["a", "b", "c"]);
    assert.deepEqual((await s.api(carol, "POST", `/api/v1/polls/${added.poll.id}/votes`, { choices: [2] })).own_votes, [2]);

    const bad = await s.req(alice, "PUT", `/api/v1/statuses/${plain.id}`, { status: "x", poll: poll(["a", "a"]) });
    assert.deepEqual([bad.status, bad.body], [422, { error: "Validation failed: Poll options contain duplicate items" }]);
    const withMedia = await s.req(alice, "PUT", `/api/v1/statuses/${plain.id}`, { status: "x", media_ids: ["5"], poll: poll(["a", "b"]) });
    assert.deepEqual([withMedia.status, withMedia.body], [422, { error: "Cannot attach more than 4 files" }]);
    // The refused edits changed nothing.
    assert.equal((await s.api(carol, "GET", `/api/v1/polls/${added.poll.id}`)).votes_count, 1);

    // Deleting answers with the status for redrafting, its poll included; the poll goes with it.
    const deleted = await s.api(alice, "DELETE", `/api/v1/statuses/${plain.id}`);
    assert.deepEqual([deleted.text, deleted.poll.options.map((o: any) => o.title)], ["plain, now a poll", ["a", "b", "c"]]);
    assert.equal((await s.req(carol, "GET", `/api/v1/polls/${added.poll.id}`)).status, 404);
  });
});
