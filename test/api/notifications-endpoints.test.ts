// GET/POST /api/v1/notifications*: filters, pagination, dismiss, clear, unread_count, and
// what is hidden at read time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import Database from "better-sqlite3";
import { stmt } from "../../src/db/db.ts";
import { notify } from "../../src/services/notifications.ts";
import { updateAccount } from "../../src/storage/accounts.ts";
import { block, clearRelationships, domainBlock, follow, mute, post, remoteAccount } from "./notifications-fixtures.ts";

const get = (s: TestServer, who: TestUser, query = "") => s.req<any>(who, "GET", `/api/v1/notifications${query}`);

/** The `notifications` marker, through POST /api/v1/markers. */
async function setMarker(s: TestServer, who: TestUser, lastReadId: string) {
  await s.api(who, "POST", "/api/v1/markers", { notifications: { last_read_id: lastReadId } });
}

test("notifications endpoints", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const app = s.app;
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const carol = await s.user("carol", { scopes: ["read:statuses"] });
  t.afterEach(() => clearRelationships(app));

  // Five notifications for alice, oldest first: follow(bob), favourite(bob), mention(carol),
  // follow(carol), favourite(carol).
  const seed = () => {
    const st = post(app, alice);
    const m = post(app, carol, { mentions: [{ id: alice.id }] });
    follow(app, bob, alice);
    notify(app, { type: "follow", recipientId: alice.id, fromAccountId: bob.id });
    notify(app, { type: "favourite", recipientId: alice.id, fromAccountId: bob.id, statusId: st.id });
    notify(app, { type: "mention", recipientId: alice.id, fromAccountId: carol.id, statusId: m.id });
    follow(app, carol, alice);
    notify(app, { type: "follow", recipientId: alice.id, fromAccountId: carol.id });
    notify(app, { type: "favourite", recipientId: alice.id, fromAccountId: carol.id, statusId: st.id });
  };

  await t.test("auth and scopes", async () => {
    assert.equal((await s.req(null, "GET", "/api/v1/notifications")).status, 401);
    const r = await get(s, carol);
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { error: "This action is outside the authorized scopes" });
    assert.equal((await s.req(carol, "POST", "/api/v1/notifications/clear")).status, 403);
  });

  await t.test("types[], exclude_types[] and account_id filter; unknown types are ignored", async () => {
    seed();
    const all = (await get(s, alice)).body;
    assert.deepEqual(all.map((n: any) => n.type), ["favourite", "follow", "mention", "favourite", "follow"]);
    const types = (q: string) => get(s, alice, q).then((r) => r.body.map((n: any) => `${n.type}:${n.account.username}`));
    assert.deepEqual(await types("?types[]=follow&types[]=nonsense"), ["follow:carol", "follow:bob"]);
    assert.deepEqual(await types("?exclude_types[]=favourite&exclude_types[]=follow"), ["mention:carol"]);
    assert.deepEqual(await types(`?account_id=${bob.id}`), ["favourite:bob", "follow:bob"]);
    assert.deepEqual(await types(`?account_id=${bob.id}&types[]=follow`), ["follow:bob"]);
    assert.deepEqual(await types("?account_id=nope"), []);
    assert.deepEqual(await types("?types[]=nonsense"), []);
    const r = await s.req<any[]>(alice, "GET", "/api/v1/notifications?exclude_types[]=mention&exclude_types[]=favourite");
    assert.deepEqual(r.body.map((n) => n.account.username), ["carol", "bob"]);
  });

  await t.test("pagination: limit, max_id, since_id, min_id and Link keeping the filters", async () => {
    seed();
    const ids = (await get(s, alice)).body.map((n: any) => n.id);
    const p1 = await get(s, alice, "?limit=2&exclude_types[]=mention");
    assert.deepEqual(p1.body.map((n: any) => n.id), [ids[0], ids[1]]);
    const base = `${app.baseUrl}/api/v1/notifications`;
    assert.equal(
      p1.headers.get("link"),
      `<${base}?limit=2&exclude_types[]=mention&max_id=${ids[1]}>; rel="next", <${base}?limit=2&exclude_types[]=mention&min_id=${ids[0]}>; rel="prev"`,
    );
    const p2 = await get(s, alice, `?limit=2&exclude_types[]=mention&max_id=${ids[1]}`);
    assert.deepEqual(p2.body.map((n: any) => n.id), [ids[3], ids[4]]);
    const p3 = await get(s, alice, `?limit=2&exclude_types[]=mention&max_id=${ids[4]}`);
    assert.deepEqual(p3.body, []);
    assert.equal(p3.headers.get("link"), null);
    // min_id: the oldest page above the cursor, newest first; since_id: the newest page above it.
    assert.deepEqual((await get(s, alice, `?limit=2&min_id=${ids[4]}`)).body.map((n: any) => n.id), [ids[2], ids[3]]);
    assert.deepEqual((await get(s, alice, `?limit=2&since_id=${ids[4]}`)).body.map((n: any) => n.id), [ids[0], ids[1]]);
    // A non-full page still links to the next one (notifications always emit `next`).
    const partial = await get(s, alice, `?limit=40&account_id=${bob.id}&types[]=follow`);
    assert.equal(partial.body.length, 1);
    assert.equal(
      partial.headers.get("link"),
      `<${base}?limit=40&types[]=follow&account_id=${bob.id}&max_id=${ids[4]}>; rel="next", <${base}?limit=40&types[]=follow&account_id=${bob.id}&min_id=${ids[4]}>; rel="prev"`,
    );
  });

  await t.test("limit defaults to 40 and is capped at 80", async () => {
    const st = post(app, alice);
    const fans = [bob, carol].concat(
      Array.from({ length: 83 }, (_, i) => remoteAccount(app, `fan${i}`, "fans.example") as unknown as TestUser),
    );
    for (const f of fans) notify(app, { type: "favourite", recipientId: alice.id, fromAccountId: f.id, statusId: st.id });
    assert.equal((await get(s, alice)).body.length, 40);
    assert.equal((await get(s, alice, "?limit=500")).body.length, 80);
    assert.equal((await get(s, alice, "?limit=-3")).body.length, 3);
  });

  await t.test("a page costs the same number of queries whatever its length", async () => {
    const st = post(app, alice);
    const fans = Array.from({ length: 30 }, (_, i) => remoteAccount(app, `q${i}`, "queries.example"));
    for (const f of fans) notify(app, { type: "favourite", recipientId: alice.id, fromAccountId: f.id, statusId: st.id });
    for (const f of fans.slice(0, 10)) {
      const m = post(app, f as unknown as TestUser, { mentions: [{ id: alice.id }] });
      notify(app, { type: "mention", recipientId: alice.id, fromAccountId: f.id, statusId: m.id });
    }
    const proto = Database.prototype.prepare.call(app.db, "SELECT 1").constructor.prototype as Record<string, any>;
    let count = 0;
    const originals: Record<string, any> = {};
    for (const m of ["get", "all", "run", "iterate"]) {
      originals[m] = proto[m];
      proto[m] = function (this: unknown, ...args: unknown[]) {
        count++;
        return originals[m].apply(this, args);
      };
    }
    const queriesFor = async (limit: number) => {
      await get(s, alice, `?limit=${limit}`); // warm the statement cache
      count = 0;
      const r = await get(s, alice, `?limit=${limit}`);
      assert.equal(r.body.length, limit);
      return count;
    };
    try {
      const small = await queriesFor(12); // both pages hold mentions and favourites
      const large = await queriesFor(40);
      assert.equal(large, small, `${small} queries for 12 notifications, ${large} for 40`);
    } finally {
      for (const m of Object.keys(originals)) proto[m] = originals[m];
    }
  });

  await t.test("GET one, dismiss and clear answer for the owner only", async () => {
    seed();
    const [newest, second] = (await get(s, alice)).body;
    const one = await s.api(alice, "GET", `/api/v1/notifications/${newest.id}`);
    assert.deepEqual(one, newest);
    for (const path of [`/api/v1/notifications/${newest.id}`, "/api/v1/notifications/abc", "/api/v1/notifications/999"]) {
      const r = await s.req(bob, "GET", path);
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { error: "Record not found" });
    }
    const other = await s.req(bob, "POST", `/api/v1/notifications/${newest.id}/dismiss`);
    assert.equal(other.status, 404);
    assert.deepEqual(await s.api(alice, "POST", `/api/v1/notifications/${newest.id}/dismiss`), {});
    assert.equal((await s.req(alice, "GET", `/api/v1/notifications/${newest.id}`)).status, 404);
    assert.equal((await get(s, alice)).body[0].id, second.id);
    // The removed 1.x endpoint stays removed.
    assert.equal((await s.req(alice, "POST", "/api/v1/notifications/dismiss", { id: second.id })).status, 404);
    assert.deepEqual(await s.api(alice, "POST", "/api/v1/notifications/clear"), {});
    assert.deepEqual((await get(s, alice)).body, []);
  });

  await t.test("unread_count counts past the notifications marker, capped at limit", async () => {
    seed();
    const ids = (await get(s, alice)).body.map((n: any) => n.id);
    assert.deepEqual(await s.api(alice, "GET", "/api/v1/notifications/unread_count"), { count: 5 });
    assert.deepEqual(await s.api(alice, "GET", "/api/v1/notifications/unread_count?limit=2"), { count: 2 });
    await setMarker(s, alice, ids[2]);
    assert.deepEqual(await s.api(alice, "GET", "/api/v1/notifications/unread_count"), { count: 2 });
    assert.deepEqual(await s.api(alice, "GET", "/api/v1/notifications/unread_count?types[]=follow"), { count: 1 });
    assert.deepEqual(await s.api(alice, "GET", `/api/v1/notifications/unread_count?account_id=${bob.id}`), { count: 0 });
    await setMarker(s, alice, ids[0]);
    assert.deepEqual(await s.api(alice, "GET", "/api/v1/notifications/unread_count"), { count: 0 });
    stmt(app.db, "DELETE FROM markers").run();
  });

  await t.test("later blocks, notification mutes, domain blocks and suspensions hide at read time", async () => {
    const remote = remoteAccount(app, "nia", "later.example");
    const st = post(app, alice);
    notify(app, { type: "favourite", recipientId: alice.id, fromAccountId: remote.id, statusId: st.id });
    seed();
    const names = () => get(s, alice).then((r) => [...new Set(r.body.map((n: any) => n.account.username))]);
    assert.deepEqual(await names(), ["carol", "bob", "nia"]);
    domainBlock(app, alice, "later.example");
    mute(app, alice, carol, { hideNotifications: false });
    assert.deepEqual(await names(), ["carol", "bob"]);
    stmt(app.db, "DELETE FROM mutes").run();
    mute(app, alice, carol, { hideNotifications: true });
    assert.deepEqual(await names(), ["bob"]);
    stmt(app.db, "DELETE FROM mutes").run();
    block(app, carol, alice);
    assert.deepEqual(await names(), ["bob"]);
    assert.deepEqual(await s.api(alice, "GET", "/api/v1/notifications/unread_count"), { count: 2 });
    updateAccount(app.db, bob.id, { suspendedAt: app.now() });
    try {
      assert.deepEqual(await names(), []);
    } finally {
      updateAccount(app.db, bob.id, { suspendedAt: null });
    }
  });
});
