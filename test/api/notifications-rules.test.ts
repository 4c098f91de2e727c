// The notification rules of notify(), notifyNewStatus() and notifyStatusUpdate(), called
// directly (as the statuses, relationships and fan-out code do) and read over HTTP.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { notify, notifyNewStatus, notifyStatusUpdate } from "../../src/services/notifications.ts";
import { updateAccount } from "../../src/storage/accounts.ts";
import {
  block,
  boost,
  clearRelationships,
  deleteStatus,
  domainBlock,
  favourite,
  follow,
  mute,
  muteConversation,
  post,
  remoteAccount,
  requestFollow,
  unfavourite,
  unfollow,
  withdrawRequest,
} from "./notifications-fixtures.ts";

const list = (s: TestServer, who: TestUser, query = "") => s.api<any[]>(who, "GET", `/api/v1/notifications${query}`);

test("notification rules", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const app = s.app;
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  t.afterEach(() => clearRelationships(app));

  await t.test("a favourite notifies once, with the original status, and goes away when undone", async () => {
    const st = post(app, alice);
    favourite(app, bob, st);
    assert.equal(notify(app, { type: "favourite", recipientId: alice.id, fromAccountId: bob.id, statusId: st.id }), true);
    assert.equal(notify(app, { type: "favourite", recipientId: alice.id, fromAccountId: bob.id, statusId: st.id }), false);
    const [n, ...rest] = await list(s, alice);
    assert.equal(rest.length, 0);
    assert.match(n.id, /^\d+$/);
    assert.equal(n.type, "favourite");
    assert.equal(n.account.id, bob.id);
    assert.equal(n.status.id, st.id);
    assert.match(n.group_key, new RegExp(`^favourite-${st.id}-\\d+$`));
    assert.equal(new Date(n.created_at).toISOString(), n.created_at);
    // Mastodon destroys the notification with the favourite, so favouriting again makes one anew.
    unfavourite(app, bob, st);
    assert.deepEqual(await list(s, alice), []);
    favourite(app, bob, st);
    assert.equal(notify(app, { type: "favourite", recipientId: alice.id, fromAccountId: bob.id, statusId: st.id }), true);
    const again = await list(s, alice);
    assert.equal(again.length, 1);
    assert.notEqual(again[0].id, n.id);
    assert.equal(again[0].group_key, n.group_key, "same status within 12 hours: same group");
  });

  await t.test("a reblog notification points at the original and disappears with the boost", async () => {
    const st = post(app, alice);
    const b = boost(app, bob, st);
    assert.equal(notify(app, { type: "reblog", recipientId: alice.id, fromAccountId: bob.id, statusId: b.id }), true);
    const [n] = await list(s, alice);
    assert.equal(n.type, "reblog");
    assert.equal(n.status.id, st.id);
    assert.match(n.group_key, new RegExp(`^reblog-${st.id}-\\d+$`));
    deleteStatus(app, b);
    assert.deepEqual(await list(s, alice), []);
  });

  await t.test("follow and follow_request carry no status and live as long as the relationship", async () => {
    follow(app, bob, alice);
    assert.equal(notify(app, { type: "follow", recipientId: alice.id, fromAccountId: bob.id }), true);
    requestFollow(app, carol, alice);
    assert.equal(notify(app, { type: "follow_request", recipientId: alice.id, fromAccountId: carol.id }), true);
    const ns = await list(s, alice);
    assert.deepEqual(ns.map((n) => [n.type, n.account.id]), [["follow_request", carol.id], ["follow", bob.id]]);
    assert.equal("status" in ns[0], false);
    assert.equal(ns[0].group_key, `ungrouped-${ns[0].id}`);
    assert.match(ns[1].group_key, /^follow-\d+$/);
    withdrawRequest(app, carol, alice);
    unfollow(app, bob, alice);
    assert.deepEqual(await list(s, alice), []);
    // Following again after an unfollow notifies again.
    follow(app, bob, alice);
    assert.equal(notify(app, { type: "follow", recipientId: alice.id, fromAccountId: bob.id }), true);
    assert.equal((await list(s, alice)).length, 1);
  });

  await t.test("mentions: local, not silent, not self; the mention row owns the notification", async () => {
    const remote = remoteAccount(app, "rita", "remote.example");
    const st = post(app, bob, { mentions: [{ id: alice.id }, { id: carol.id, silent: true }, { id: bob.id }, { id: remote.id }] });
    notifyNewStatus(app, st);
    notifyNewStatus(app, st); // a retried fan-out job adds nothing
    const [n, ...rest] = await list(s, alice);
    assert.equal(rest.length, 0);
    assert.equal(n.type, "mention");
    assert.equal(n.status.id, st.id);
    assert.equal(n.group_key, `ungrouped-${n.id}`);
    assert.deepEqual(await list(s, carol), []);
    assert.deepEqual(await list(s, bob), []);
    assert.equal(notify(app, { type: "mention", recipientId: remote.id, fromAccountId: bob.id, statusId: st.id }), false);
    deleteStatus(app, st);
    assert.deepEqual(await list(s, alice), []);
  });

  await t.test("a mention is dropped when it involves an account the recipient blocks", async () => {
    block(app, alice, carol);
    const st = post(app, bob, { mentions: [{ id: alice.id }, { id: carol.id }] });
    notifyNewStatus(app, st);
    assert.deepEqual(await list(s, alice), []);
  });

  await t.test("`status` goes to followers with notify on, except replies to others, direct posts and other languages", async () => {
    follow(app, alice, bob, { notify: true });
    follow(app, carol, bob, { notify: false });
    const pub = post(app, bob);
    notifyNewStatus(app, pub);
    const priv = post(app, bob, { visibility: "private" });
    notifyNewStatus(app, priv);
    const selfReply = post(app, bob, { replyTo: pub });
    notifyNewStatus(app, selfReply);
    notifyNewStatus(app, post(app, bob, { replyTo: post(app, carol) }));
    notifyNewStatus(app, post(app, bob, { visibility: "direct" }));
    notifyNewStatus(app, boost(app, bob, post(app, carol)));
    const ns = await list(s, alice);
    assert.deepEqual(ns.map((n) => [n.type, n.status.id]), [["status", selfReply.id], ["status", priv.id], ["status", pub.id]]);
    assert.deepEqual(await list(s, carol), []);

    unfollow(app, alice, bob);
    follow(app, alice, bob, { notify: true, languages: ["de"] });
    notifyNewStatus(app, post(app, bob, { language: "en" }));
    const de = post(app, bob, { language: "de" });
    notifyNewStatus(app, de);
    // The earlier `status` notifications stay (they belong to the statuses, not the follow).
    assert.deepEqual((await list(s, alice)).map((n) => n.status.id), [de.id, selfReply.id, priv.id, pub.id]);
  });

  await t.test("`status` about a post the recipient cannot see is not made", async () => {
    const priv = post(app, bob, { visibility: "private" });
    assert.equal(notify(app, { type: "status", recipientId: alice.id, fromAccountId: bob.id, statusId: priv.id }), false);
    assert.equal(notify(app, { type: "favourite", recipientId: alice.id, fromAccountId: bob.id, statusId: "123" }), false);
  });

  await t.test("`update` goes to local boosters of an edited status, once per edit", async () => {
    const st = post(app, bob);
    boost(app, alice, st);
    notifyStatusUpdate(app, st);
    notifyStatusUpdate(app, st);
    const ns = await list(s, alice);
    assert.deepEqual(ns.map((n) => [n.type, n.account.id, n.status.id]), [["update", bob.id, st.id], ["update", bob.id, st.id]]);
    assert.deepEqual(await list(s, carol), []);
  });

  await t.test("none to oneself, to remote accounts or from a block in either direction", async () => {
    const st = post(app, alice);
    assert.equal(notify(app, { type: "favourite", recipientId: alice.id, fromAccountId: alice.id, statusId: st.id }), false);
    const remote = remoteAccount(app, "ron", "remote.example");
    assert.equal(notify(app, { type: "follow", recipientId: remote.id, fromAccountId: alice.id }), false);
    block(app, alice, bob);
    assert.equal(notify(app, { type: "follow", recipientId: alice.id, fromAccountId: bob.id }), false);
    block(app, carol, alice);
    assert.equal(notify(app, { type: "follow", recipientId: alice.id, fromAccountId: carol.id }), false);
    assert.deepEqual(await list(s, alice), []);
  });

  await t.test("mutes: hidden notifications stop them; a plain or expired mute does not", async () => {
    mute(app, alice, bob, { hideNotifications: true });
    assert.equal(notify(app, { type: "follow", recipientId: alice.id, fromAccountId: bob.id }), false);
    mute(app, alice, carol, { hideNotifications: false });
    assert.equal(notify(app, { type: "follow", recipientId: alice.id, fromAccountId: carol.id }), true);
    clearRelationships(app);
    mute(app, alice, bob, { hideNotifications: true, expiresAt: app.now() - 1000 });
    assert.equal(notify(app, { type: "follow", recipientId: alice.id, fromAccountId: bob.id }), true);
  });

  await t.test("a domain block stops notifications from that domain unless the sender is followed", async () => {
    const remote = remoteAccount(app, "dora", "Blocked.example");
    const st = post(app, alice);
    domainBlock(app, alice, "blocked.example");
    assert.equal(notify(app, { type: "favourite", recipientId: alice.id, fromAccountId: remote.id, statusId: st.id }), false);
    follow(app, alice, remote);
    assert.equal(notify(app, { type: "favourite", recipientId: alice.id, fromAccountId: remote.id, statusId: st.id }), true);
  });

  await t.test("a muted conversation stops mentions, replies, favourites and reblogs in it", async () => {
    const root = post(app, alice);
    muteConversation(app, alice, root);
    const reply = post(app, bob, { replyTo: root, mentions: [{ id: alice.id }] });
    notifyNewStatus(app, reply);
    assert.equal(notify(app, { type: "favourite", recipientId: alice.id, fromAccountId: bob.id, statusId: root.id }), false);
    assert.equal(notify(app, { type: "reblog", recipientId: alice.id, fromAccountId: bob.id, statusId: boost(app, bob, root).id }), false);
    assert.deepEqual(await list(s, alice), []);
    const other = post(app, alice);
    assert.equal(notify(app, { type: "favourite", recipientId: alice.id, fromAccountId: bob.id, statusId: other.id }), true);
  });

  await t.test("a silenced account's notifications are filtered unless followed (the default for_limited_accounts)", async () => {
    updateAccount(app.db, bob.id, { silencedAt: app.now() });
    try {
      assert.equal(notify(app, { type: "follow", recipientId: alice.id, fromAccountId: bob.id }), true);
      assert.deepEqual(await list(s, alice), []);
      const [held] = await list(s, alice, "?include_filtered=true");
      assert.deepEqual([held.type, held.account.id, held.filtered, held.group_key], ["follow", bob.id, true, `ungrouped-${held.id}`]);
      clearRelationships(app);
      follow(app, alice, bob);
      assert.equal(notify(app, { type: "follow", recipientId: alice.id, fromAccountId: bob.id }), true);
      const [n] = await list(s, alice);
      assert.equal(n.account.id, bob.id);
      assert.equal("filtered" in n, false);
    } finally {
      updateAccount(app.db, bob.id, { silencedAt: null });
    }
  });
});
