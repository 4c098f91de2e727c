// masto.js (a real Mastodon client library) against a running roost: two users post, follow,
// interact and read, and every step checks the fields masto.js hands back, so we know a
// real app parses our JSON. masto validates little, hence the explicit field assertions.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRestAPIClient, type mastodon } from "masto";
import { startTestServer } from "../helpers/server.ts";

const ID = /^\d+$/;
const isDate = (v: unknown) => typeof v === "string" && !Number.isNaN(Date.parse(v));

test("masto.js drives two users through a day on roost", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const aliceUser = await s.user("alice");
  const bobUser = await s.user("bob");
  const alice = createRestAPIClient({ url: s.url, accessToken: aliceUser.token });
  const bob = createRestAPIClient({ url: s.url, accessToken: bobUser.token });

  let first: mastodon.v1.Status | undefined;
  let reply: mastodon.v1.Status | undefined;
  let listId: string | undefined;
  const need = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`${what} was not created by an earlier step`);
    return v;
  };

  await t.test("verify and update credentials", async () => {
    const me = await alice.v1.accounts.verifyCredentials();
    assert.equal(me.id, aliceUser.id);
    assert.equal(me.username, "alice");
    assert.equal(me.acct, "alice");
    assert.ok(isDate(me.createdAt));
    assert.equal(typeof me.source?.privacy, "string");
    const updated = await alice.v1.accounts.updateCredentials({ displayName: "Alice A.", note: "Hello *there*" });
    assert.equal(updated.displayName, "Alice A.");
    assert.equal(updated.source?.note, "Hello *there*");
    assert.match(updated.note, /Hello \*there\*/);
  });

  await t.test("instance v2", async () => {
    const inst = await alice.v2.instance.fetch();
    assert.equal(inst.domain, new URL(s.url).host);
    assert.equal(inst.title, "Roost Test");
    assert.equal(typeof inst.version, "string");
    assert.equal(typeof inst.configuration.statuses.maxCharacters, "number");
  });

  await t.test("post with a content warning", async () => {
    first = await alice.v1.statuses.create({ status: "First post", spoilerText: "cw: greetings", visibility: "public" });
    assert.match(first.id, ID);
    assert.equal(first.spoilerText, "cw: greetings");
    assert.equal(first.sensitive, true);
    assert.equal(first.visibility, "public");
    assert.equal(first.content, "<p>First post</p>");
    assert.equal(first.account.id, aliceUser.id);
    assert.ok(first.uri.startsWith(s.app.baseUrl));
    assert.ok(isDate(first.createdAt));
    assert.equal(first.repliesCount, 0);
  });

  await t.test("reply with a mention and a hashtag", async () => {
    const parent = need(first, "first");
    reply = await bob.v1.statuses.create({ status: "@alice welcome #roost", inReplyToId: parent.id });
    assert.equal(reply.inReplyToId, parent.id);
    assert.equal(reply.inReplyToAccountId, aliceUser.id);
    assert.deepEqual(reply.mentions.map((m) => [m.id, m.acct]), [[aliceUser.id, "alice"]]);
    assert.deepEqual(reply.tags.map((x) => x.name), ["roost"]);
    assert.match(reply.content, /class="u-url mention"/);
    assert.match(reply.content, /href="[^"]*\/tags\/roost"/);
  });

  await t.test("follow and read the home timeline", async () => {
    const rel = await bob.v1.accounts.$select(aliceUser.id).follow({ reblogs: true });
    assert.equal(rel.id, aliceUser.id);
    assert.equal(rel.following, true);
    assert.equal(rel.showingReblogs, true);
    const later = await alice.v1.statuses.create({ status: "After the follow" });
    await s.drainJobs();
    const home = await bob.v1.timelines.home.list({ limit: 10 });
    assert.ok(home.some((st) => st.id === later.id), "the followed account's new post is in bob's home");
    assert.ok(home.every((st) => ID.test(st.id) && st.account && isDate(st.createdAt)));
  });

  await t.test("favourite, reblog, bookmark and pin", async () => {
    const st = need(first, "first");
    const fav = await bob.v1.statuses.$select(st.id).favourite();
    assert.equal(fav.favourited, true);
    assert.equal(fav.favouritesCount, 1);
    const boost = await bob.v1.statuses.$select(st.id).reblog();
    assert.equal(boost.reblog?.id, st.id);
    assert.equal(boost.reblog?.reblogged, true);
    const bm = await bob.v1.statuses.$select(st.id).bookmark();
    assert.equal(bm.bookmarked, true);
    const pinned = await alice.v1.statuses.$select(st.id).pin();
    assert.equal(pinned.pinned, true);
    const pins = await alice.v1.accounts.$select(aliceUser.id).statuses.list({ pinned: true });
    assert.deepEqual(pins.map((p) => p.id), [st.id]);
  });

  await t.test("edit and history", async () => {
    const st = need(first, "first");
    const edited = await alice.v1.statuses.$select(st.id).update({ status: "First post, edited", spoilerText: "cw: greetings" });
    assert.equal(edited.content, "<p>First post, edited</p>");
    assert.ok(isDate(edited.editedAt));
    const history = await alice.v1.statuses.$select(st.id).history.list();
    assert.equal(history.length, 2);
    assert.equal(history[0].content, "<p>First post</p>");
    assert.equal(history[1].content, "<p>First post, edited</p>");
    assert.ok(history.every((h) => isDate(h.createdAt) && h.account.id === aliceUser.id));
  });

  await t.test("notifications", async () => {
    await s.drainJobs();
    const ns = await alice.v1.notifications.list();
    const types = ns.map((n) => n.type);
    for (const want of ["mention", "follow", "favourite", "reblog"]) assert.ok(types.includes(want as never), `a ${want} notification`);
    for (const n of ns) {
      assert.match(n.id, ID);
      assert.equal(n.account.id, bobUser.id);
      assert.ok(isDate(n.createdAt));
      assert.equal(typeof n.groupKey, "string");
    }
    const fav = ns.find((n) => n.type === "favourite")!;
    assert.equal(fav.status?.id, need(first, "first").id);
    const mention = ns.find((n) => n.type === "mention")!;
    assert.equal(mention.status?.id, need(reply, "reply").id);
    const one = await alice.v1.notifications.$select(fav.id).fetch();
    assert.equal(one.id, fav.id);
    const unread = await alice.v1.notifications.unreadCount.fetch();
    assert.equal(unread.count, ns.length);
    // bob's boost was edited: he gets `update`.
    const bobs = await bob.v1.notifications.list({ types: ["update"] });
    assert.deepEqual(bobs.map((n) => [n.type, n.status?.id]), [["update", need(first, "first").id]]);
  });

  await t.test("relationships", async () => {
    const [rel] = await alice.v1.accounts.relationships.fetch({ id: [bobUser.id] });
    assert.equal(rel.id, bobUser.id);
    assert.equal(rel.following, false);
    assert.equal(rel.followedBy, true);
    assert.equal(rel.blocking, false);
    assert.equal(rel.muting, false);
    assert.equal(rel.requested, false);
    assert.equal(typeof rel.note, "string");
  });

  await t.test("lists: create, add, timeline", async () => {
    const list = await bob.v1.lists.create({ title: "Friends", exclusive: false });
    assert.match(list.id, ID);
    assert.equal(list.title, "Friends");
    assert.equal(list.repliesPolicy, "list");
    listId = list.id;
    await bob.v1.lists.$select(list.id).accounts.create({ accountIds: [aliceUser.id] });
    const members = await bob.v1.lists.$select(list.id).accounts.list();
    assert.deepEqual(members.map((a) => a.id), [aliceUser.id]);
    const post = await alice.v1.statuses.create({ status: "For my lists" });
    await s.drainJobs();
    const tl = await bob.v1.timelines.list.$select(list.id).list();
    assert.equal(tl[0]?.id, post.id);
  });

  await t.test("conversations", async () => {
    const dm = await alice.v1.statuses.create({ status: "@bob psst", visibility: "direct" });
    await s.drainJobs();
    const convs = await bob.v1.conversations.list();
    const conv = convs.find((c) => c.lastStatus?.id === dm.id);
    assert.ok(conv, "the DM shows up in bob's conversations");
    assert.equal(conv.unread, true);
    assert.deepEqual(conv.accounts.map((a) => a.id), [aliceUser.id]);
    const read = await bob.v1.conversations.$select(conv.id).read();
    assert.equal(read.unread, false);
  });

  await t.test("markers", async () => {
    const st = { id: "110000000000000000" };
    const saved = await bob.v1.markers.create({ home: { lastReadId: st.id } });
    const home = (saved as unknown as Record<string, mastodon.v1.MarkerItem>).home;
    assert.equal(home.lastReadId, st.id);
    assert.equal(typeof home.version, "number");
    assert.ok(isDate(home.updatedAt));
    const fetched = (await bob.v1.markers.fetch({ timeline: ["home"] })) as unknown as Record<string, mastodon.v1.MarkerItem>;
    assert.equal(fetched.home.lastReadId, st.id);
  });

  await t.test("schedule a post, list, move and cancel it", async () => {
    const at = new Date(Date.now() + 3600_000).toISOString();
    const sch = await alice.v1.statuses.create({ status: "see you in an hour", scheduledAt: at, visibility: "unlisted" });
    assert.match(sch.id, ID);
    assert.equal(sch.scheduledAt, at);
    assert.equal(sch.params.text, "see you in an hour");
    assert.equal(sch.params.visibility, "unlisted");
    assert.deepEqual(sch.mediaAttachments, []);
    const listed = await alice.v1.scheduledStatuses.list();
    assert.deepEqual(listed.map((x) => x.id), [sch.id]);
    const later = new Date(Date.now() + 7200_000).toISOString();
    const moved = await alice.v1.scheduledStatuses.$select(sch.id).update({ scheduledAt: later });
    assert.equal(moved.scheduledAt, later);
    assert.equal((await alice.v1.scheduledStatuses.$select(sch.id).fetch()).scheduledAt, later);
    await alice.v1.scheduledStatuses.$select(sch.id).remove();
    assert.deepEqual(await alice.v1.scheduledStatuses.list(), []);
  });

  await t.test("delete returns the source for redrafting", async () => {
    const st = need(reply, "reply");
    const gone = await bob.v1.statuses.$select(st.id).remove();
    assert.equal(gone.id, st.id);
    assert.equal(gone.text, "@alice welcome #roost");
    await assert.rejects(bob.v1.statuses.$select(st.id).fetch(), (e: { statusCode?: number }) => e.statusCode === 404);
    void listId;
  });
});
