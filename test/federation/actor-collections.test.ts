import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { AP_TYPE, apGet, post } from "./ap-test-helpers.ts";

// An actor's collections (AP §6): outbox, followers/following, featured, featured tags.

test("outbox: root with counts, pages of 20 Create/Announce activities, max_id/min_id paging", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const base = s.app.baseUrl;
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const bobPost = await post(s, bob, { status: "from bob" });
  const posted: string[] = [];
  for (let i = 0; i < 23; i++) posted.push((await post(s, alice, { status: `post ${i}`, visibility: i % 2 ? "unlisted" : "public" })).id);
  await post(s, alice, { status: "followers only", visibility: "private" });
  await post(s, alice, { status: "@bob secret", visibility: "direct" });
  const boost = await s.api(alice, "POST", `/api/v1/statuses/${bobPost.id}/reblog`);
  const outbox = `${base}/users/alice/outbox`;

  const root = await apGet(s, "/users/alice/outbox");
  assert.equal(root.status, 200);
  assert.equal(root.headers.get("content-type"), AP_TYPE);
  const { "@context": _c, ...rootDoc } = root.body;
  const account = await s.api(null, "GET", `/api/v1/accounts/${alice.id}`);
  assert.deepEqual(rootDoc, {
    id: outbox,
    type: "OrderedCollection",
    totalItems: account.statuses_count,
    first: `${outbox}?page=true`,
    last: `${outbox}?min_id=0&page=true`,
  });

  const first = (await apGet(s, "/users/alice/outbox?page=true")).body;
  assert.equal(first.id, `${outbox}?page=true`);
  assert.equal(first.type, "OrderedCollectionPage");
  assert.equal(first.partOf, outbox);
  assert.equal(first.orderedItems.length, 20);
  assert.equal(first.orderedItems[0].type, "Announce", "newest first: the boost");
  assert.equal(first.orderedItems[0].id, `${base}/users/alice/statuses/${boost.id}/activity`);
  assert.equal(first.orderedItems[0].object, bobPost.uri);
  const createdIds = first.orderedItems.slice(1).map((a: { type: string; object: { id: string } }) => {
    assert.equal(a.type, "Create");
    return a.object.id.split("/").pop();
  });
  assert.deepEqual(createdIds, posted.slice(-19).reverse(), "no followers-only or direct posts");
  const lastOnPage = createdIds[createdIds.length - 1];
  assert.equal(first.next, `${outbox}?max_id=${lastOnPage}&page=true`);
  assert.equal(first.prev, `${outbox}?min_id=${boost.id}&page=true`);

  const second = (await apGet(s, new URL(first.next).pathname + new URL(first.next).search)).body;
  assert.equal(second.id, first.next);
  assert.deepEqual(
    second.orderedItems.map((a: { object: { id: string } }) => a.object.id.split("/").pop()),
    posted.slice(0, 4).reverse(),
  );
  assert.equal("next" in second, false, "a short page is the last one");

  const oldest = (await apGet(s, "/users/alice/outbox?min_id=0&page=true")).body;
  assert.equal(oldest.orderedItems.length, 20);
  assert.equal(oldest.orderedItems[19].object.id.split("/").pop(), posted[0]);

  // Garbage cursors are ignored rather than failing.
  assert.equal((await apGet(s, "/users/alice/outbox?page=true&max_id=xyz&min_id=-5")).status, 200);
});

test("followers and following: 12 per page, ?page=N; hidden collections show only their size", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const base = s.app.baseUrl;
  const alice = await s.user("alice");
  const fans = [];
  for (let i = 0; i < 13; i++) {
    const u = await s.user(`fan${i}`);
    await s.api(u, "POST", `/api/v1/accounts/${alice.id}/follow`);
    fans.push(u);
  }
  const followers = `${base}/users/alice/followers`;
  const root = await apGet(s, "/users/alice/followers");
  assert.equal(root.status, 200);
  const { "@context": _c, ...rootDoc } = root.body;
  assert.deepEqual(rootDoc, { id: followers, type: "OrderedCollection", totalItems: 13, first: `${followers}?page=1` });

  const page1 = (await apGet(s, "/users/alice/followers?page=1")).body;
  const newestFirst = fans.map((f) => `${base}/users/${f.username}`).reverse();
  assert.equal(page1.id, `${followers}?page=1`);
  assert.equal(page1.type, "OrderedCollectionPage");
  assert.equal(page1.totalItems, 13);
  assert.equal(page1.partOf, followers);
  assert.equal(page1.next, `${followers}?page=2`);
  assert.equal("prev" in page1, false);
  assert.deepEqual(page1.orderedItems, newestFirst.slice(0, 12));
  const page2 = (await apGet(s, "/users/alice/followers?page=2")).body;
  assert.deepEqual(page2.orderedItems, newestFirst.slice(12));
  assert.equal(page2.prev, `${followers}?page=1`);
  assert.equal("next" in page2, false);

  const following = (await apGet(s, "/users/fan3/following?page=1")).body;
  assert.deepEqual(following.orderedItems, [`${base}/users/alice`]);
  assert.equal((await apGet(s, "/users/fan3/following")).body.totalItems, 1);

  // Hidden: no `first` (peers read that as hidden), pages refused.
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { hide_collections: true });
  const hidden = (await apGet(s, "/users/alice/followers")).body;
  assert.deepEqual({ ...hidden, "@context": undefined }, { "@context": undefined, id: followers, type: "OrderedCollection", totalItems: 13 });
  assert.equal("first" in hidden, false);
  assert.equal((await apGet(s, "/users/alice/followers?page=1")).status, 403);
  assert.equal((await apGet(s, "/users/alice/following?page=1")).status, 403);
  assert.equal((await apGet(s, "/users/nobody/followers")).status, 404);
});

test("featured: pinned posts as Notes (followers-only pins by id); featured tags are empty", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const base = s.app.baseUrl;
  const alice = await s.user("alice");
  const a = await post(s, alice, { status: "pinned first" });
  const b = await post(s, alice, { status: "followers pin", visibility: "private" });
  const c = await post(s, alice, { status: "pinned last", visibility: "unlisted" });
  await post(s, alice, { status: "not pinned" });
  for (const st of [a, b, c]) await s.api(alice, "POST", `/api/v1/statuses/${st.id}/pin`);

  const res = await apGet(s, "/users/alice/collections/featured");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), AP_TYPE);
  const doc = res.body;
  assert.equal(doc.id, `${base}/users/alice/collections/featured`);
  assert.equal(doc.type, "OrderedCollection");
  assert.equal(doc.totalItems, 3);
  assert.equal(doc.orderedItems.length, 3);
  assert.equal(doc.orderedItems[0].id, c.uri, "newest pin first");
  assert.equal(doc.orderedItems[0].type, "Note");
  assert.equal(doc.orderedItems[1], b.uri);
  assert.equal(doc.orderedItems[2].id, a.uri);

  const tags = (await apGet(s, "/users/alice/collections/tags")).body;
  assert.deepEqual({ ...tags, "@context": undefined }, {
    "@context": undefined,
    id: `${base}/users/alice/collections/tags`,
    type: "Collection",
    totalItems: 0,
    items: [],
  });
});
