import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";

// One server and three users for the file: creating a user costs a key pair (about a second).
test("POST /api/v1/statuses", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const reader = await s.user("reader", { scopes: ["read"] });

  await t.test("content HTML, mentions, tags, language, counters", async () => {
    const text = "Hi @bob and @ghost@far.example! See https://birds.example/a/very/long/path/that/keeps/going?x=1 #Café\nbye & <b>";
    const st = await s.api(alice, "POST", "/api/v1/statuses", { status: text });
    assert.match(st.id, /^\d+$/);
    assert.equal(typeof st.id, "string");
    assert.equal(
      st.content,
      `<p>Hi <span class="h-card" translate="no"><a href="${s.url}/@bob" class="u-url mention">@<span>bob</span></a></span>` +
        ` and @ghost@far.example! See ` +
        `<a href="https://birds.example/a/very/long/path/that/keeps/going?x=1" target="_blank" rel="nofollow noopener" translate="no">` +
        `<span class="invisible">https://</span><span class="ellipsis">birds.example/a/very/long/path</span>` +
        `<span class="invisible">/that/keeps/going?x=1</span></a> ` +
        `<a href="${s.url}/tags/Caf%C3%A9" class="mention hashtag" rel="tag">#<span>Café</span></a>` +
        `<br />bye &amp; &lt;b&gt;</p>`,
    );
    assert.deepEqual(st.mentions, [{ id: bob.id, username: "bob", url: `${s.url}/@bob`, acct: "bob" }]);
    assert.deepEqual(st.tags, [{ name: "cafe", url: `${s.url}/tags/cafe` }]);
    assert.equal(st.language, null);
    assert.equal(st.visibility, "public");
    assert.equal(st.uri, `${s.url}/users/alice/statuses/${st.id}`);
    assert.equal(st.url, `${s.url}/@alice/${st.id}`);
    assert.equal(st.account.id, alice.id);
    assert.equal(st.in_reply_to_id, null);
    assert.equal(st.reblog, null);
    assert.equal(st.card, null);
    assert.equal(st.poll, null);
    assert.deepEqual(st.media_attachments, []);
    assert.deepEqual(st.emojis, []);
    assert.deepEqual(st.filtered, []);
    assert.equal(st.favourited, false);
    assert.equal(st.pinned, false);
    assert.equal(st.edited_at, null);
    assert.match(st.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(st.text, undefined);
    // The app that posted is shown to the author only.
    assert.deepEqual(st.application, { name: "Roost CLI", website: null });
    const seenByBob = await s.api(bob, "GET", `/api/v1/statuses/${st.id}`);
    assert.equal(seenByBob.application, undefined);
    assert.equal(seenByBob.pinned, undefined);
    assert.equal(seenByBob.favourited, false);
    const anon = await s.api(null, "GET", `/api/v1/statuses/${st.id}`);
    for (const k of ["favourited", "reblogged", "muted", "bookmarked", "pinned", "filtered", "application"]) assert.equal(anon[k], undefined, k);

    // Handles are case-insensitive; the stored text uses the canonical handle.
    const self = await s.api(bob, "POST", "/api/v1/statuses", { status: "cc @ALICE", language: "en-US" });
    assert.equal(self.mentions[0].id, alice.id);
    assert.match(self.content, /@<span>alice<\/span>/);
    assert.equal(self.language, "en");
    const bad = await s.api(bob, "POST", "/api/v1/statuses", { status: "x", language: "klingon" });
    assert.equal(bad.language, null);

    const me = await s.api(alice, "GET", `/api/v1/accounts/${alice.id}`);
    assert.equal(me.statuses_count, 1);
    assert.equal(me.last_status_at, new Date().toISOString().slice(0, 10));

  });

  await t.test("Idempotency-Key, replies, scopes", async () => {
    const count = async () => (await s.api(alice, "GET", `/api/v1/accounts/${alice.id}`)).statuses_count;
    const before = await count();
    const headers = { "idempotency-key": "abc-123" };
    const first = await s.req(alice, "POST", "/api/v1/statuses", { status: "once" }, headers);
    const again = await s.req(alice, "POST", "/api/v1/statuses", { status: "once (retried)" }, headers);
    assert.equal(first.status, 200);
    assert.equal(again.body.id, first.body.id);
    assert.equal(again.body.content, "<p>once</p>");
    // Keys belong to a user.
    const bobs = await s.req(bob, "POST", "/api/v1/statuses", { status: "once" }, headers);
    assert.notEqual(bobs.body.id, first.body.id);
    const other = await s.req(alice, "POST", "/api/v1/statuses", { status: "twice" }, { "idempotency-key": "other" });
    assert.notEqual(other.body.id, first.body.id);
    assert.equal(await count(), before + 2);

    // Replies: the parent must be visible; the reply carries the parent's author and thread.
    const reply = await s.api(bob, "POST", "/api/v1/statuses", { status: "@alice yes", in_reply_to_id: first.body.id });
    assert.equal(reply.in_reply_to_id, first.body.id);
    assert.equal(reply.in_reply_to_account_id, alice.id);
    const parent = await s.api(alice, "GET", `/api/v1/statuses/${first.body.id}`);
    assert.equal(parent.replies_count, 1);
    const direct = await s.api(alice, "POST", "/api/v1/statuses", { status: "secret", visibility: "direct" });
    for (const target of [direct.id, "999999999", "not-an-id"]) {
      const r = await s.req(bob, "POST", "/api/v1/statuses", { status: "hm", in_reply_to_id: target });
      assert.equal(r.status, 404, target);
      assert.equal(r.body.error, "The post you are trying to reply to does not appear to exist.");
    }
    // A direct post is not counted in statuses_count (Mastodon's counter cache).
    assert.equal(await count(), before + 2);

    const denied = await s.req(reader, "POST", "/api/v1/statuses", { status: "x" });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error, "This action is outside the authorized scopes");
    const anon = await s.req(null, "POST", "/api/v1/statuses", { status: "x" });
    assert.equal(anon.status, 401);
    // A read token may read.
    assert.equal((await s.req(reader, "GET", `/api/v1/statuses/${first.body.id}`)).status, 200);

    // The fan-out job was enqueued with the status.
    const jobs = s.app.db.prepare("SELECT payload FROM jobs WHERE name = 'status.fanout'").all() as { payload: string }[];
    assert.ok(jobs.some((j) => JSON.parse(j.payload).statusId === first.body.id));

  });

  await t.test("500-character rule, blank text, spoiler, visibility, media", async () => {
    const ok = await s.req(alice, "POST", "/api/v1/statuses", { status: "a".repeat(500) });
    assert.equal(ok.status, 200);
    const tooLong = await s.req(alice, "POST", "/api/v1/statuses", { status: "a".repeat(501) });
    assert.equal(tooLong.status, 422);
    assert.equal(tooLong.body.error, "Validation failed: Text character limit of 500 exceeded");
    // The content warning counts too.
    const withCw = await s.req(alice, "POST", "/api/v1/statuses", { status: "a".repeat(490), spoiler_text: "b".repeat(11) });
    assert.equal(withCw.status, 422);
    // A URL counts 23 whatever its length; `@user@domain` counts as `@user`; an emoji sequence counts 1.
    const url = "https://example.com/" + "p".repeat(200);
    const counted = await s.req(alice, "POST", "/api/v1/statuses", { status: `${url} ${"a".repeat(476)}` });
    assert.equal(counted.status, 200, counted.text);
    const over = await s.req(alice, "POST", "/api/v1/statuses", { status: `${url} ${"a".repeat(477)}` });
    assert.equal(over.status, 422);
    const remote = await s.req(alice, "POST", "/api/v1/statuses", { status: `@bob@very-long-domain.example ${"a".repeat(495)}` });
    assert.equal(remote.status, 200, remote.text);
    const family = await s.req(alice, "POST", "/api/v1/statuses", { status: "👩‍👩‍👧".repeat(500) });
    assert.equal(family.status, 200);

    const blank = await s.req(alice, "POST", "/api/v1/statuses", { status: "   " });
    assert.equal(blank.status, 422);
    assert.equal(blank.body.error, "Validation failed: Text can't be blank");
    const none = await s.req(alice, "POST", "/api/v1/statuses", {});
    assert.equal(none.status, 422);

    // A content warning forces `sensitive`; a post with only a warning gets it as its text.
    const cw = await s.api(alice, "POST", "/api/v1/statuses", { status: "body", spoiler_text: "cw", sensitive: false });
    assert.equal(cw.sensitive, true);
    assert.equal(cw.spoiler_text, "cw");
    const onlyCw = await s.api(alice, "POST", "/api/v1/statuses", { spoiler_text: "just a warning" });
    assert.equal(onlyCw.content, "<p>just a warning</p>");
    assert.equal(onlyCw.spoiler_text, "");

    const unknownVis = await s.req(alice, "POST", "/api/v1/statuses", { status: "x", visibility: "everyone" });
    assert.equal(unknownVis.status, 422);

    // An unknown media id (uploads: statuses-media.test.ts).
    const media = await s.req(alice, "POST", "/api/v1/statuses", { status: "x", media_ids: ["123"] });
    assert.equal(media.status, 422);
    assert.equal(media.body.error, "Media 123 not found or already attached to another post");

    // The user's default privacy is the default visibility (form-encoded request this time).
    await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { source: { privacy: "unlisted" } });
    const form = new URLSearchParams({ status: "form post" });
    const unlisted = await s.api(alice, "POST", "/api/v1/statuses", form);
    assert.equal(unlisted.visibility, "unlisted");
    assert.equal(unlisted.content, "<p>form post</p>");

  });
});
