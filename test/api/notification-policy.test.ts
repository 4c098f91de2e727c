// The notification policy (Mastodon 4.3): GET/PATCH v2 and v1, and each for_* rule accepting,
// filtering or dropping what real actions of other users cause.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { updateAccount } from "../../src/storage/accounts.ts";

const DAY = 86_400_000;
const POLICY = "/api/v2/notifications/policy";

/** "type:sender[:filtered]" of the recipient's v1 notifications, newest first. */
async function notes(s: TestServer, who: TestUser, query = "") {
  await s.drainJobs();
  const list = await s.api<any[]>(who, "GET", `/api/v1/notifications${query}`);
  return list.map((n) => `${n.type}:${n.account.username}${n.filtered ? ":filtered" : ""}`);
}

test("notification policy", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const realNow = s.app.now;
  // An account older than 30 days, made with the clock moved back.
  s.app.now = () => realNow() - 40 * DAY;
  const olga = await s.user("olga");
  s.app.now = realNow;
  const [alice, bob, carol] = [await s.user("alice"), await s.user("bob"), await s.user("carol")];
  const everyone = [alice, bob, carol, olga];
  const setPolicy = (who: TestUser, body: Record<string, string>) => s.api(who, "PATCH", POLICY, body);
  const post = (who: TestUser, body: Record<string, unknown>) => s.api(who, "POST", "/api/v1/statuses", body);
  t.afterEach(async () => {
    s.app.now = realNow;
    for (const u of everyone) {
      await s.api(u, "PATCH", POLICY, {
        for_not_following: "accept", for_not_followers: "accept", for_new_accounts: "accept",
        for_private_mentions: "filter", for_limited_accounts: "filter",
      });
      await s.api(u, "POST", "/api/v1/notifications/clear");
      for (const v of everyone) if (v !== u) await s.req(u, "POST", `/api/v1/accounts/${v.id}/unfollow`);
    }
    s.app.db.exec("DELETE FROM notification_requests; DELETE FROM notification_permissions");
  });

  await t.test("GET: Mastodon's defaults, in v2 and v1 form", async () => {
    assert.deepEqual(await s.api(alice, "GET", POLICY), {
      for_not_following: "accept",
      for_not_followers: "accept",
      for_new_accounts: "accept",
      for_private_mentions: "filter",
      for_limited_accounts: "filter",
      summary: { pending_requests_count: 0, pending_notifications_count: 0 },
    });
    assert.deepEqual(await s.api(alice, "GET", "/api/v1/notifications/policy"), {
      filter_not_following: false,
      filter_not_followers: false,
      filter_new_accounts: false,
      filter_private_mentions: true,
      summary: { pending_requests_count: 0, pending_notifications_count: 0 },
    });
  });

  await t.test("PATCH/PUT v2: accept, filter, drop; anything else is 422 and changes nothing", async () => {
    const out = await s.api(alice, "PATCH", POLICY, { for_not_following: "drop", for_new_accounts: "filter" });
    assert.deepEqual([out.for_not_following, out.for_new_accounts, out.for_private_mentions], ["drop", "filter", "filter"]);
    const form = new URLSearchParams({ for_limited_accounts: "accept" });
    assert.equal((await s.api(alice, "PUT", POLICY, form)).for_limited_accounts, "accept");
    const bad = await s.req(alice, "PATCH", POLICY, { for_not_following: "accept", for_not_followers: "maybe" });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body, { error: "'maybe' is not a valid for_not_followers" });
    const now = await s.api(alice, "GET", POLICY);
    assert.deepEqual(
      [now.for_not_following, now.for_not_followers, now.for_new_accounts, now.for_limited_accounts],
      ["drop", "accept", "filter", "accept"],
    );
    // v1 shows anything but accept as filtering; its booleans write filter or accept.
    assert.deepEqual(
      (({ summary, ...rest }) => rest)(await s.api(alice, "GET", "/api/v1/notifications/policy")),
      { filter_not_following: true, filter_not_followers: false, filter_new_accounts: true, filter_private_mentions: true },
    );
    const v1 = await s.api(alice, "PATCH", "/api/v1/notifications/policy", { filter_not_following: true, filter_private_mentions: "false" });
    assert.deepEqual([v1.filter_not_following, v1.filter_private_mentions], [true, false]);
    const after = await s.api(alice, "GET", POLICY);
    assert.deepEqual([after.for_not_following, after.for_private_mentions], ["filter", "accept"]);
    // Scopes: reading needs read:notifications, writing write:notifications.
    const reader = await s.user("reader", { scopes: ["read:notifications"] });
    assert.equal((await s.req(reader, "GET", POLICY)).status, 200);
    assert.equal((await s.req(reader, "PATCH", POLICY, { for_not_following: "drop" })).status, 403);
    assert.equal((await s.req(null, "GET", "/api/v1/notifications/policy")).status, 401);
  });

  await t.test("for_not_following: filter holds back strangers' favourites; drop discards them; following lets them in", async () => {
    const mine = await post(alice, { status: "mine" });
    await setPolicy(alice, { for_not_following: "filter" });
    await s.api(bob, "POST", `/api/v1/statuses/${mine.id}/favourite`);
    assert.deepEqual(await notes(s, alice), []);
    assert.deepEqual(await notes(s, alice, "?include_filtered=true"), ["favourite:bob:filtered"]);
    assert.deepEqual(await notes(s, alice, `?account_id=${bob.id}`), ["favourite:bob:filtered"]);
    assert.deepEqual((await s.api(alice, "GET", "/api/v2/notifications")).notification_groups, []);
    // Favourites make no notification request (Mastodon opens them for mentions only).
    assert.deepEqual(await s.api(alice, "GET", "/api/v1/notifications/requests"), []);
    await setPolicy(alice, { for_not_following: "drop" });
    await s.api(carol, "POST", `/api/v1/statuses/${mine.id}/favourite`);
    assert.deepEqual(await notes(s, alice, "?include_filtered=true"), ["favourite:bob:filtered"]);
    await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/follow`);
    await s.api(carol, "POST", `/api/v1/statuses/${mine.id}/unfavourite`);
    await s.api(carol, "POST", `/api/v1/statuses/${mine.id}/favourite`);
    assert.deepEqual(await notes(s, alice), ["favourite:carol"]);
  });

  await t.test("for_not_followers: a follower of less than 3 days counts as none", async () => {
    const mine = await post(alice, { status: "followers only please" });
    await setPolicy(alice, { for_not_followers: "filter" });
    await s.api(bob, "POST", `/api/v1/statuses/${mine.id}/favourite`);
    await s.api(carol, "POST", `/api/v1/accounts/${alice.id}/follow`);
    await s.api(carol, "POST", `/api/v1/statuses/${mine.id}/favourite`);
    assert.deepEqual(await notes(s, alice), []);
    assert.deepEqual(await notes(s, alice, "?include_filtered=true"), ["favourite:carol:filtered", "follow:carol:filtered", "favourite:bob:filtered"]);
    s.app.now = () => realNow() + 4 * DAY;
    await s.api(carol, "POST", `/api/v1/statuses/${mine.id}/unfavourite`);
    await s.api(carol, "POST", `/api/v1/statuses/${mine.id}/favourite`);
    assert.deepEqual(await notes(s, alice), ["favourite:carol"]);
    await setPolicy(alice, { for_not_followers: "drop" });
    await s.api(bob, "POST", `/api/v1/statuses/${mine.id}/unfavourite`);
    await s.api(bob, "POST", `/api/v1/statuses/${mine.id}/favourite`);
    assert.deepEqual(await notes(s, alice, `?account_id=${bob.id}`), []);
  });

  await t.test("for_new_accounts: accounts younger than 30 days, unless followed", async () => {
    await setPolicy(alice, { for_new_accounts: "filter" });
    await post(bob, { status: "@alice hello from a new account" });
    await post(olga, { status: "@alice hello from an old one" });
    assert.deepEqual(await notes(s, alice), ["mention:olga"]);
    assert.deepEqual(await notes(s, alice, "?include_filtered=true"), ["mention:olga", "mention:bob:filtered"]);
    await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/follow`);
    await post(carol, { status: "@alice followed, so welcome" });
    assert.deepEqual((await notes(s, alice))[0], "mention:carol");
    await setPolicy(alice, { for_new_accounts: "drop" });
    await post(bob, { status: "@alice again" });
    assert.deepEqual((await notes(s, alice, `?account_id=${bob.id}`)).length, 1);
  });

  await t.test("for_private_mentions: a stranger's direct message, unless it answers one the recipient sent", async () => {
    await post(bob, { status: "@alice psst", visibility: "direct" });
    await post(bob, { status: "@alice in public" });
    assert.deepEqual(await notes(s, alice), ["mention:bob"]);
    assert.deepEqual(await notes(s, alice, "?include_filtered=true"), ["mention:bob", "mention:bob:filtered"]);
    // Alice writes to carol first: carol's private answer, however deep in the thread, is welcome.
    const opener = await post(alice, { status: "@carol are you there?", visibility: "direct" });
    const answer = await post(carol, { status: "@alice yes", visibility: "direct", in_reply_to_id: opener.id });
    const more = await post(alice, { status: "@carol good", visibility: "direct", in_reply_to_id: answer.id });
    await post(carol, { status: "@alice and more", visibility: "direct", in_reply_to_id: more.id });
    assert.deepEqual((await notes(s, alice)).slice(0, 2), ["mention:carol", "mention:carol"]);
    // A private reply to somebody else's direct message is still unsolicited.
    const other = await post(olga, { status: "@bob private", visibility: "direct" });
    await post(bob, { status: "@olga @alice cc", visibility: "direct", in_reply_to_id: other.id });
    assert.deepEqual((await notes(s, alice, "?include_filtered=true"))[0], "mention:bob:filtered");
    await setPolicy(alice, { for_private_mentions: "accept" });
    await post(bob, { status: "@alice now welcome", visibility: "direct" });
    assert.equal((await notes(s, alice))[0], "mention:bob");
    await setPolicy(alice, { for_private_mentions: "drop" });
    await s.api(alice, "POST", "/api/v1/notifications/clear");
    const gone = await post(bob, { status: "@alice gone", visibility: "direct" });
    assert.deepEqual(await notes(s, alice, "?include_filtered=true"), []);
    const conversations = await s.api<any[]>(alice, "GET", "/api/v1/conversations");
    assert.equal(conversations.some((c) => c.last_status.id === gone.id), false, "a dropped message opens no conversation");
  });

  await t.test("for_limited_accounts: a silenced sender is filtered by default, unless followed", async () => {
    const mine = await post(alice, { status: "limited audience" });
    updateAccount(s.app.db, bob.id, { silencedAt: realNow() });
    try {
      await s.api(bob, "POST", `/api/v1/statuses/${mine.id}/favourite`);
      assert.deepEqual(await notes(s, alice, "?include_filtered=true"), ["favourite:bob:filtered"]);
      await setPolicy(alice, { for_limited_accounts: "drop" });
      await post(bob, { status: "@alice hi" });
      assert.deepEqual(await notes(s, alice, "?include_filtered=true"), ["favourite:bob:filtered"]);
      await setPolicy(alice, { for_limited_accounts: "accept" });
      await post(bob, { status: "@alice hi again" });
      assert.deepEqual(await notes(s, alice), ["mention:bob"]);
      await setPolicy(alice, { for_limited_accounts: "drop" });
      await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
      await post(bob, { status: "@alice followed now" });
      assert.deepEqual(await notes(s, alice), ["mention:bob", "mention:bob"]);
    } finally {
      updateAccount(s.app.db, bob.id, { silencedAt: null });
    }
  });

  await t.test("types a policy never holds back: update, status", async () => {
    await setPolicy(alice, { for_not_following: "drop", for_not_followers: "drop", for_new_accounts: "drop" });
    const news = await post(carol, { status: "news" });
    await s.api(alice, "POST", `/api/v1/statuses/${news.id}/reblog`);
    await s.api(carol, "PUT", `/api/v1/statuses/${news.id}`, { status: "news, corrected" });
    assert.deepEqual(await notes(s, alice), ["update:carol"]);
    await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`, { notify: true });
    await post(bob, { status: "subscribed" });
    assert.deepEqual(await notes(s, alice), ["status:bob", "update:carol"]);
  });

  await t.test("staff mentions pass every policy; a staff favourite does not", async () => {
    const mod = await s.user("mod", { role: "moderator" });
    try {
      await setPolicy(alice, { for_not_following: "drop", for_private_mentions: "drop" });
      await post(mod, { status: "@alice a word from the moderators", visibility: "direct" });
      const mine = await post(alice, { status: "mine" });
      await s.api(mod, "POST", `/api/v1/statuses/${mine.id}/favourite`);
      assert.deepEqual(await notes(s, alice, "?include_filtered=true"), ["mention:mod"]);
      // A moderator writing to a moderator is no staff message.
      await setPolicy(mod, { for_private_mentions: "drop" });
      const other = await s.user("mod2", { role: "moderator" });
      await post(other, { status: "@mod hello colleague", visibility: "direct" });
      assert.deepEqual(await notes(s, mod, "?include_filtered=true"), []);
    } finally {
      everyone.push(mod);
    }
  });

  await t.test("summary: pending requests and their filtered mentions", async () => {
    await post(bob, { status: "@alice one", visibility: "direct" });
    await post(bob, { status: "@alice two", visibility: "direct" });
    await post(carol, { status: "@alice three", visibility: "direct" });
    await s.drainJobs();
    const p = await s.api(alice, "GET", POLICY);
    assert.deepEqual(p.summary, { pending_requests_count: 2, pending_notifications_count: 3 });
    assert.deepEqual((await s.api(alice, "GET", "/api/v1/notifications/policy")).summary, p.summary);
  });
});
