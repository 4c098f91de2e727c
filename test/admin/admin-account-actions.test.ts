// POST /api/v1/admin/accounts/:id/action and the state changes around it (Mastodon's
// Admin::AccountAction, AccountPolicy, UserPolicy): ranks, warnings, reports, the audit log.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { findAccountById } from "../../src/storage/accounts.ts";
import { listAccountWarnings } from "../../src/storage/account-warnings.ts";
import { findReportById } from "../../src/storage/reports.ts";
import { findUserByAccountId } from "../../src/storage/users.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { auditCount, lastAudit, makeStaff, type Staff } from "./admin-helpers.ts";

let s: TestServer;
let staff: Staff;

before(async () => {
  s = await startTestServer();
  staff = await makeStaff(s);
});
after(() => s.close());

const action = (who: any, id: string, body: Record<string, unknown>) => s.req(who, "POST", `/api/v1/admin/accounts/${id}/action`, body);

test("nobody acts on an equal or higher role: moderator < admin < owner", async () => {
  const mod2 = await s.user("mod2", { role: "moderator" });
  const cases: [any, string, number][] = [
    [staff.mod, mod2.id, 403], // equal
    [staff.mod, staff.admin.id, 403], // higher
    [staff.mod, staff.owner.id, 403],
    [staff.admin, staff.owner.id, 403],
    [staff.admin, staff.admin.id, 403], // oneself: equal
  ];
  for (const [who, target, status] of cases) {
    const r = await action(who, target, { type: "silence" });
    assert.deepEqual([who.username, target, r.status, r.body], [who.username, target, status, { error: "This action is not allowed" }]);
  }
  assert.equal(findAccountById(s.app.db, staff.owner.id)!.silencedAt, null, "nothing changed");
  // Upwards in the hierarchy it works.
  assert.equal((await action(staff.admin, mod2.id, { type: "silence", send_email_notification: false })).status, 200);
  assert.equal((await action(staff.owner, staff.admin.id, { type: "none", text: "careful" })).status, 200);
});

test("bad input: missing or unknown type, unknown account, report or preset", async () => {
  const bob = await s.user("bob1");
  const before = auditCount(s);
  const missing = await action(staff.mod, bob.id, {});
  assert.equal(missing.status, 422);
  assert.match(missing.body.error, /^Validation failed: Type/);
  assert.equal((await action(staff.mod, bob.id, { type: "obliterate" })).status, 422);
  assert.equal((await action(staff.mod, "12345", { type: "silence" })).status, 404);
  assert.equal((await action(staff.mod, bob.id, { type: "silence", report_id: "12345" })).status, 404);
  assert.equal((await action(staff.mod, bob.id, { type: "silence", warning_preset_id: "12345" })).status, 404);
  assert.equal(auditCount(s), before, "refused actions leave no trace");
  assert.equal(findAccountById(s.app.db, bob.id)!.silencedAt, null);
});

