// GET /api/v2/notifications: how groups are formed (Mastodon 4.3), with real actions of four
// users over HTTP, and the shape of GroupedNotificationsResults.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

const HOUR = 3_600_000;

async function grouped(s: TestServer, who: TestUser, query = "") {
  await s.drainJobs();
  const r = await s.req<any>(who, "GET", `/api/v2/notifications${query}`);
  assert.equal(r.status, 200, r.text);
  return r;
}

/** "type:key-shape:count:samples" per group, newest first. */
const summary = (body: any, names: Map<string, string>) =>
  body.notification_groups.map(
    (g: any) => `${g.type}:${g.notifications_count}:${g.sample_account_ids.map((id: string) => names.get(id)).join(",")}`,
  );

test("grouped notifications", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol, dave] = [await s.user("alice"), await s.user("bob"), await s.user("carol"), await s.user("dave")];
  const names = new Map([alice, bob, carol, dave].map((u) => [u.id, u.username]));
  const realNow = s.app.now;
  t.afterEach(async () => {
    s.app.now = realNow;
    for (const u of [alice, bob, carol, dave]) await s.api(u, "POST", "/api/v2/notifications/clear");
    for (const u of [bob, carol, dave]) await s.req(u, "POST", `/api/v1/accounts/${alice.id}/unfollow`);
  });
  const post = (who: TestUser, body: Record<string, unknown>) => s.api(who, "POST", "/api/v1/statuses", body);

  await t.test("favourites and reblogs of one post, and follows, group; mentions stay alone", async () => {
    const p1 = await post(alice, { status: "first" });
    const p2 = await post(alice, { status: "second" });
    await s.api(bob, "POST", `/api/v1/statuses/${p1.id}/favourite`);
    await s.api(carol, "POST", `/api/v1/statuses/${p1.id}/favourite`);
    await s.api(dave, "POST", `/api/v1/statuses/${p2.id}/favourite`);
    await s.api(bob, "POST", `/api/v1/statuses/${p1.id}/reblog`);
    await s.api(carol, "POST", `/api/v1/accounts/${alice.id}/follow`);
    await s.api(dave, "POST", `/api/v1/accounts/${alice.id}/follow`);
    const m1 = await post(bob, { status: "@alice one" });
    const m2 = await post(bob, { status: "@alice two" });
    const r = await grouped(s, alice);
    const v1 = await s.api<any[]>(alice, "GET", "/api/v1/notifications");
    assert.equal(v1.length, 8);
    const byKind = (type: string, status?: string) => v1.filter((n) => n.type === type && (!status || n.status?.id === status));

    assert.deepEqual(summary(r.body, names), [
      "mention:1:bob",
      "mention:1:bob",
      "follow:2:dave,carol",
      "reblog:1:bob",
      "favourite:1:dave",
      "favourite:2:carol,bob",
    ]);
    const [g1, g2, follows, reblogs, favP2, favP1] = r.body.notification_groups;
    const [mentionTwo, mentionOne] = byKind("mention");
    assert.deepEqual(
      [g1.group_key, g2.group_key],
      [`ungrouped-${mentionTwo.id}`, `ungrouped-${mentionOne.id}`],
    );
    assert.deepEqual([g1.status_id, g2.status_id], [m2.id, m1.id]);
    // Every member of a group shares the key v1 shows, "<type>[-<status id>]-<hour>".
    assert.match(follows.group_key, /^follow-\d+$/);
    assert.match(reblogs.group_key, new RegExp(`^reblog-${p1.id}-\\d+$`));
    assert.match(favP1.group_key, new RegExp(`^favourite-${p1.id}-\\d+$`));
    assert.match(favP2.group_key, new RegExp(`^favourite-${p2.id}-\\d+$`));
    assert.deepEqual(byKind("favourite", p1.id).map((n) => n.group_key), [favP1.group_key, favP1.group_key]);
    assert.deepEqual(byKind("follow").map((n) => n.group_key), [follows.group_key, follows.group_key]);
    assert.equal("status_id" in follows, false);
    assert.deepEqual([reblogs.status_id, favP2.status_id, favP1.status_id], [p1.id, p2.id, p1.id]);

    // The page bounds of each group, and most_recent_notification_id as a JSON number.
    const [favP1Newest, favP1Oldest] = byKind("favourite", p1.id);
    assert.deepEqual(
      [favP1.page_max_id, favP1.page_min_id, favP1.latest_page_notification_at],
      [favP1Newest.id, favP1Oldest.id, favP1Newest.created_at],
    );
    assert.deepEqual([g1.page_max_id, g1.page_min_id, g1.latest_page_notification_at], [mentionTwo.id, mentionTwo.id, mentionTwo.created_at]);
    const raw = [...r.text.matchAll(/"most_recent_notification_id":(\d+),/g)].map((x) => x[1]);
    assert.deepEqual(raw, r.body.notification_groups.map((g: any) => g.page_max_id));

    // Each account and status once, in the order the groups first name them.
    assert.deepEqual(r.body.accounts.map((a: any) => a.username), ["bob", "dave", "carol"]);
    assert.deepEqual(r.body.statuses.map((x: any) => x.id), [m2.id, m1.id, p1.id, p2.id]);
    assert.equal(r.body.statuses[2].favourites_count, 2);
    assert.deepEqual(Object.keys(r.body), ["accounts", "statuses", "notification_groups"]);
    assert.deepEqual(Object.keys(favP1), [
      "group_key", "notifications_count", "type", "most_recent_notification_id", "page_min_id", "page_max_id",
      "latest_page_notification_at", "sample_account_ids", "status_id",
    ]);
    assert.equal(r.headers.get("content-type"), "application/json; charset=utf-8");
  });

  await t.test("a group spans 12 hours: later notifications start a new one", async () => {
    const base = realNow();
    s.app.now = () => base;
    const p = await post(alice, { status: "slow burn" });
    await s.api(bob, "POST", `/api/v1/statuses/${p.id}/favourite`);
    s.app.now = () => base + 11 * HOUR;
    await s.api(carol, "POST", `/api/v1/statuses/${p.id}/favourite`);
    s.app.now = () => base + 24 * HOUR;
    await s.api(dave, "POST", `/api/v1/statuses/${p.id}/favourite`);
    const r = await grouped(s, alice);
    assert.deepEqual(summary(r.body, names), ["favourite:1:dave", "favourite:2:carol,bob"]);
    const [late, early] = r.body.notification_groups;
    assert.notEqual(late.group_key, early.group_key);
    assert.equal(Number(late.group_key.split("-").pop()) - Number(early.group_key.split("-").pop()), 24);
  });

  await t.test("grouped_types[] chooses what may group; types[] and exclude_types[] filter", async () => {
    const p = await post(alice, { status: "popular" });
    await s.api(bob, "POST", `/api/v1/statuses/${p.id}/favourite`);
    await s.api(carol, "POST", `/api/v1/statuses/${p.id}/favourite`);
    await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
    await s.api(carol, "POST", `/api/v1/accounts/${alice.id}/follow`);
    await post(dave, { status: "@alice hi" });
    const shape = async (q: string) => summary((await grouped(s, alice, q)).body, names);
    assert.deepEqual(await shape("?grouped_types[]=follow"), [
      "mention:1:dave", "follow:2:carol,bob", "favourite:1:carol", "favourite:1:bob",
    ]);
    const ungrouped = (await grouped(s, alice, "?grouped_types[]=follow")).body.notification_groups[2];
    assert.match(ungrouped.group_key, /^ungrouped-\d+$/);
    assert.deepEqual(await shape("?grouped_types[]=nonsense"), [
      "mention:1:dave", "follow:1:carol", "follow:1:bob", "favourite:1:carol", "favourite:1:bob",
    ]);
    assert.deepEqual(await shape("?types[]=favourite"), ["favourite:2:carol,bob"]);
    assert.deepEqual(await shape("?exclude_types[]=favourite&exclude_types[]=mention"), ["follow:2:carol,bob"]);
    // The Link keeps the filters.
    const r = await grouped(s, alice, "?limit=1&types[]=follow&grouped_types[]=follow");
    const base = `${s.app.baseUrl}/api/v2/notifications`;
    const rep = r.body.notification_groups[0].page_max_id;
    assert.equal(
      r.headers.get("link"),
      `<${base}?limit=1&types[]=follow&grouped_types[]=follow&max_id=${rep}>; rel="next", <${base}?limit=1&types[]=follow&grouped_types[]=follow&min_id=${rep}>; rel="prev"`,
    );
  });

  await t.test("expand_accounts=partial_avatars: the newest sample in full, the others partial", async () => {
    const p = await post(alice, { status: "avatars" });
    for (const u of [bob, carol, dave]) await s.api(u, "POST", `/api/v1/statuses/${p.id}/favourite`);
    await post(carol, { status: "@alice look" });
    const r = await grouped(s, alice, "?expand_accounts=partial_avatars");
    assert.deepEqual(Object.keys(r.body), ["accounts", "partial_accounts", "statuses", "notification_groups"]);
    assert.deepEqual(r.body.accounts.map((a: any) => a.username), ["carol", "dave"]);
    assert.deepEqual(r.body.partial_accounts.map((a: any) => a.acct), ["bob"]);
    assert.deepEqual(Object.keys(r.body.partial_accounts[0]), ["id", "acct", "locked", "bot", "url", "avatar", "avatar_static"]);
    assert.deepEqual(r.body.notification_groups[1].sample_account_ids, [dave.id, carol.id, bob.id]);
    const full = await grouped(s, alice, "?expand_accounts=full");
    assert.deepEqual(full.body.accounts.map((a: any) => a.username), ["carol", "dave", "bob"]);
    assert.equal("partial_accounts" in full.body, false);
    const bad = await s.req(alice, "GET", "/api/v2/notifications?expand_accounts=everything");
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { error: "Invalid value for 'expand_accounts': 'everything', allowed values are 'full' and 'partial_avatars'" });
  });

  await t.test("only what the recipient may still see: a sender who blocked her leaves the samples and the count", async () => {
    const p = await post(alice, { status: "block me" });
    for (const u of [bob, carol]) await s.api(u, "POST", `/api/v1/statuses/${p.id}/favourite`);
    await s.api(carol, "POST", `/api/v1/accounts/${alice.id}/block`);
    try {
      assert.deepEqual(summary((await grouped(s, alice)).body, names), ["favourite:1:bob"]);
    } finally {
      await s.api(carol, "POST", `/api/v1/accounts/${alice.id}/unblock`);
    }
    assert.deepEqual(summary((await grouped(s, alice)).body, names), ["favourite:2:carol,bob"]);
  });

  await t.test("an admin.report group carries its report", async () => {
    const mod = await s.user("moddy", { role: "moderator" });
    await s.api(bob, "POST", "/api/v1/reports", { account_id: carol.id, comment: "spam", category: "spam" });
    const r = await grouped(s, mod);
    const [g] = r.body.notification_groups;
    assert.deepEqual(
      [g.type, g.notifications_count, g.sample_account_ids, g.report.comment, g.report.target_account.id, "status_id" in g],
      ["admin.report", 1, [bob.id], "spam", carol.id, false],
    );
    assert.match(g.group_key, /^ungrouped-\d+$/);
    assert.deepEqual(r.body.accounts.map((a: any) => a.id), [bob.id]);
  });

  await t.test("auth and scopes", async () => {
    assert.equal((await s.req(null, "GET", "/api/v2/notifications")).status, 401);
    const reader = await s.user("reader", { scopes: ["read:statuses"] });
    const r = await s.req(reader, "GET", "/api/v2/notifications");
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { error: "This action is outside the authorized scopes" });
    const onlyRead = await s.user("onlyread", { scopes: ["read"] });
    assert.equal((await s.req(onlyRead, "GET", "/api/v2/notifications")).status, 200);
    assert.equal((await s.req(onlyRead, "POST", "/api/v2/notifications/ungrouped-1/dismiss")).status, 403);
    assert.equal((await s.req(onlyRead, "POST", "/api/v2/notifications/clear")).status, 403);
  });
});
