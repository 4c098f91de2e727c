import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { post } from "../helpers/posting.ts";

// Direct conversations: created by the fan-out of direct posts for each local participant.

const LIST = "/api/v1/conversations";

test("conversations: both sides, unread flags, read/unread, delete, paging", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol] = [await s.user("alice"), await s.user("bob"), await s.user("carol")];
  // A private mention from someone one does not follow is held back by the default
  // notification policy, conversation included (notification-requests.test.ts).
  for (const who of [bob, carol]) await s.api(who, "POST", `/api/v1/accounts/${alice.id}/follow`);

  const dm = await post(s, alice, { status: "@bob just between us", visibility: "direct" });
  await post(s, alice, { status: "not a dm @bob", visibility: "public" });
  await s.drainJobs();

  const [mine] = await s.api(alice, "GET", LIST);
  const [theirs] = await s.api(bob, "GET", LIST);
  assert.equal(mine.unread, false);
  assert.deepEqual(mine.accounts.map((a: { id: string }) => a.id), [bob.id]);
  assert.equal(mine.last_status.id, dm.id);
  assert.equal(theirs.unread, true);
  assert.deepEqual(theirs.accounts.map((a: { id: string }) => a.id), [alice.id]);
  assert.equal(theirs.last_status.id, dm.id);
  assert.notEqual(mine.id, theirs.id);
  assert.deepEqual(await s.api(carol, "GET", LIST), []);

  const read = await s.api(bob, "POST", `${LIST}/${theirs.id}/read`);
  assert.equal(read.unread, false);
  assert.equal(read.id, theirs.id);
  assert.equal((await s.api(bob, "GET", LIST))[0].unread, false);
  assert.equal((await s.api(bob, "POST", `${LIST}/${theirs.id}/unread`)).unread, true);
  assert.equal((await s.req(carol, "POST", `${LIST}/${theirs.id}/read`)).status, 404);
  assert.equal((await s.req(carol, "DELETE", `${LIST}/${theirs.id}`)).status, 404);

  // A reply moves the conversation forward; the replier has read it, the other side has not.
  await s.api(bob, "POST", `${LIST}/${theirs.id}/read`);
  const reply = await post(s, bob, { status: "@alice sure", visibility: "direct", in_reply_to_id: dm.id });
  await s.drainJobs();
  const [aliceView] = await s.api(alice, "GET", LIST);
  assert.equal(aliceView.id, mine.id);
  assert.equal(aliceView.last_status.id, reply.id);
  assert.equal(aliceView.unread, true);
  assert.equal((await s.api(bob, "GET", LIST))[0].unread, false);

  // Deleting removes it from the caller's list only; a new message brings it back.
  assert.deepEqual(await s.api(bob, "DELETE", `${LIST}/${theirs.id}`), {});
  assert.deepEqual(await s.api(bob, "GET", LIST), []);
  assert.equal((await s.api(alice, "GET", LIST)).length, 1);
  const more = await post(s, alice, { status: "@bob still there?", visibility: "direct", in_reply_to_id: reply.id });
  await s.drainJobs();
  const [back] = await s.api(bob, "GET", LIST);
  assert.equal(back.last_status.id, more.id);
  assert.equal(back.unread, true);

  // Group conversation: each participant sees the others.
  const group = await post(s, alice, { status: "@bob @carol group", visibility: "direct" });
  await s.drainJobs();
  const [carolView] = await s.api(carol, "GET", LIST);
  assert.equal(carolView.last_status.id, group.id);
  assert.deepEqual(carolView.accounts.map((a: { id: string }) => a.id).sort(), [alice.id, bob.id].sort());

  // Paging by last status id, newest first; `next` only for a full page.
  const page = await s.req(alice, "GET", `${LIST}?limit=1`);
  assert.equal(page.body[0].last_status.id, group.id);
  const base = `${s.app.baseUrl}${LIST}`;
  assert.equal(page.headers.get("link"), `<${base}?limit=1&max_id=${group.id}>; rel="next", <${base}?limit=1&min_id=${group.id}>; rel="prev"`);
  const older = await s.req(alice, "GET", `${LIST}?limit=1&max_id=${group.id}`);
  assert.equal(older.body[0].last_status.id, more.id);
  const newer = await s.api(alice, "GET", `${LIST}?min_id=${more.id}`);
  assert.deepEqual(newer.map((c: { last_status: { id: string } }) => c.last_status.id), [group.id]);

  assert.equal((await s.req(null, "GET", LIST)).status, 401);
});

test("conversations: a muted sender's direct message does not open a conversation", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob] = [await s.user("alice"), await s.user("bob")];
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/mute`);
  await post(s, alice, { status: "@bob hello?", visibility: "direct" });
  await s.drainJobs();
  assert.deepEqual(await s.api(bob, "GET", LIST), []);
  assert.equal((await s.api(alice, "GET", LIST)).length, 1);
});
