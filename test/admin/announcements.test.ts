// roost's admin API for announcements (Mastodon has it in its web admin only): the
// manage_announcements permission and the admin scopes, validation, the Admin entity, and an
// audit entry per change with Mastodon's action and target names.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { listActionLogs } from "../../src/storage/admin-action-logs.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { auditCount, lastAudit, makeStaff, type Staff } from "./admin-helpers.ts";

let s: TestServer;
let staff: Staff;
before(async () => {
  s = await startTestServer();
  staff = await makeStaff(s);
});
after(() => s.close());

const PATH = "/api/roost/v1/admin/announcements";

test("manage_announcements: admins and the owner may; moderators, users and tokens without admin scopes may not", async () => {
  const before = auditCount(s);
  for (const who of [staff.mod, staff.plain]) {
    assert.deepEqual(await s.req(who, "GET", PATH).then((r) => [r.status, r.body]), [403, { error: "This action is not allowed" }]);
    assert.equal((await s.req(who, "POST", PATH, { text: "no" })).status, 403);
  }
  const user = await s.user("uma", { scopes: ["read", "write"] });
  assert.deepEqual(await s.req(user, "GET", PATH).then((r) => [r.status, r.body]), [403, { error: "This action is outside the authorized scopes" }]);
  assert.equal((await s.req(null, "POST", PATH, { text: "no" })).status, 403, "no token: 403 as Mastodon's admin API");
  const readOnly = await s.user("ralph", { role: "admin", scopes: ["admin:read"] });
  assert.equal((await s.req(readOnly, "GET", PATH)).status, 200);
  assert.equal((await s.req(readOnly, "POST", PATH, { text: "no" })).status, 403);
  assert.equal(auditCount(s), before, "refusals leave no entry");
  assert.equal((await s.api(staff.admin, "GET", PATH)).length, 0);
});

test("create, show, update, publish, unpublish, delete: the entity and one audit entry each", async () => {
  const made = await s.api(staff.admin, "POST", PATH, { text: "Hello @owner #news", starts_at: "2030-05-01", ends_at: "2030-05-02", all_day: true });
  assert.equal(made.text, "Hello @owner #news");
  assert.equal(made.published, true, "published at once without scheduled_at");
  assert.equal(made.scheduled_at, null);
  assert.deepEqual([made.starts_at, made.ends_at, made.all_day], ["2030-05-01T00:00:00.000Z", "2030-05-02T00:00:00.000Z", true]);
  assert.deepEqual(made.mentions.map((m: any) => m.acct), ["owner"]);
  assert.equal(made.published_at, made.created_at);
  assert.equal("read" in made, false);
  const created = lastAudit(s, "create");
  assert.deepEqual([created.targetType, created.targetId, created.humanIdentifier, created.actorName, created.source], ["Announcement", made.id, "Hello @owner #news", "admin1", "api"]);
  assert.deepEqual(created.changes, {
    text: [null, "Hello @owner #news"],
    starts_at: [null, "2030-05-01T00:00:00.000Z"],
    ends_at: [null, "2030-05-02T00:00:00.000Z"],
    all_day: [null, true],
    published: [null, true],
    published_at: [null, made.published_at],
  });

  assert.deepEqual(await s.api(staff.owner, "GET", `${PATH}/${made.id}`), made);
  assert.equal((await s.req(staff.admin, "GET", `${PATH}/12345`)).status, 404);
  assert.equal((await s.req(staff.admin, "GET", `${PATH}/x`)).status, 404);

  const edited = await s.api(staff.admin, "PUT", `${PATH}/${made.id}`, { text: "Hello everyone", starts_at: "", ends_at: "" });
  assert.deepEqual([edited.text, edited.content, edited.mentions, edited.starts_at, edited.ends_at, edited.all_day], ["Hello everyone", "<p>Hello everyone</p>", [], null, null, true]);
  assert.deepEqual(lastAudit(s, "update").changes, {
    text: ["Hello @owner #news", "Hello everyone"],
    starts_at: ["2030-05-01T00:00:00.000Z", null],
    ends_at: ["2030-05-02T00:00:00.000Z", null],
  });
  assert.equal((await s.api(staff.admin, "PATCH", `${PATH}/${made.id}`, { all_day: false })).all_day, false);

  const off = await s.api(staff.admin, "POST", `${PATH}/${made.id}/unpublish`);
  assert.equal(off.published, false);
  assert.deepEqual(lastAudit(s, "update").changes, { published: [true, false] });
  assert.deepEqual(await s.api(staff.plain, "GET", "/api/v1/announcements"), []);
  const on = await s.api(staff.admin, "POST", `${PATH}/${made.id}/publish`);
  assert.equal(on.published, true);
  assert.deepEqual(lastAudit(s, "update").changes.published, [false, true]);
  assert.deepEqual((await s.api(staff.plain, "GET", "/api/v1/announcements")).map((a: any) => a.id), [made.id]);

  assert.deepEqual(await s.api(staff.owner, "DELETE", `${PATH}/${made.id}`), {});
  const destroyed = lastAudit(s, "destroy");
  assert.deepEqual([destroyed.targetType, destroyed.targetId, destroyed.actorName], ["Announcement", made.id, "owner"]);
  assert.equal((await s.req(staff.admin, "DELETE", `${PATH}/${made.id}`)).status, 404);
  assert.equal(listActionLogs(s.app.db, { targetId: made.id, limit: 100 }).length, 6);
});

