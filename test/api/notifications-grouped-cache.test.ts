// Pages of /api/v2/notifications are cached per recipient (services/notification-group-pages.ts):
// each test reads a page, changes one thing the page depends on, and reads it again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { updateAccount } from "../../src/storage/accounts.ts";
import { mute, remoteAccount } from "./notifications-fixtures.ts";
import { notify } from "../../src/services/notifications.ts";

const HOUR = 3_600_000;

/** "type:count:sample usernames" per group, newest first. */
async function page(s: TestServer, who: TestUser, names: Map<string, string>) {
  await s.drainJobs();
  const body = await s.api(who, "GET", "/api/v2/notifications");
  return body.notification_groups.map(
    (g: any) => `${g.type}:${g.notifications_count}:${g.sample_account_ids.map((id: string) => names.get(id) ?? id).join(",")}`,
  );
}

test("cached grouped pages follow every change they depend on", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol] = [await s.user("alice"), await s.user("bob"), await s.user("carol")];
  const names = new Map([alice, bob, carol].map((u) => [u.id, u.username]));
  const realNow = s.app.now;
  t.afterEach(async () => {
    s.app.now = realNow;
    await s.api(alice, "POST", "/api/v2/notifications/clear");
    s.app.db.exec("DELETE FROM mutes; DELETE FROM blocks");
  });
  const favourite = async (who: TestUser, id: string) => s.api(who, "POST", `/api/v1/statuses/${id}/favourite`);

  await t.test("new and dismissed notifications", async () => {
    const p = await s.api(alice, "POST", "/api/v1/statuses", { status: "cache me" });
    await favourite(bob, p.id);
    assert.deepEqual(await page(s, alice, names), ["favourite:1:bob"]);
    assert.deepEqual(await page(s, alice, names), ["favourite:1:bob"]);
    await favourite(carol, p.id);
    assert.deepEqual(await page(s, alice, names), ["favourite:2:carol,bob"]);
    await s.api(carol, "POST", `/api/v1/statuses/${p.id}/unfavourite`);
    assert.deepEqual(await page(s, alice, names), ["favourite:1:bob"]);
    await s.api(bob, "POST", "/api/v1/statuses", { status: "@alice hey" });
    assert.deepEqual(await page(s, alice, names), ["mention:1:bob", "favourite:1:bob"]);
    const [mention] = (await s.api(alice, "GET", "/api/v2/notifications")).notification_groups;
    await s.api(alice, "POST", `/api/v2/notifications/${mention.group_key}/dismiss`);
    assert.deepEqual(await page(s, alice, names), ["favourite:1:bob"]);
    await s.api(bob, "DELETE", `/api/v1/statuses/${(await s.api(bob, "POST", "/api/v1/statuses", { status: "@alice gone soon" })).id}`);
    assert.deepEqual(await page(s, alice, names), ["favourite:1:bob"]);
  });

  await t.test("a sender who blocks the recipient, and unblocks", async () => {
    const p = await s.api(alice, "POST", "/api/v1/statuses", { status: "blockable" });
    await favourite(bob, p.id);
    await favourite(carol, p.id);
    assert.deepEqual(await page(s, alice, names), ["favourite:2:carol,bob"]);
    await s.api(carol, "POST", `/api/v1/accounts/${alice.id}/block`);
    assert.deepEqual(await page(s, alice, names), ["favourite:1:bob"]);
    await s.api(carol, "POST", `/api/v1/accounts/${alice.id}/unblock`);
    assert.deepEqual(await page(s, alice, names), ["favourite:2:carol,bob"]);
  });

  await t.test("a mute hiding notifications, until it expires", async () => {
    const p = await s.api(alice, "POST", "/api/v1/statuses", { status: "mutable" });
    await favourite(bob, p.id);
    await favourite(carol, p.id);
    // As a mute made elsewhere would leave them (the mute endpoint also deletes them).
    mute(s.app, alice, carol, { hideNotifications: true, expiresAt: realNow() + HOUR });
    assert.deepEqual(await page(s, alice, names), ["favourite:1:bob"]);
    s.app.now = () => realNow() + 2 * HOUR;
    assert.deepEqual(await page(s, alice, names), ["favourite:2:carol,bob"]);
  });

  await t.test("a domain block, and following an account on that domain", async () => {
    const p = await s.api(alice, "POST", "/api/v1/statuses", { status: "far away" });
    const remote = remoteAccount(s.app, "rhea", "far.example");
    names.set(remote.id, "rhea");
    await favourite(bob, p.id);
    notify(s.app, { type: "favourite", recipientId: alice.id, fromAccountId: remote.id, statusId: p.id });
    assert.deepEqual(await page(s, alice, names), ["favourite:2:rhea,bob"]);
    await s.api(alice, "POST", "/api/v1/domain_blocks", { domain: "far.example" });
    assert.deepEqual(await page(s, alice, names), ["favourite:1:bob"]);
    await s.api(alice, "DELETE", "/api/v1/domain_blocks", { domain: "far.example" });
  });

  await t.test("a sender suspended since: left out of the samples when rendered", async () => {
    const p = await s.api(alice, "POST", "/api/v1/statuses", { status: "suspicious" });
    await favourite(bob, p.id);
    await favourite(carol, p.id);
    assert.deepEqual(await page(s, alice, names), ["favourite:2:carol,bob"]);
    updateAccount(s.app.db, carol.id, { suspendedAt: realNow() });
    try {
      const [g] = await page(s, alice, names);
      assert.match(g, /^favourite:\d:bob$/);
    } finally {
      updateAccount(s.app.db, carol.id, { suspendedAt: null });
    }
  });
});