test("silence, sensitive, disable and suspend: the state, an AccountWarning, the audit entry with its changes", async () => {
  for (const type of ["silence", "sensitive", "disable", "suspend"]) {
    const target = await s.user(`t${type}`);
    const r = await action(staff.mod, target.id, { type, text: `about ${type}` });
    assert.deepEqual([type, r.status, r.body], [type, 200, {}]);
    const a = findAccountById(s.app.db, target.id)!;
    const u = findUserByAccountId(s.app.db, target.id)!;
    const entry = lastAudit(s, type);
    assert.equal(entry.accountId, staff.mod.id);
    assert.equal(entry.actorName, "mod1");
    assert.equal(entry.source, "api");
    if (type === "disable") {
      assert.equal(u.disabled, true);
      assert.deepEqual([entry.targetType, entry.targetId, entry.changes], ["User", u.id, { disabled: [false, true] }]);
    } else {
      assert.deepEqual([entry.targetType, entry.targetId, entry.humanIdentifier], ["Account", target.id, `t${type}`]);
      const column = { silence: "silenced_at", sensitive: "sensitized_at", suspend: "suspended_at" }[type]!;
      assert.deepEqual(Object.keys(entry.changes).sort(), type === "suspend" ? ["suspended_at", "suspension_origin"] : [column]);
      assert.equal(entry.changes[column][0], null);
      assert.match(String(entry.changes[column][1]), /^\d{4}-/);
    }
    if (type === "silence") assert.ok(a.silencedAt);
    if (type === "sensitive") assert.ok(a.sensitizedAt);
    if (type === "suspend") assert.deepEqual([!!a.suspendedAt, a.suspensionOrigin], [true, "local"]);
    const [w] = listAccountWarnings(s.app.db, target.id);
    assert.deepEqual([w.action, w.text, w.accountId], [type, `about ${type}`, staff.mod.id]);
  }
  // The admin view shows the states.
  const shown = await s.api(staff.mod, "GET", `/api/v2/admin/accounts?status=silenced`);
  assert.ok(shown.some((a: any) => a.username === "tsilence" && a.silenced === true));
});

test("a warning (type none) reaches the user as a moderation_warning notification; custom text is audited", async () => {
  const carl = await s.user("carl");
  assert.equal((await action(staff.mod, carl.id, { type: "none", text: "Please add image descriptions." })).status, 200);
  const [n] = await s.api(carl, "GET", "/api/v1/notifications");
  assert.equal(n.type, "moderation_warning");
  assert.equal(n.moderation_warning.action, "none");
  assert.equal(n.moderation_warning.text, "Please add image descriptions.");
  assert.equal(n.moderation_warning.target_account.id, carl.id);
  assert.equal(n.moderation_warning.appeal, null);
  const entry = lastAudit(s, "create");
  assert.deepEqual([entry.targetType, entry.changes], ["AccountWarning", { text: [null, "Please add image descriptions."] }]);
  // send_email_notification=false: recorded, not notified.
  await action(staff.mod, carl.id, { type: "none", text: "quiet", send_email_notification: "false" });
  assert.equal((await s.api(carl, "GET", "/api/v1/notifications")).length, 1);
  assert.equal(listAccountWarnings(s.app.db, carl.id).length, 2);
  // A warning's text is bounded: 5000 characters pass, 5001 are a 422 and nothing is recorded.
  assert.equal((await action(staff.mod, carl.id, { type: "none", text: "é".repeat(5000) })).status, 200);
  const long = await action(staff.mod, carl.id, { type: "none", text: "é".repeat(5001) });
  assert.equal(long.status, 422);
  assert.match(long.body.error, /Text is too long \(maximum is 5000 characters\)/);
  assert.equal(listAccountWarnings(s.app.db, carl.id).length, 3);
});

test("an action resolves its report; anything but a warning resolves every open report about the account", async () => {
  const dan = await s.user("dan");
  const r1 = await s.user("reporter1");
  const r2 = await s.user("reporter2");
  const a = await s.api(r1, "POST", "/api/v1/reports", { account_id: dan.id, comment: "spam" });
  const b = await s.api(r2, "POST", "/api/v1/reports", { account_id: dan.id, comment: "more spam" });
  await action(staff.mod, dan.id, { type: "none", report_id: a.id, text: "warned" });
  assert.ok(findReportById(s.app.db, a.id)!.actionTakenAt, "the report acted on");
  assert.equal(findReportById(s.app.db, b.id)!.actionTakenAt, null, "a warning leaves the others open");
  await action(staff.mod, dan.id, { type: "silence" });
  const rb = findReportById(s.app.db, b.id)!;
  assert.ok(rb.actionTakenAt);
  assert.equal(rb.actionTakenByAccountId, staff.mod.id);
  const entry = lastAudit(s, "resolve");
  assert.deepEqual([entry.targetType, entry.targetId], ["Report", b.id]);
  assert.deepEqual(entry.changes.action_taken_by_account_id, [null, staff.mod.id]);
  const [w] = listAccountWarnings(s.app.db, dan.id);
  assert.equal(w.action, "silence");
});

