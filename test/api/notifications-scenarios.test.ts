// Notifications made by real actions over the HTTP API, with two or three users.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { notify } from "../../src/services/notifications.ts";
import { remoteAccount } from "./notifications-fixtures.ts";

const notes = async (s: TestServer, who: TestUser, query = "") => {
  await s.drainJobs();
  const list = await s.api<any[]>(who, "GET", `/api/v1/notifications${query}`);
  return list.map((n) => `${n.type}:${n.account.username}${n.status ? ":" + n.status.id : ""}`);
};
const clear = (s: TestServer, who: TestUser) => s.api(who, "POST", "/api/v1/notifications/clear");

test("notifications from real actions", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  const post = (who: TestUser, body: Record<string, unknown>) => s.api(who, "POST", "/api/v1/statuses", body);
  t.afterEach(async () => {
    for (const u of [alice, bob, carol]) await clear(s, u);
  });

  await t.test("follow notifies; unfollow removes it; following again notifies again", async () => {
    await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
    assert.deepEqual(await notes(s, alice), ["follow:bob"]);
    await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`); // following again is not a new activity
    assert.deepEqual(await notes(s, alice), ["follow:bob"]);
    await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/unfollow`);
    assert.deepEqual(await notes(s, alice), []);
    await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
    assert.deepEqual(await notes(s, alice), ["follow:bob"]);
    await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/unfollow`);
  });

  await t.test("a locked account gets follow_request, which becomes follow when authorized", async () => {
    await s.api(carol, "PATCH", "/api/v1/accounts/update_credentials", { locked: true });
    try {
      await s.api(bob, "POST", `/api/v1/accounts/${carol.id}/follow`);
      assert.deepEqual(await notes(s, carol), ["follow_request:bob"]);
      await s.api(carol, "POST", `/api/v1/follow_requests/${bob.id}/authorize`);
      assert.deepEqual(await notes(s, carol), ["follow:bob"]);
      await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/follow`);
      await s.api(carol, "POST", `/api/v1/follow_requests/${alice.id}/reject`);
      assert.deepEqual(await notes(s, carol), ["follow:bob"]);
    } finally {
      await s.api(carol, "PATCH", "/api/v1/accounts/update_credentials", { locked: false });
      await s.api(bob, "POST", `/api/v1/accounts/${carol.id}/unfollow`);
    }
  });

  await t.test("mention, favourite, reblog; undoing a favourite or reblog removes its notification", async () => {
    const mine = await post(alice, { status: "hello" });
    const reply = await post(bob, { status: "@alice hi there", in_reply_to_id: mine.id });
    await s.drainJobs(); // the mention is made by the fan-out job
    await s.api(bob, "POST", `/api/v1/statuses/${mine.id}/favourite`);
    await s.api(bob, "POST", `/api/v1/statuses/${mine.id}/reblog`);
    assert.deepEqual(await notes(s, alice), [`reblog:bob:${mine.id}`, `favourite:bob:${mine.id}`, `mention:bob:${reply.id}`]);
    await s.api(bob, "POST", `/api/v1/statuses/${mine.id}/unfavourite`);
    await s.api(bob, "POST", `/api/v1/statuses/${mine.id}/unreblog`);
    assert.deepEqual(await notes(s, alice), [`mention:bob:${reply.id}`]);
    await s.api(bob, "POST", `/api/v1/statuses/${mine.id}/favourite`);
    assert.deepEqual(await notes(s, alice), [`favourite:bob:${mine.id}`, `mention:bob:${reply.id}`]);
    await s.api(bob, "DELETE", `/api/v1/statuses/${reply.id}`);
    assert.deepEqual(await notes(s, alice), [`favourite:bob:${mine.id}`]);
  });

  await t.test("`status` for followers who asked, and `update` for boosters of an edited post", async () => {
    await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`, { notify: true });
    await s.api(carol, "POST", `/api/v1/accounts/${bob.id}/follow`);
    const p = await post(bob, { status: "news" });
    await post(bob, { status: "@carol a private word", visibility: "direct" });
    assert.deepEqual(await notes(s, alice), [`status:bob:${p.id}`]);
    await s.api(carol, "POST", `/api/v1/statuses/${p.id}/reblog`);
    await clear(s, carol);
    await s.api(bob, "PUT", `/api/v1/statuses/${p.id}`, { status: "news, corrected" });
    assert.deepEqual(await notes(s, carol), [`update:bob:${p.id}`]);
    assert.deepEqual(await notes(s, alice, "?types[]=update"), []);
    await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/unfollow`);
    await s.api(carol, "POST", `/api/v1/accounts/${bob.id}/unfollow`);
  });

  await t.test("nothing from an account muted with notifications hidden; a plain mute still notifies", async () => {
    const mine = await post(alice, { status: "mute test" });
    await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/mute`, { notifications: true });
    await s.api(bob, "POST", `/api/v1/statuses/${mine.id}/favourite`);
    await post(bob, { status: "@alice can you hear me" });
    assert.deepEqual(await notes(s, alice), []);
    await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/mute`, { notifications: false });
    await s.api(carol, "POST", `/api/v1/statuses/${mine.id}/favourite`);
    assert.deepEqual(await notes(s, alice), [`favourite:carol:${mine.id}`]);
    await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/unmute`);
    await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/unmute`);
  });

  await t.test("nothing about a muted conversation: replies, favourites, reblogs", async () => {
    const root = await post(alice, { status: "a thread" });
    const muted = await s.api(alice, "POST", `/api/v1/statuses/${root.id}/mute`);
    assert.equal(muted.muted, true);
    await post(bob, { status: "@alice replying", in_reply_to_id: root.id });
    await s.api(bob, "POST", `/api/v1/statuses/${root.id}/favourite`);
    await s.api(bob, "POST", `/api/v1/statuses/${root.id}/reblog`);
    assert.deepEqual(await notes(s, alice), []);
    await s.api(alice, "POST", `/api/v1/statuses/${root.id}/unmute`);
    await s.api(carol, "POST", `/api/v1/statuses/${root.id}/favourite`);
    assert.deepEqual(await notes(s, alice), [`favourite:carol:${root.id}`]);
  });

  await t.test("nothing from a blocked account, and earlier ones disappear with the block", async () => {
    const mine = await post(alice, { status: "block test" });
    await post(bob, { status: "@alice before the block" });
    assert.equal((await notes(s, alice)).length, 1);
    await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/block`);
    assert.deepEqual(await notes(s, alice), []);
    await post(bob, { status: "@alice after the block" });
    await s.drainJobs(); // fan-out while the block stands
    const fav = await s.req(bob, "POST", `/api/v1/statuses/${mine.id}/favourite`);
    assert.notEqual(fav.status, 200);
    await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/unblock`);
    assert.deepEqual(await notes(s, alice), [], "the block's window stays empty after unblocking");
  });

  await t.test("nothing from a domain the recipient blocked", async () => {
    const remote = remoteAccount(s.app, "rob", "spam.example");
    await s.api(alice, "POST", "/api/v1/domain_blocks", { domain: "spam.example" });
    // No federation yet: the inbox will call notify() like this.
    assert.equal(notify(s.app, { type: "follow", recipientId: alice.id, fromAccountId: remote.id }), false);
    await s.api(alice, "DELETE", "/api/v1/domain_blocks", { domain: "spam.example" });
    assert.equal(notify(s.app, { type: "follow", recipientId: alice.id, fromAccountId: remote.id }), true);
    assert.deepEqual(await notes(s, alice), ["follow:rob"]);
  });
});