test("validation: text required and bounded, both event times or neither, real dates, an end after the start", async () => {
  const err = (body: Record<string, unknown>) => s.req(staff.admin, "POST", PATH, body).then((r) => [r.status, r.body.error]);
  assert.deepEqual(await err({}), [422, "Validation failed: Text can't be blank"]);
  assert.deepEqual(await err({ text: "  " }), [422, "Validation failed: Text can't be blank"]);
  assert.deepEqual(await err({ text: "x".repeat(10_001) }), [422, "Validation failed: Text is too long (maximum is 10000 characters)"]);
  assert.deepEqual(await err({ text: "a", starts_at: "2030-01-01" }), [422, "Validation failed: Ends at can't be blank"]);
  assert.deepEqual(await err({ text: "a", ends_at: "2030-01-01" }), [422, "Validation failed: Starts at can't be blank"]);
  assert.deepEqual(await err({ text: "a", starts_at: "tomorrow", ends_at: "2030-01-01" }), [422, "Validation failed: Starts at is invalid"]);
  assert.deepEqual(await err({ text: "a", starts_at: "2030-01-02", ends_at: "2030-01-01" }), [422, "Validation failed: Ends at must be after the start"]);
  assert.deepEqual(await err({ text: "a", scheduled_at: "2030-02-30" }), [422, "Validation failed: Scheduled at is invalid"]);
  const ok = await s.api(staff.admin, "POST", PATH, { text: "fine" });
  assert.deepEqual(await s.req(staff.admin, "PUT", `${PATH}/${ok.id}`, { text: "" }).then((r) => [r.status, r.body.error]), [422, "Validation failed: Text can't be blank"]);
  assert.equal((await s.api(staff.admin, "GET", `${PATH}/${ok.id}`)).text, "fine", "nothing changed");
  await s.api(staff.admin, "DELETE", `${PATH}/${ok.id}`);
});

test("a scheduled announcement waits unpublished; the admin list shows every announcement, newest first", async () => {
  const now = s.app.now();
  const planned = await s.api(staff.admin, "POST", PATH, { text: "planned", scheduled_at: new Date(now + 86_400_000).toISOString() });
  assert.deepEqual([planned.published, planned.published_at, planned.scheduled_at], [false, null, new Date(now + 86_400_000).toISOString()]);
  const past = await s.api(staff.admin, "POST", PATH, { text: "already due", scheduled_at: new Date(now - 60_000).toISOString() });
  assert.equal(past.published, true, "a time in the past publishes at once (Mastodon's set_published)");
  const listed = await s.api(staff.admin, "GET", PATH);
  assert.deepEqual(listed.map((a: any) => a.text), ["planned", "already due"]);
  assert.deepEqual((await s.api(staff.plain, "GET", "/api/v1/announcements")).map((a: any) => a.content), ["<p>already due</p>"]);
  for (const a of listed) await s.api(staff.admin, "DELETE", `${PATH}/${a.id}`);
});
