// Notification requests (Mastodon 4.3): strangers' private mentions wait per sender until the
// recipient accepts them (they join notifications and conversations, and the sender is let
// through from then on) or dismisses them (they are deleted).
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { updateAccount } from "../../src/storage/accounts.ts";

const REQUESTS = "/api/v1/notifications/requests";

async function requests(s: TestServer, who: TestUser, query = "") {
  await s.drainJobs();
  return s.api<any[]>(who, "GET", `${REQUESTS}${query}`);
}
const dm = (s: TestServer, from: TestUser, to: TestUser, text: string) =>
  s.api(from, "POST", "/api/v1/statuses", { status: `@${to.username} ${text}`, visibility: "direct" });
/** "type:sender[:filtered]" of the recipient's v1 notifications, newest first. */
const notes = async (s: TestServer, who: TestUser, query = "") =>
  (await s.api<any[]>(who, "GET", `/api/v1/notifications${query}`)).map(
    (n) => `${n.type}:${n.account.username}${n.filtered ? ":filtered" : ""}`,
  );

test("notification requests", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol, dave] = [await s.user("alice"), await s.user("bob"), await s.user("carol"), await s.user("dave")];
  t.afterEach(async () => {
    await s.api(alice, "POST", "/api/v1/notifications/clear");
    s.app.db.exec("DELETE FROM notification_requests; DELETE FROM notification_permissions; DELETE FROM account_conversations");
  });

  await t.test("one request per sender, counting its filtered private mentions", async () => {
    const first = await dm(s, bob, alice, "hello?");
    const [r1] = await requests(s, alice);
    assert.deepEqual([r1.notifications_count, r1.account.id, r1.last_status.id, r1.last_status.visibility], ["1", bob.id, first.id, "direct"]);
    assert.equal(r1.created_at, r1.updated_at);
    const second = await dm(s, bob, alice, "still there?");
    await dm(s, carol, alice, "me too");
    const list = await requests(s, alice);
    assert.deepEqual(list.map((r) => [r.account.username, r.notifications_count, r.last_status.id]), [
      ["carol", "1", list[0].last_status.id],
      ["bob", "2", second.id],
    ]);
    assert.equal(list[1].id, r1.id);
    assert.equal(list[1].created_at, r1.created_at);
    assert.ok(list[1].updated_at >= r1.updated_at);
    assert.deepEqual(Object.keys(list[1]), ["id", "created_at", "updated_at", "notifications_count", "account", "last_status"]);
    // The mentions themselves wait outside the notifications.
    assert.deepEqual(await notes(s, alice), []);
    assert.deepEqual(await notes(s, alice, "?include_filtered=true"), ["mention:carol:filtered", "mention:bob:filtered", "mention:bob:filtered"]);
    assert.deepEqual(await s.api(alice, "GET", "/api/v1/conversations"), []);
    // Show one; 404 for another recipient and unknown ids.
    assert.deepEqual(await s.api(alice, "GET", `${REQUESTS}/${r1.id}`), list[1]);
    for (const [who, id] of [[bob, r1.id], [alice, "123"], [alice, "abc"]] as const) {
      const r = await s.req(who, "GET", `${REQUESTS}/${id}`);
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { error: "Record not found" });
    }
    assert.deepEqual(await s.api(bob, "GET", REQUESTS), []);
  });

  await t.test("accepting brings the notifications and the conversation back and lets the sender through", async () => {
    const first = await dm(s, bob, alice, "one");
    await dm(s, bob, alice, "two");
    const [r] = await requests(s, alice);
    assert.deepEqual(await s.api(alice, "POST", `${REQUESTS}/${r.id}/accept`), {});
    assert.equal((await s.req(alice, "GET", `${REQUESTS}/${r.id}`)).status, 404);
    assert.deepEqual(await s.api(alice, "GET", `${REQUESTS}/merged`), { merged: true });
    assert.deepEqual(await notes(s, alice), ["mention:bob", "mention:bob"]);
    const grouped = await s.api(alice, "GET", "/api/v2/notifications");
    assert.deepEqual(grouped.notification_groups.map((g: any) => [g.type, g.sample_account_ids]), [["mention", [bob.id]], ["mention", [bob.id]]]);
    const [conversation] = await s.api<any[]>(alice, "GET", "/api/v1/conversations");
    assert.deepEqual([conversation.unread, conversation.accounts.map((a: any) => a.id)], [true, [bob.id]]);
    assert.notEqual(conversation.last_status.id, first.id);
    // From now on bob's private mentions are not filtered, though alice still does not follow him.
    await dm(s, bob, alice, "three");
    assert.deepEqual(await requests(s, alice), []);
    assert.deepEqual(await notes(s, alice), ["mention:bob", "mention:bob", "mention:bob"]);
    assert.deepEqual((await s.api(alice, "GET", "/api/v2/notifications/policy")).summary, {
      pending_requests_count: 0,
      pending_notifications_count: 0,
    });
    // Someone else's request cannot be accepted.
    await dm(s, carol, alice, "hi");
    const [theirs] = await requests(s, alice);
    assert.equal((await s.req(bob, "POST", `${REQUESTS}/${theirs.id}/accept`)).status, 404);
    assert.equal((await s.req(bob, "POST", `${REQUESTS}/${theirs.id}/dismiss`)).status, 404);
    assert.equal((await requests(s, alice)).length, 1);
  });

  await t.test("dismissing deletes the filtered mentions; the next one opens a new request", async () => {
    await dm(s, bob, alice, "spam");
    await dm(s, bob, alice, "more spam");
    const [r] = await requests(s, alice);
    assert.deepEqual(await s.api(alice, "POST", `${REQUESTS}/${r.id}/dismiss`), {});
    assert.deepEqual(await requests(s, alice), []);
    assert.deepEqual(await notes(s, alice, "?include_filtered=true"), []);
    await dm(s, bob, alice, "again");
    const [fresh] = await requests(s, alice);
    assert.notEqual(fresh.id, r.id);
    assert.equal(fresh.notifications_count, "1");
  });

  await t.test("bulk accept and dismiss by id[]; unknown and others' ids are ignored", async () => {
    await dm(s, bob, alice, "b");
    await dm(s, carol, alice, "c");
    await dm(s, dave, alice, "d");
    await dm(s, alice, bob, "to bob");
    const [fromDave, fromCarol, fromBob] = await requests(s, alice);
    const [bobs] = await requests(s, bob);
    const form = new URLSearchParams();
    for (const id of [fromBob.id, fromCarol.id, bobs.id, "999", "x"]) form.append("id[]", id);
    assert.deepEqual(await s.api(alice, "POST", `${REQUESTS}/accept`, form), {});
    assert.deepEqual((await requests(s, alice)).map((r) => r.id), [fromDave.id]);
    assert.deepEqual(await notes(s, alice), ["mention:carol", "mention:bob"]);
    assert.equal((await requests(s, bob)).length, 1, "bob's request is his own");
    assert.deepEqual(await s.api(alice, "POST", `${REQUESTS}/dismiss`, { id: [fromDave.id] }), {});
    assert.deepEqual(await requests(s, alice), []);
    assert.deepEqual(await notes(s, alice, `?account_id=${dave.id}`), []);
    assert.deepEqual(await s.api(alice, "POST", `${REQUESTS}/dismiss`, {}), {});
    await s.api(bob, "POST", `${REQUESTS}/dismiss`, { id: [bobs.id] });
  });

  await t.test("a request goes when its last mention does, and its status with it", async () => {
    const one = await dm(s, bob, alice, "first");
    const two = await dm(s, bob, alice, "second");
    assert.deepEqual((await requests(s, alice)).map((r) => [r.notifications_count, r.last_status.id]), [["2", two.id]]);
    await s.api(bob, "DELETE", `/api/v1/statuses/${two.id}`);
    const [r] = await requests(s, alice);
    assert.deepEqual([r.notifications_count, r.last_status], ["1", null]);
    await s.api(bob, "DELETE", `/api/v1/statuses/${one.id}`);
    assert.deepEqual(await requests(s, alice), []);
  });

  await t.test("paging by request id, newest first; suspended senders are left out", async () => {
    for (const u of [bob, carol, dave]) await dm(s, u, alice, "page");
    const all = await requests(s, alice);
    assert.deepEqual(all.map((r) => r.account.username), ["dave", "carol", "bob"]);
    const page = await s.req<any[]>(alice, "GET", `${REQUESTS}?limit=2`);
    const base = `${s.app.baseUrl}${REQUESTS}`;
    assert.deepEqual(page.body.map((r) => r.id), [all[0].id, all[1].id]);
    assert.equal(page.headers.get("link"), `<${base}?limit=2&max_id=${all[1].id}>; rel="next", <${base}?limit=2&min_id=${all[0].id}>; rel="prev"`);
    const rest = await s.req<any[]>(alice, "GET", `${REQUESTS}?limit=2&max_id=${all[1].id}`);
    assert.deepEqual(rest.body.map((r) => r.id), [all[2].id]);
    assert.equal(rest.headers.get("link"), `<${base}?limit=2&min_id=${all[2].id}>; rel="prev"`);
    assert.deepEqual((await requests(s, alice, `?min_id=${all[2].id}&limit=1`)).map((r) => r.id), [all[1].id]);
    updateAccount(s.app.db, carol.id, { suspendedAt: Date.now() });
    try {
      assert.deepEqual((await requests(s, alice)).map((r) => r.account.username), ["dave", "bob"]);
    } finally {
      updateAccount(s.app.db, carol.id, { suspendedAt: null });
    }
  });

  await t.test("scopes: read:notifications to look, write:notifications to act", async () => {
    await dm(s, bob, alice, "scoped");
    const [r] = await requests(s, alice);
    const reader = await s.user("reader", { scopes: ["read:notifications"] });
    assert.equal((await s.req(reader, "GET", REQUESTS)).status, 200);
    assert.equal((await s.req(reader, "GET", `${REQUESTS}/merged`)).status, 200);
    assert.equal((await s.req(reader, "POST", `${REQUESTS}/${r.id}/accept`)).status, 403);
    assert.equal((await s.req(reader, "POST", `${REQUESTS}/accept`, { id: [r.id] })).status, 403);
    assert.equal((await s.req(null, "GET", REQUESTS)).status, 401);
  });
});