test("approve and reject sign-ups; enable, unsilence, unsensitive, unsuspend undo their actions", async () => {
  const p1 = await s.user("pending1", { approved: false });
  const p2 = await s.user("pending2", { approved: false });
  const ok = await s.api(staff.mod, "POST", `/api/v1/admin/accounts/${p1.id}/approve`);
  assert.equal(ok.approved, true);
  assert.deepEqual(lastAudit(s, "approve").changes, { approved: [false, true] });
  // Approved and confirmed: the account is active, and staff get admin.sign_up (Mastodon's
  // notify_staff! on approval).
  const signUps = await s.api(staff.admin, "GET", "/api/v1/notifications?types[]=admin.sign_up");
  assert.deepEqual(signUps.map((n: any) => n.account.id), [p1.id]);
  assert.equal((await s.req(staff.mod, "POST", `/api/v1/admin/accounts/${p1.id}/approve`)).status, 403, "only a pending user");
  assert.deepEqual(await s.api(staff.mod, "POST", `/api/v1/admin/accounts/${p2.id}/reject`), {});
  assert.equal(findAccountById(s.app.db, p2.id), undefined, "a rejected sign-up is deleted");
  assert.equal(lastAudit(s, "reject").humanIdentifier, "pending2");

  const eve = await s.user("eve");
  for (const type of ["disable", "silence", "sensitive", "suspend"]) await action(staff.admin, eve.id, { type, send_email_notification: false });
  const en = await s.api(staff.mod, "POST", `/api/v1/admin/accounts/${eve.id}/enable`);
  assert.equal(en.disabled, false);
  assert.deepEqual(lastAudit(s, "enable").changes, { disabled: [true, false] });
  const us = await s.api(staff.mod, "POST", `/api/v1/admin/accounts/${eve.id}/unsilence`);
  assert.equal(us.silenced, false);
  assert.equal(lastAudit(s, "unsilence").changes.silenced_at[1], null);
  const un = await s.api(staff.mod, "POST", `/api/v1/admin/accounts/${eve.id}/unsensitive`);
  assert.equal(un.sensitized, false);
  const uz = await s.api(staff.mod, "POST", `/api/v1/admin/accounts/${eve.id}/unsuspend`);
  assert.equal(uz.suspended, false);
  assert.equal(lastAudit(s, "unsuspend").targetId, eve.id);
  // Not suspended (any more): unsuspend is refused, as Mastodon's policy does.
  assert.equal((await s.req(staff.mod, "POST", `/api/v1/admin/accounts/${eve.id}/unsuspend`)).status, 403);
});

test("DELETE needs delete_user_data and a suspended account awaiting deletion", async () => {
  const zed = await s.user("zed");
  assert.equal((await s.req(staff.admin, "DELETE", `/api/v1/admin/accounts/${zed.id}`)).status, 403, "not suspended");
  await action(staff.admin, zed.id, { type: "suspend", send_email_notification: false });
  assert.equal((await s.req(staff.mod, "DELETE", `/api/v1/admin/accounts/${zed.id}`)).status, 403, "moderators lack delete_user_data");
  assert.deepEqual(await s.api(staff.admin, "DELETE", `/api/v1/admin/accounts/${zed.id}`), {});
  assert.deepEqual([lastAudit(s, "destroy").targetType, lastAudit(s, "destroy").targetId], ["Account", zed.id]);
  await s.drainJobs();
  assert.ok(findAccountById(s.app.db, zed.id), "the account row stays: its name is reserved");
  assert.equal(lastAudit(s, "purge").targetId, zed.id);
  assert.equal((await s.req(staff.admin, "DELETE", `/api/v1/admin/accounts/${zed.id}`)).status, 403, "nothing left to delete");
});
