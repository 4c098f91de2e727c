// /api/v2/notifications paging (groups bounded by the page), GET/dismiss one group, its
// accounts, unread_count, and the cost of a page.
import { test } from "node:test";
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { notify } from "../../src/services/notifications.ts";
import { insertNotification } from "../../src/storage/notifications.ts";
import { post as fixturePost, remoteAccount } from "./notifications-fixtures.ts";

const v2 = (s: TestServer, who: TestUser, query = "") => s.req<any>(who, "GET", `/api/v2/notifications${query}`);

/** [group key, count, page_min_id, page_max_id] per group. */
const bounds = (body: any) =>
  body.notification_groups.map((g: any) => [g.group_key, g.notifications_count, g.page_min_id, g.page_max_id]);

test("grouped notifications: pages, one group, its accounts, unread count", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol, dave] = [await s.user("alice"), await s.user("bob"), await s.user("carol"), await s.user("dave")];
  t.afterEach(async () => {
    await s.api(alice, "POST", "/api/v2/notifications/clear");
    await s.req(dave, "POST", `/api/v1/accounts/${alice.id}/unfollow`);
    s.app.db.exec("DELETE FROM markers");
  });

  // n1 favourite(bob, p), n2 follow(dave), n3 favourite(carol, p), n4 mention(bob): the
  // favourite group straddles the follow.
  async function seed() {
    const p = await s.api(alice, "POST", "/api/v1/statuses", { status: "paged" });
    await s.api(bob, "POST", `/api/v1/statuses/${p.id}/favourite`);
    await s.api(dave, "POST", `/api/v1/accounts/${alice.id}/follow`);
    await s.api(carol, "POST", `/api/v1/statuses/${p.id}/favourite`);
    await s.api(bob, "POST", "/api/v1/statuses", { status: "@alice ping" });
    await s.drainJobs();
    const [n4, n3, n2, n1] = await s.api<any[]>(alice, "GET", "/api/v1/notifications");
    assert.deepEqual([n4.type, n3.type, n2.type, n1.type], ["mention", "favourite", "follow", "favourite"]);
    return { p, n1, n2, n3, n4, fav: n3.group_key as string, follow: n2.group_key as string };
  }

  await t.test("max_id pages: a group is counted up to the page's newest and bounded below by its oldest", async () => {
    const { n1, n2, n3, n4, fav, follow } = await seed();
    const first = await v2(s, alice, "?limit=2");
    assert.deepEqual(bounds(first.body), [
      [`ungrouped-${n4.id}`, 1, n4.id, n4.id],
      [fav, 2, n3.id, n3.id],
    ]);
    assert.deepEqual(first.body.notification_groups[1].sample_account_ids, [carol.id, bob.id]);
    const base = `${s.app.baseUrl}/api/v2/notifications`;
    assert.equal(first.headers.get("link"), `<${base}?limit=2&max_id=${n3.id}>; rel="next", <${base}?limit=2&min_id=${n4.id}>; rel="prev"`);
    // The favourite group shows again below: as much of it as lies under the page's top.
    const second = await v2(s, alice, `?limit=2&max_id=${n3.id}`);
    assert.deepEqual(bounds(second.body), [
      [follow, 1, n2.id, n2.id],
      [fav, 1, n1.id, n1.id],
    ]);
    assert.deepEqual(second.body.notification_groups[1].sample_account_ids, [bob.id]);
    assert.deepEqual(second.body.accounts.map((a: any) => a.username), ["dave", "bob"]);
    const third = await v2(s, alice, `?limit=2&max_id=${n1.id}`);
    assert.deepEqual(third.body, { accounts: [], statuses: [], notification_groups: [] });
    assert.equal(third.headers.get("link"), null);
  });

  await t.test("min_id and since_id pages; a last, incomplete page reaches the end of the list", async () => {
    const { n1, n2, n3, n4, fav, follow } = await seed();
    // min_id: the oldest groups above the cursor, newest first.
    const up = await v2(s, alice, `?limit=2&min_id=${n1.id}`);
    assert.deepEqual(bounds(up.body), [
      [fav, 2, n3.id, n3.id],
      [follow, 1, n2.id, n2.id],
    ]);
    // Incomplete page going up: counted to the newest notification of the list.
    const top = await v2(s, alice, `?limit=5&min_id=${n2.id}`);
    assert.deepEqual(bounds(top.body), [
      [`ungrouped-${n4.id}`, 1, n4.id, n4.id],
      [fav, 2, n3.id, n3.id],
    ]);
    // since_id: the newest groups above the cursor; the lower bound is the cursor.
    const since = await v2(s, alice, `?since_id=${n1.id}`);
    assert.deepEqual(bounds(since.body), [
      [`ungrouped-${n4.id}`, 1, n4.id, n4.id],
      [fav, 2, n3.id, n3.id],
      [follow, 1, n2.id, n2.id],
    ]);
    // A complete first page with no cursor: the favourite group's oldest member is on it.
    assert.deepEqual(bounds((await v2(s, alice)).body)[1], [fav, 2, n1.id, n3.id]);
  });

  await t.test("GET /:group_key: the whole group; ungrouped-<id>; 404 for unknown or others' groups", async () => {
    const { p, n1, n3, n4, fav } = await seed();
    const r = await s.req<any>(alice, "GET", `/api/v2/notifications/${fav}`);
    assert.equal(r.status, 200);
    const [g] = r.body.notification_groups;
    assert.deepEqual(
      [g.group_key, g.notifications_count, g.type, g.sample_account_ids, g.status_id],
      [fav, 2, "favourite", [carol.id, bob.id], p.id],
    );
    assert.equal("page_min_id" in g, false, "not a list page");
    assert.match(r.text, new RegExp(`"most_recent_notification_id":${n3.id},`));
    assert.deepEqual(r.body.accounts.map((a: any) => a.username), ["carol", "bob"]);
    assert.deepEqual(r.body.statuses.map((x: any) => x.id), [p.id]);
    const one = await s.api(alice, "GET", `/api/v2/notifications/ungrouped-${n4.id}`);
    assert.deepEqual(
      one.notification_groups.map((x: any) => [x.group_key, x.type, x.notifications_count, x.sample_account_ids]),
      [[`ungrouped-${n4.id}`, "mention", 1, [bob.id]]],
    );
    // A grouped notification named by its id comes back as its group (Mastodon's show).
    const named = await s.api(alice, "GET", `/api/v2/notifications/ungrouped-${n1.id}`);
    assert.equal(named.notification_groups[0].group_key, fav);
    for (const [who, key] of [[alice, "favourite-1-1"], [alice, "ungrouped-abc"], [alice, "ungrouped-1"], [bob, fav], [bob, `ungrouped-${n4.id}`]] as const) {
      const miss = await s.req(who, "GET", `/api/v2/notifications/${key}`);
      assert.equal(miss.status, 404, `${who.username} ${key}`);
      assert.deepEqual(miss.body, { error: "Record not found" });
    }
  });

  await t.test("POST /:group_key/dismiss removes the whole group, for its owner only", async () => {
    const { n2, n4, fav, follow } = await seed();
    assert.deepEqual(await s.api(bob, "POST", `/api/v2/notifications/${fav}/dismiss`), {});
    assert.deepEqual(await s.api(bob, "POST", `/api/v2/notifications/ungrouped-${n4.id}/dismiss`), {});
    assert.equal((await s.api<any[]>(alice, "GET", "/api/v1/notifications")).length, 4);
    assert.deepEqual(await s.api(alice, "POST", `/api/v2/notifications/${fav}/dismiss`), {});
    assert.deepEqual(await s.api(alice, "POST", `/api/v2/notifications/ungrouped-${n4.id}/dismiss`), {});
    assert.deepEqual(await s.api(alice, "POST", "/api/v2/notifications/nothing-here/dismiss"), {});
    assert.deepEqual((await s.api<any[]>(alice, "GET", "/api/v1/notifications")).map((n) => n.id), [n2.id]);
    assert.deepEqual(bounds((await v2(s, alice)).body).map((b: any[]) => b[0]), [follow]);
  });

  await t.test("GET /:group_key/accounts pages through every sender; samples stop at 8", async () => {
    const st = fixturePost(s.app, alice);
    const fans = Array.from({ length: 10 }, (_, i) => remoteAccount(s.app, `fan${i}`, "fans.example"));
    for (const f of fans) notify(s.app, { type: "favourite", recipientId: alice.id, fromAccountId: f.id, statusId: st.id });
    const [g] = (await v2(s, alice)).body.notification_groups;
    assert.equal(g.notifications_count, 10);
    const newestFirst = fans.map((f) => f.id).reverse();
    assert.deepEqual(g.sample_account_ids, newestFirst.slice(0, 8));
    const page1 = await s.req<any[]>(alice, "GET", `/api/v2/notifications/${g.group_key}/accounts?limit=4`);
    assert.deepEqual(page1.body.map((a) => a.id), newestFirst.slice(0, 4));
    const next = /<([^>]+)>; rel="next"/.exec(page1.headers.get("link") ?? "")?.[1];
    assert.ok(next, page1.headers.get("link") ?? "no link");
    const page2 = await s.api<any[]>(alice, "GET", next.slice(s.app.baseUrl.length));
    assert.deepEqual(page2.map((a) => a.id), newestFirst.slice(4, 8));
    const all = await s.req<any[]>(alice, "GET", `/api/v2/notifications/${g.group_key}/accounts`);
    assert.deepEqual(all.body.map((a) => a.id), newestFirst);
    assert.equal(/rel="next"/.test(all.headers.get("link") ?? ""), false, "next only after a full page");
    assert.equal(all.body[0].acct, "fan9@fans.example");
    // Another recipient's group, or an unknown one, has no accounts.
    assert.deepEqual(await s.api(bob, "GET", `/api/v2/notifications/${g.group_key}/accounts`), []);
    const { n4 } = await seed();
    assert.deepEqual((await s.api<any[]>(alice, "GET", `/api/v2/notifications/ungrouped-${n4.id}/accounts`)).map((a) => a.id), [bob.id]);
  });

  await t.test("a group larger than a read: counted whole, sampled from its newest, across pages", async () => {
    const st = fixturePost(s.app, alice);
    const crowd = Array.from({ length: 700 }, (_, i) => remoteAccount(s.app, `crowd${i}`, "crowd.example"));
    const { n4, fav } = await seed(); // older than the crowd: bob's mention, a small favourite group
    for (const f of crowd) notify(s.app, { type: "favourite", recipientId: alice.id, fromAccountId: f.id, statusId: st.id });
    const page = await v2(s, alice, "?limit=3");
    const [big, mention, small] = page.body.notification_groups;
    assert.deepEqual([big.type, big.notifications_count, big.status_id], ["favourite", 700, st.id]);
    assert.deepEqual(big.sample_account_ids, crowd.slice(-8).reverse().map((f) => f.id));
    assert.deepEqual([mention.group_key, small.group_key, small.notifications_count], [`ungrouped-${n4.id}`, fav, 2]);
    // The next page starts below the small group; the crowd is entirely above it.
    const next = await v2(s, alice, `?limit=3&max_id=${small.page_max_id}`);
    assert.deepEqual(bounds(next.body).map((b: any[]) => [b[0], b[1]]), [[next.body.notification_groups[0].group_key, 1], [fav, 1]]);
  });

  await t.test("a group too large to walk in one request: the page stops, and its link goes on below", async () => {
    const { n4 } = await seed();
    const st = fixturePost(s.app, alice);
    const fans = s.app.db.transaction(() => Array.from({ length: 5051 }, (_, i) => remoteAccount(s.app, `h${i}`, "huge.example")))();
    notify(s.app, { type: "favourite", recipientId: alice.id, fromAccountId: fans[0].id, statusId: st.id });
    const [made] = await s.api<any[]>(alice, "GET", "/api/v1/notifications?limit=1");
    // The rest as rows like the first (notify() for each would make this test slow).
    s.app.db.transaction(() => {
      for (const f of fans.slice(1)) {
        insertNotification(s.app.db, {
          id: s.app.ids.next(), accountId: alice.id, fromAccountId: f.id, type: "favourite", statusId: st.id,
          groupKey: made.group_key, filtered: false, createdAt: s.app.now(),
        });
      }
    })();
    const first = await v2(s, alice, "?limit=2");
    const [big] = first.body.notification_groups;
    assert.deepEqual([first.body.notification_groups.length, big.notifications_count], [1, 5051]);
    // The page covers what was read: its oldest notification is where the next page starts.
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")![1];
    assert.equal(new URL(next).searchParams.get("max_id"), big.page_min_id);
    const second = await s.api(alice, "GET", next.slice(s.app.baseUrl.length));
    assert.deepEqual(second.notification_groups.map((g: any) => g.group_key), [big.group_key, `ungrouped-${n4.id}`]);
    const rest = second.notification_groups[0];
    assert.ok(BigInt(rest.page_max_id) < BigInt(big.page_min_id));
    assert.ok(rest.notifications_count > 0 && rest.notifications_count < 5051, String(rest.notifications_count));
    assert.deepEqual(rest.sample_account_ids.length, 8);
  });

  await t.test("unread_count counts groups past the marker, capped at limit", async () => {
    const { n1, n2 } = await seed();
    const count = (q = "") => s.api(alice, "GET", `/api/v2/notifications/unread_count${q}`);
    assert.deepEqual(await count(), { count: 3 });
    assert.deepEqual(await s.api(alice, "GET", "/api/v1/notifications/unread_count"), { count: 4 });
    assert.deepEqual(await count("?limit=2"), { count: 2 });
    assert.deepEqual(await count("?grouped_types[]=follow"), { count: 4 });
    assert.deepEqual(await count("?types[]=favourite"), { count: 1 });
    await s.api(alice, "POST", "/api/v1/markers", { notifications: { last_read_id: n2.id } });
    assert.deepEqual(await count(), { count: 2 });
    await s.api(alice, "POST", "/api/v1/markers", { notifications: { last_read_id: n1.id } });
    assert.deepEqual(await count("?exclude_types[]=mention"), { count: 2 });
  });

  await t.test("a page's queries do not grow with its number of groups", async () => {
    const fans = Array.from({ length: 24 }, (_, i) => remoteAccount(s.app, `q${i}`, "queries.example"));
    for (const [i, f] of fans.entries()) {
      const st = fixturePost(s.app, alice);
      notify(s.app, { type: "favourite", recipientId: alice.id, fromAccountId: f.id, statusId: st.id });
      notify(s.app, { type: "favourite", recipientId: alice.id, fromAccountId: fans[(i + 1) % fans.length].id, statusId: st.id });
      const m = fixturePost(s.app, f as unknown as TestUser, { mentions: [{ id: alice.id }] });
      notify(s.app, { type: "mention", recipientId: alice.id, fromAccountId: f.id, statusId: m.id });
    }
    const proto = Database.prototype.prepare.call(s.app.db, "SELECT 1").constructor.prototype as Record<string, any>;
    let queries = 0;
    const originals: Record<string, any> = {};
    for (const m of ["get", "all", "run", "iterate"]) {
      originals[m] = proto[m];
      proto[m] = function (this: unknown, ...args: unknown[]) {
        queries++;
        return originals[m].apply(this, args);
      };
    }
    const cost = async (limit: number) => {
      await v2(s, alice, `?limit=${limit}`); // warm the statement cache
      queries = 0;
      const r = await v2(s, alice, `?limit=${limit}`);
      assert.equal(r.body.notification_groups.length, limit);
      return queries;
    };
    try {
      const small = await cost(10);
      const large = await cost(40);
      // The scan reads in chunks sized from what the page still needs: a longer page may take
      // one more; everything after it is batched.
      assert.ok(large - small <= 1 && small <= 20, `${small} queries for 10 groups, ${large} for 40`);
    } finally {
      for (const m of Object.keys(originals)) proto[m] = originals[m];
    }
  });
});
