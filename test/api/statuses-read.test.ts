import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { toApiStatuses } from "../../src/serializers/status.ts";
import { findStatusesByIds } from "../../src/storage/statuses.ts";

// One server and three users for the file: creating a user costs a key pair (about a second).
test("reading, deleting and editing statuses", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const carol = await s.user("carol");

  await t.test("GET statuses: visibility of private and direct posts, unknown ids, multi-get", async () => {
    await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);

    const pub = await s.api(alice, "POST", "/api/v1/statuses", { status: "public" });
    const priv = await s.api(alice, "POST", "/api/v1/statuses", { status: "followers only", visibility: "private" });
    const dm = await s.api(alice, "POST", "/api/v1/statuses", { status: "@carol psst", visibility: "direct" });

    // Followers see private posts; a third user gets the same 404 as for a missing post.
    assert.equal((await s.req(bob, "GET", `/api/v1/statuses/${priv.id}`)).status, 200);
    for (const who of [carol, null]) {
      const r = await s.req(who, "GET", `/api/v1/statuses/${priv.id}`);
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { error: "Not Found" });
    }
    // Direct posts: the author and the mentioned only.
    assert.equal((await s.req(carol, "GET", `/api/v1/statuses/${dm.id}`)).status, 200);
    assert.equal((await s.req(bob, "GET", `/api/v1/statuses/${dm.id}`)).status, 404);
    assert.equal((await s.req(alice, "GET", `/api/v1/statuses/${dm.id}`)).status, 200);

    for (const id of ["123456789", "abc", "-1"]) {
      const r = await s.req(alice, "GET", `/api/v1/statuses/${id}`);
      assert.equal(r.status, 404, id);
      assert.deepEqual(r.body, { error: "Record not found" });
    }

    // Anonymous reads of public posts are cacheable.
    const anon = await s.req(null, "GET", `/api/v1/statuses/${pub.id}`);
    assert.match(anon.headers.get("cache-control") ?? "", /^public/);

    const ids = [pub.id, priv.id, dm.id, "999", pub.id];
    const q = ids.map((id) => `id[]=${id}`).join("&");
    assert.deepEqual((await s.api(carol, "GET", `/api/v1/statuses?${q}`)).map((x: any) => x.id), [pub.id, dm.id]);
    assert.deepEqual((await s.api(bob, "GET", `/api/v1/statuses?${q}`)).map((x: any) => x.id), [pub.id, priv.id]);
    assert.deepEqual((await s.api(null, "GET", `/api/v1/statuses?${q}`)).map((x: any) => x.id), [pub.id]);
    const many = Array.from({ length: 21 }, (_, i) => `id[]=${i + 1}`).join("&");
    assert.equal((await s.req(bob, "GET", `/api/v1/statuses?${many}`)).status, 422);
  });

  await t.test("DELETE returns the source text and undoes the counters", async () => {
    const count = async (who: any) => (await s.api(who, "GET", `/api/v1/accounts/${who.id}`)).statuses_count;
    const [aliceBefore, bobBefore] = [await count(alice), await count(bob)];
    const parent = await s.api(bob, "POST", "/api/v1/statuses", { status: "parent" });
    const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "hello #tag @bob", spoiler_text: "cw", in_reply_to_id: parent.id });
    await s.api(bob, "POST", `/api/v1/statuses/${st.id}/reblog`);
    assert.equal(await count(bob), bobBefore + 2);

    const other = await s.req(bob, "DELETE", `/api/v1/statuses/${st.id}`);
    assert.equal(other.status, 404);
    assert.deepEqual(other.body, { error: "Record not found" });

    const del = await s.api(alice, "DELETE", `/api/v1/statuses/${st.id}`);
    assert.equal(del.id, st.id);
    assert.equal(del.text, "hello #tag @bob");
    assert.equal(del.content, undefined);
    assert.equal(del.spoiler_text, "cw");
    assert.equal(del.mentions[0].id, bob.id);
    assert.deepEqual(del.tags.map((x: any) => x.name), ["tag"]);
    assert.equal((await s.req(alice, "GET", `/api/v1/statuses/${st.id}`)).status, 404);
    assert.equal(await count(alice), aliceBefore);
    // The boost went with it, and bob's count with the boost.
    assert.equal(await count(bob), bobBefore + 1);
    assert.equal((await s.api(bob, "GET", `/api/v1/statuses/${parent.id}`)).replies_count, 0);
  });

  await t.test("PUT edit, history (1 and 3 entries) and source", async () => {
    const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "first #one", language: "en" });

    const h0 = await s.api(null, "GET", `/api/v1/statuses/${st.id}/history`);
    assert.equal(h0.length, 1);
    assert.equal(h0[0].content, "<p>first <a href=\"" + s.url + "/tags/one\" class=\"mention hashtag\" rel=\"tag\">#<span>one</span></a></p>");
    assert.equal(h0[0].created_at, st.created_at);
    assert.equal(h0[0].account.id, alice.id);
    assert.deepEqual(h0[0].media_attachments, []);

    // Editing someone else's post is "not found".
    assert.equal((await s.req(bob, "PUT", `/api/v1/statuses/${st.id}`, { status: "hijack" })).status, 404);

    // A no-op edit creates no revision.
    const same = await s.api(alice, "PUT", `/api/v1/statuses/${st.id}`, { status: "first #one" });
    assert.equal(same.edited_at, null);
    assert.equal((await s.api(alice, "GET", `/api/v1/statuses/${st.id}/history`)).length, 1);

    const e1 = await s.api(alice, "PUT", `/api/v1/statuses/${st.id}`, { status: "second #two @bob", spoiler_text: "cw" });
    assert.notEqual(e1.edited_at, null);
    assert.equal(e1.spoiler_text, "cw");
    assert.equal(e1.sensitive, true);
    assert.equal(e1.language, "en"); // omitted language keeps the current one
    assert.deepEqual(e1.tags.map((x: any) => x.name), ["two"]);
    assert.deepEqual(e1.mentions.map((x: any) => x.id), [bob.id]);
    const mentionsOfBob = s.app.db.prepare("SELECT count(*) AS n FROM notifications WHERE account_id = ? AND type = 'mention' AND status_id = ?");
    assert.equal(Number((mentionsOfBob.get(BigInt(bob.id), BigInt(st.id)) as { n: bigint }).n), 1);
    const e2 = await s.api(alice, "PATCH", `/api/v1/statuses/${st.id}`, { status: "third" });
    assert.equal(e2.spoiler_text, "cw"); // omitted spoiler_text keeps it
    assert.deepEqual(e2.mentions, []);
    assert.deepEqual(e2.tags, []);
    assert.equal(e2.content, "<p>third</p>");

    const h = await s.api(bob, "GET", `/api/v1/statuses/${st.id}/history`);
    assert.deepEqual(h.map((x: any) => x.spoiler_text), ["", "cw", "cw"]);
    assert.equal(h.length, 3);
    assert.match(h[0].content, /first/);
    assert.match(h[1].content, /second/);
    assert.equal(h[2].content, "<p>third</p>");
    assert.equal(h[0].created_at, st.created_at);
    assert.equal(h[2].created_at, e2.edited_at);
    // The mention removed by the edit keeps addressing bob (he can still see a direct post).
    const dm = await s.api(alice, "POST", "/api/v1/statuses", { status: "@bob hi", visibility: "direct" });
    await s.api(alice, "PUT", `/api/v1/statuses/${dm.id}`, { status: "hi" });
    assert.equal((await s.req(bob, "GET", `/api/v1/statuses/${dm.id}`)).status, 200);

    const blank = await s.req(alice, "PUT", `/api/v1/statuses/${st.id}`, {});
    assert.equal(blank.status, 422);
    assert.equal(blank.body.error, "Validation failed: Text can't be blank");

    const src = await s.api(alice, "GET", `/api/v1/statuses/${st.id}/source`);
    assert.deepEqual(src, { id: st.id, text: "third", spoiler_text: "cw" });
    assert.equal((await s.req(null, "GET", `/api/v1/statuses/${st.id}/source`)).status, 401);
  });

  await t.test("GET /api/v1/statuses/:id/context: thread order, visibility and blocks", async () => {
    const post = (who: any, status: string, reply?: string, visibility?: string) =>
      s.api(who, "POST", "/api/v1/statuses", { status, in_reply_to_id: reply, visibility });

    const root = await post(alice, "root");
    const b1 = await post(bob, "b1", root.id);
    const c1 = await post(carol, "c1", root.id);
    const b1a = await post(alice, "b1a", b1.id);
    const self = await post(alice, "self-reply", root.id); // the author's own continuation comes first
    const b1ab = await post(bob, "b1ab", b1a.id);
    const hidden = await post(carol, "private", b1.id, "private");

    const ctx = await s.api(bob, "GET", `/api/v1/statuses/${root.id}/context`);
    assert.deepEqual(ctx.ancestors, []);
    assert.deepEqual(
      ctx.descendants.map((x: any) => x.content),
      ["<p>self-reply</p>", "<p>b1</p>", "<p>b1a</p>", "<p>b1ab</p>", "<p>c1</p>"],
    );
    assert.ok(!ctx.descendants.some((x: any) => x.id === hidden.id));
    const leaf = await s.api(null, "GET", `/api/v1/statuses/${b1ab.id}/context`);
    assert.deepEqual(leaf.ancestors.map((x: any) => x.id), [root.id, b1.id, b1a.id]);
    assert.deepEqual(leaf.descendants, []);
    assert.equal(leaf.ancestors[0].favourited, undefined);
    // The author sees carol's private reply only if following her; carol herself does.
    const asCarol = await s.api(carol, "GET", `/api/v1/statuses/${b1.id}/context`);
    assert.deepEqual(asCarol.descendants.map((x: any) => x.id), [b1a.id, b1ab.id, hidden.id]);

    // Blocked and muted authors disappear from the caller's view of the thread.
    await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/block`);
    const asAlice = await s.api(alice, "GET", `/api/v1/statuses/${root.id}/context`);
    assert.ok(!asAlice.descendants.some((x: any) => x.account.id === carol.id));
    await s.api(bob, "POST", `/api/v1/accounts/${carol.id}/mute`);
    const asBob = await s.api(bob, "GET", `/api/v1/statuses/${root.id}/context`);
    assert.deepEqual(asBob.descendants.map((x: any) => x.id), [self.id, b1.id, b1a.id, b1ab.id]);
    assert.ok(c1.id);
  });

  await t.test("serialising a page costs the same number of queries whatever its length", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const st = await s.api(alice, "POST", "/api/v1/statuses", { status: `page ${i} @bob #tag${i % 3} https://example.com/${i}` });
      ids.push(st.id);
      if (i % 2) ids.push((await s.api(bob, "POST", `/api/v1/statuses/${st.id}/reblog`)).id);
      if (i % 3) await s.api(bob, "POST", `/api/v1/statuses/${st.id}/favourite`);
    }
    const found = findStatusesByIds(s.app.db, ids);
    const page = ids.map((id) => found.get(id)!);
    const proto = Object.getPrototypeOf(s.app.db.prepare("SELECT 1")) as Record<string, (...a: unknown[]) => unknown>;
    const count = (fn: () => void) => {
      let n = 0;
      const saved = { all: proto.all, get: proto.get, run: proto.run };
      for (const k of ["all", "get", "run"] as const) {
        proto[k] = function (this: unknown, ...a: unknown[]) {
          n++;
          return saved[k].apply(this, a);
        };
      }
      try {
        fn();
      } finally {
        Object.assign(proto, saved);
      }
      return n;
    };
    // The small page holds a boost whose original is not on it; the large one everything.
    // Each count starts a fresh synchronous run: the check for other connections' commits
    // (db/row-changes.ts) runs once per run, so two counts in one run would differ by it.
    const tick = () => new Promise((r) => setImmediate(r));
    await tick();
    const small = count(() => toApiStatuses(s.app, page.slice(2, 4), bob.id));
    await tick();
    const large = count(() => toApiStatuses(s.app, page.slice(2), bob.id));
    assert.ok(page[2].reblogOfId && small > 5, `small page: ${small} queries`);
    assert.equal(large, small);
  });
});

test("an edit notifies only the accounts it newly mentions; a dismissed mention stays dismissed", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol] = [await s.user("alice"), await s.user("bob"), await s.user("carol")];
  const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "hi @bob" });
  await s.drainJobs();
  const [n] = await s.api(bob, "GET", "/api/v1/notifications?types[]=mention");
  await s.api(bob, "POST", `/api/v1/notifications/${n.id}/dismiss`);
  await s.api(alice, "PUT", `/api/v1/statuses/${st.id}`, { status: "hi @bob and @carol" });
  await s.drainJobs();
  assert.deepEqual(await s.api(bob, "GET", "/api/v1/notifications?types[]=mention"), [], "bob was already mentioned");
  const [c] = await s.api(carol, "GET", "/api/v1/notifications?types[]=mention");
  assert.equal(c.status.id, st.id);
});
