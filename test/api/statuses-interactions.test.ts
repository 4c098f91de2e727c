import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";

// One server and three users for the whole file: creating a user costs a key pair.
test("status interactions", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  const post = (who: any, body: Record<string, unknown>) => s.api(who, "POST", "/api/v1/statuses", body);
  const notificationsOf = (accountId: string, type: string) =>
    (s.app.db.prepare("SELECT status_id FROM notifications WHERE account_id = ? AND type = ?").all(BigInt(accountId), type) as { status_id: bigint }[]).map(
      (r) => String(r.status_id),
    );

  await t.test("favourite, unfavourite, favourited_by, favourites list", async () => {
    const st = await post(alice, { status: "like me" });
    const fav = await s.api(bob, "POST", `/api/v1/statuses/${st.id}/favourite`);
    assert.equal(fav.favourited, true);
    assert.equal(fav.favourites_count, 1);
    // Idempotent.
    assert.equal((await s.api(bob, "POST", `/api/v1/statuses/${st.id}/favourite`)).favourites_count, 1);
    await s.api(carol, "POST", `/api/v1/statuses/${st.id}/favourite`);
    assert.ok(notificationsOf(alice.id, "favourite").includes(st.id));

    const by = await s.req(null, "GET", `/api/v1/statuses/${st.id}/favourited_by`);
    assert.deepEqual(by.body.map((a: any) => a.id), [carol.id, bob.id]);
    const page = await s.req(null, "GET", `/api/v1/statuses/${st.id}/favourited_by?limit=1`);
    assert.deepEqual(page.body.map((a: any) => a.id), [carol.id]);
    const link = page.headers.get("link") ?? "";
    assert.match(link, /rel="next"/);
    assert.match(link, /since_id=\d+>; rel="prev"/);
    const next = /<([^>]+)>; rel="next"/.exec(link)![1].replace(s.app.baseUrl, "");
    assert.deepEqual((await s.api(null, "GET", next)).map((a: any) => a.id), [bob.id]);

    // Accounts the caller mutes are left out.
    await s.api(bob, "POST", `/api/v1/accounts/${carol.id}/mute`);
    assert.deepEqual((await s.api(bob, "GET", `/api/v1/statuses/${st.id}/favourited_by`)).map((a: any) => a.id), [bob.id]);
    await s.api(bob, "POST", `/api/v1/accounts/${carol.id}/unmute`);

    const seenByAlice = await s.api(alice, "GET", `/api/v1/statuses/${st.id}`);
    assert.equal(seenByAlice.favourited, false);
    assert.equal(seenByAlice.favourites_count, 2);

    const favs = await s.req(bob, "GET", "/api/v1/favourites");
    assert.deepEqual(favs.body.map((x: any) => x.id), [st.id]);
    assert.equal(favs.body[0].favourited, true);

    const unfav = await s.api(bob, "POST", `/api/v1/statuses/${st.id}/unfavourite`);
    assert.equal(unfav.favourited, false);
    assert.equal(unfav.favourites_count, 1);
    assert.equal((await s.api(bob, "POST", `/api/v1/statuses/${st.id}/unfavourite`)).favourites_count, 1);
    assert.deepEqual(await s.api(bob, "GET", "/api/v1/favourites"), []);
  });

  await t.test("reblog, unreblog, reblogged_by", async () => {
    const st = await post(alice, { status: "boost me" });
    const boost = await s.api(bob, "POST", `/api/v1/statuses/${st.id}/reblog`, { visibility: "unlisted" });
    assert.notEqual(boost.id, st.id);
    assert.equal(boost.content, "");
    assert.equal(boost.visibility, "unlisted");
    assert.equal(boost.account.id, bob.id);
    assert.equal(boost.reblog.id, st.id);
    assert.equal(boost.reblog.reblogged, true);
    assert.equal(boost.reblog.reblogs_count, 1);
    assert.equal(boost.reblog.content, "<p>boost me</p>");
    assert.equal(boost.uri, `${s.url}/users/bob/statuses/${boost.id}/activity`);
    assert.ok(notificationsOf(alice.id, "reblog").includes(st.id));
    // Boosting again, or boosting the boost, returns the existing boost.
    assert.equal((await s.api(bob, "POST", `/api/v1/statuses/${st.id}/reblog`)).id, boost.id);
    assert.equal((await s.api(bob, "POST", `/api/v1/statuses/${boost.id}/reblog`)).id, boost.id);
    // A boost is a status of its own, readable by id.
    const viaId = await s.api(carol, "GET", `/api/v1/statuses/${boost.id}`);
    assert.equal(viaId.reblog.id, st.id);
    assert.equal(viaId.reblog.reblogged, false);

    assert.deepEqual((await s.api(null, "GET", `/api/v1/statuses/${st.id}/reblogged_by`)).map((a: any) => a.id), [bob.id]);

    const undone = await s.api(bob, "POST", `/api/v1/statuses/${st.id}/unreblog`);
    assert.equal(undone.id, st.id);
    assert.equal(undone.reblogged, false);
    assert.equal(undone.reblogs_count, 0);
    assert.equal((await s.req(bob, "GET", `/api/v1/statuses/${boost.id}`)).status, 404);
    assert.deepEqual(notificationsOf(alice.id, "reblog").filter((id) => id === st.id), []);

    // Private posts of others and direct posts cannot be boosted; one's own private post can.
    await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
    const priv = await post(alice, { status: "followers", visibility: "private" });
    assert.equal((await s.req(bob, "POST", `/api/v1/statuses/${priv.id}/reblog`)).status, 403);
    const dm = await post(alice, { status: "@bob dm", visibility: "direct" });
    const r = await s.req(bob, "POST", `/api/v1/statuses/${dm.id}/reblog`);
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { error: "This action is not allowed" });
    assert.equal((await s.req(carol, "POST", `/api/v1/statuses/${dm.id}/reblog`)).status, 404);
    const own = await s.api(alice, "POST", `/api/v1/statuses/${priv.id}/reblog`, { visibility: "public" });
    assert.equal(own.visibility, "private");
    // A boost cannot be direct, nor anything but public/unlisted/private.
    const open = await post(alice, { status: "boost me directly?" });
    for (const visibility of ["direct", "everyone"]) {
      const bad = await s.req(bob, "POST", `/api/v1/statuses/${open.id}/reblog`, { visibility });
      assert.equal(bad.status, 422, visibility);
      assert.deepEqual(bad.body, { error: "Validation failed: Visibility is not included in the list" });
    }
    assert.equal((await s.api(bob, "POST", `/api/v1/statuses/${open.id}/reblog`, { visibility: "private" })).visibility, "private");
  });

  await t.test("bookmarks and their list with Link headers", async () => {
    const a = await post(alice, { status: "a" });
    const b = await post(alice, { status: "b" });
    const c = await post(alice, { status: "c" });
    // Bookmarked in the order c, a, b: the list follows bookmark order, not status order.
    for (const st of [c, a, b]) assert.equal((await s.api(carol, "POST", `/api/v1/statuses/${st.id}/bookmark`)).bookmarked, true);
    const all = await s.api(carol, "GET", "/api/v1/bookmarks");
    assert.deepEqual(all.map((x: any) => x.id), [b.id, a.id, c.id]);
    const p1 = await s.req(carol, "GET", "/api/v1/bookmarks?limit=2");
    assert.deepEqual(p1.body.map((x: any) => x.id), [b.id, a.id]);
    const link = p1.headers.get("link") ?? "";
    const next = /<([^>]+)>; rel="next"/.exec(link)![1];
    const prev = /<([^>]+)>; rel="prev"/.exec(link)![1];
    assert.match(next, /limit=2&max_id=\d+$/);
    assert.match(prev, /min_id=\d+$/);
    const p2 = await s.req(carol, "GET", next.replace(s.app.baseUrl, ""));
    assert.deepEqual(p2.body.map((x: any) => x.id), [c.id]);
    assert.doesNotMatch(p2.headers.get("link") ?? "", /rel="next"/);
    const newer = await s.api(carol, "GET", /<([^>]+)>; rel="prev"/.exec(p2.headers.get("link")!)![1].replace(s.app.baseUrl, ""));
    assert.deepEqual(newer.map((x: any) => x.id), [b.id, a.id]);

    assert.equal((await s.api(carol, "POST", `/api/v1/statuses/${a.id}/unbookmark`)).bookmarked, false);
    assert.deepEqual((await s.api(carol, "GET", "/api/v1/bookmarks")).map((x: any) => x.id), [b.id, c.id]);
    assert.equal((await s.req(null, "GET", "/api/v1/bookmarks")).status, 401);
  });

  await t.test("pin: order of pin date, limit and refusals", async () => {
    const mine = [];
    for (let i = 0; i < 6; i++) mine.push(await post(carol, { status: `pin ${i}` }));
    for (const i of [2, 0, 4, 1, 3]) assert.equal((await s.api(carol, "POST", `/api/v1/statuses/${mine[i].id}/pin`)).pinned, true);
    const sixth = await s.req(carol, "POST", `/api/v1/statuses/${mine[5].id}/pin`);
    assert.equal(sixth.status, 422);
    assert.equal(sixth.body.error, "Validation failed: You have already pinned the maximum number of posts");
    // Shown newest pin first.
    const pinned = await s.api(null, "GET", `/api/v1/accounts/${carol.id}/statuses?pinned=true`);
    assert.deepEqual(pinned.map((x: any) => x.content), [3, 1, 4, 0, 2].map((i) => `<p>pin ${i}</p>`));
    await s.api(carol, "POST", `/api/v1/statuses/${mine[2].id}/unpin`);
    assert.equal((await s.api(carol, "POST", `/api/v1/statuses/${mine[2].id}/unpin`)).pinned, false);
    const dup = await s.req(carol, "POST", `/api/v1/statuses/${mine[0].id}/pin`);
    assert.equal(dup.status, 422);
    assert.equal(dup.body.error, "Duplicate record");

    const others = await s.req(carol, "POST", `/api/v1/statuses/${(await post(alice, { status: "x" })).id}/pin`);
    assert.equal(others.body.error, "Validation failed: Someone else's post cannot be pinned");
    const dm = await post(carol, { status: "dm", visibility: "direct" });
    assert.equal((await s.req(carol, "POST", `/api/v1/statuses/${dm.id}/pin`)).body.error,
      "Validation failed: Posts that are only visible to mentioned users cannot be pinned");
    const boost = await s.api(carol, "POST", `/api/v1/statuses/${mine[0].id}/reblog`);
    assert.equal((await s.req(carol, "POST", `/api/v1/statuses/${boost.id}/pin`)).body.error,
      "Validation failed: A boost cannot be pinned");
    // `pinned` is shown to the author only.
    assert.equal((await s.api(alice, "GET", `/api/v1/statuses/${mine[0].id}`)).pinned, undefined);
    const dmSeen = await s.api(carol, "GET", `/api/v1/statuses/${dm.id}`);
    assert.equal(dmSeen.pinned, undefined);
  });

  await t.test("mute conversation: muted flag; a status without a thread is a validation error", async () => {
    const root = await post(alice, { status: "thread" });
    const reply = await post(bob, { status: "reply", in_reply_to_id: root.id });
    const muted = await s.api(alice, "POST", `/api/v1/statuses/${reply.id}/mute`);
    assert.equal(muted.muted, true);
    assert.equal((await s.api(alice, "GET", `/api/v1/statuses/${root.id}`)).muted, true);
    assert.equal((await s.api(bob, "GET", `/api/v1/statuses/${root.id}`)).muted, false);
    // Muted thread: a favourite by bob makes no notification for alice.
    await s.api(bob, "POST", `/api/v1/statuses/${root.id}/favourite`);
    assert.ok(!notificationsOf(alice.id, "favourite").includes(root.id));
    assert.equal((await s.api(alice, "POST", `/api/v1/statuses/${root.id}/unmute`)).muted, false);

    // A boost belongs to no thread of its own.
    const boost = await s.api(bob, "POST", `/api/v1/statuses/${root.id}/reblog`);
    const r = await s.req(alice, "POST", `/api/v1/statuses/${boost.id}/mute`);
    assert.equal(r.status, 422);
    assert.equal(r.body.error, "Validation failed: Conversation must exist");
  });

  await t.test("blocks: the blocker cannot act on the blocked author's posts", async () => {
    const st = await post(alice, { status: "from alice" });
    await s.api(carol, "POST", `/api/v1/accounts/${alice.id}/block`);
    for (const action of ["favourite", "reblog"]) {
      const r = await s.req(carol, "POST", `/api/v1/statuses/${st.id}/${action}`);
      assert.equal(r.status, 403, action);
      assert.deepEqual(r.body, { error: "This action is not allowed" });
    }
    // She can still open it (only the author's blocks hide a post), but lists filter it out.
    const boost = await s.api(bob, "POST", `/api/v1/statuses/${st.id}/reblog`);
    assert.equal((await s.req(carol, "GET", `/api/v1/statuses/${st.id}`)).status, 200);
    assert.equal((await s.req(carol, "GET", `/api/v1/statuses/${boost.id}`)).status, 200);
    assert.deepEqual(await s.api(carol, "GET", `/api/v1/statuses?id[]=${boost.id}`), []);
    assert.equal((await s.api(null, "GET", `/api/v1/statuses?id[]=${boost.id}`))[0].reblog.id, st.id);
    // The blocked author does not see the blocker's posts either.
    const carols = await post(carol, { status: "from carol" });
    assert.equal((await s.req(alice, "GET", `/api/v1/statuses/${carols.id}`)).status, 404);
  });

  await t.test("scopes", async () => {
    const reader = await s.user("reader", { scopes: ["read"] });
    const st = await post(alice, { status: "scoped" });
    for (const action of ["favourite", "reblog", "bookmark", "pin", "mute"]) {
      const r = await s.req(reader, "POST", `/api/v1/statuses/${st.id}/${action}`);
      assert.equal(r.status, 403, action);
      assert.equal(r.body.error, "This action is outside the authorized scopes");
    }
    assert.equal((await s.req(null, "POST", `/api/v1/statuses/${st.id}/favourite`)).status, 401);
    assert.equal((await s.req(reader, "GET", "/api/v1/favourites")).status, 200);
    const unknown = await s.req(bob, "POST", "/api/v1/statuses/12345/favourite");
    assert.deepEqual(unknown.body, { error: "Record not found" });
  });
});
