// The admin reports API (endpoints-admin.md §2) and the seed's state table:
// unresolved --resolve (optionally with a note)--> resolved (audited) --reopen--> unresolved.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { insertRule } from "../../src/storage/rules.ts";
import { findReportById } from "../../src/storage/reports.ts";
import { listModerationNotes } from "../../src/storage/moderation-notes.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { lastAudit, makeStaff, type Staff } from "./admin-helpers.ts";
import { resolveReport, reopenReport } from "../../src/admin/reports.ts";
import { makeActor } from "../../src/admin/actor.ts";
import { addNote, deleteNote } from "../../src/admin/notes.ts";
import { findAccountById } from "../../src/storage/accounts.ts";
import { findUserByAccountId } from "../../src/storage/users.ts";

let s: TestServer;
let staff: Staff;
let spammer: TestUser, reporter: TestUser;
let report: any;
let postId: string;
let ruleId: string;

before(async () => {
  s = await startTestServer();
  staff = await makeStaff(s);
  spammer = await s.user("spammer");
  reporter = await s.user("reporter");
  const post = await s.api(spammer, "POST", "/api/v1/statuses", { status: "buy now" });
  postId = post.id;
  report = await s.api(reporter, "POST", "/api/v1/reports", { account_id: spammer.id, status_ids: [post.id], comment: "spam!", category: "spam" });
  ruleId = s.app.ids.next();
  insertRule(s.app.db, { id: ruleId, text: "No spam", hint: "", position: 0, createdAt: s.app.now() });
});
after(() => s.close());

test("list and show: manage_reports needed; Admin::Report with accounts as Admin::Account", async () => {
  assert.equal((await s.req(staff.plain, "GET", "/api/v1/admin/reports")).status, 403);
  assert.equal((await s.req(null, "GET", "/api/v1/admin/reports")).status, 403);
  for (const who of [staff.mod, staff.admin, staff.owner]) {
    const list = await s.api(who, "GET", "/api/v1/admin/reports");
    assert.deepEqual(list.map((r: any) => r.id), [report.id]);
  }
  const r = await s.api(staff.mod, "GET", `/api/v1/admin/reports/${report.id}`);
  assert.equal(r.action_taken, false);
  assert.equal(r.category, "spam");
  assert.equal(r.comment, "spam!");
  assert.equal(r.account.id, reporter.id);
  assert.equal(r.account.email, "reporter@example.test", "Admin::Account, not Account");
  assert.equal(r.target_account.username, "spammer");
  assert.equal(r.assigned_account, null);
  assert.equal(r.action_taken_by_account, null);
  assert.deepEqual(r.statuses.map((x: any) => [x.id, x.content]), [[postId, "<p>buy now</p>"]]);
  assert.deepEqual(r.rules, []);
  assert.equal((await s.req(staff.mod, "GET", "/api/v1/admin/reports/424242")).status, 404);
  // Filters.
  assert.deepEqual(await s.api(staff.mod, "GET", `/api/v1/admin/reports?target_account_id=${reporter.id}`), []);
  assert.equal((await s.api(staff.mod, "GET", `/api/v1/admin/reports?account_id=${reporter.id}`)).length, 1);
  assert.deepEqual(await s.api(staff.mod, "GET", "/api/v1/admin/reports?resolved=true"), []);
  assert.equal((await s.api(staff.mod, "GET", "/api/v1/admin/reports?target_origin=local")).length, 1);
  assert.deepEqual(await s.api(staff.mod, "GET", "/api/v1/admin/reports?target_origin=remote"), []);
});

test("PUT category and rule_ids: rules only with a violation (422 otherwise); audited", async () => {
  const bad = await s.req(staff.mod, "PUT", `/api/v1/admin/reports/${report.id}`, { category: "spam", rule_ids: [ruleId] });
  assert.deepEqual([bad.status, bad.body.error], [422, "Validation failed: Rule ids does not reference valid rules"]);
  const unknownRule = await s.req(staff.mod, "PUT", `/api/v1/admin/reports/${report.id}`, { category: "violation", rule_ids: ["999"] });
  assert.equal(unknownRule.status, 422);
  const badCategory = await s.req(staff.mod, "PUT", `/api/v1/admin/reports/${report.id}`, { category: "rudeness" });
  assert.equal(badCategory.status, 422);
  const ok = await s.api(staff.mod, "PUT", `/api/v1/admin/reports/${report.id}`, { category: "violation", rule_ids: [ruleId] });
  assert.equal(ok.category, "violation");
  assert.deepEqual(ok.rules.map((r: any) => r.text), ["No spam"]);
  const entry = lastAudit(s, "update");
  assert.deepEqual(entry.changes, { category: ["spam", "violation"], rule_ids: [[], [ruleId]] });
  // Back to another category: the rules go.
  const back = await s.api(staff.mod, "PUT", `/api/v1/admin/reports/${report.id}`, { category: "other" });
  assert.deepEqual([back.category, back.rules], ["other", []]);
});

test("assign_to_self and unassign", async () => {
  const a = await s.api(staff.mod, "POST", `/api/v1/admin/reports/${report.id}/assign_to_self`);
  assert.equal(a.assigned_account.id, staff.mod.id);
  assert.deepEqual(lastAudit(s, "assigned_to_self").changes, { assigned_account_id: [null, staff.mod.id] });
  const u = await s.api(staff.admin, "POST", `/api/v1/admin/reports/${report.id}/unassign`);
  assert.equal(u.assigned_account, null);
  assert.deepEqual([lastAudit(s, "unassigned").accountId, lastAudit(s, "unassigned").changes], [staff.admin.id, { assigned_account_id: [staff.mod.id, null] }]);
});

test("the seed's state table: resolve (audited) then reopen; repeating a transition changes nothing", async () => {
  const r = await s.api(staff.mod, "POST", `/api/v1/admin/reports/${report.id}/resolve`);
  assert.equal(r.action_taken, true);
  assert.match(r.action_taken_at, /^\d{4}-/);
  assert.equal(r.action_taken_by_account.id, staff.mod.id);
  const resolved = lastAudit(s, "resolve");
  assert.deepEqual([resolved.targetType, resolved.targetId, resolved.accountId], ["Report", report.id, staff.mod.id]);
  assert.deepEqual(resolved.changes.action_taken_by_account_id, [null, staff.mod.id]);
  const again = await s.api(staff.mod, "POST", `/api/v1/admin/reports/${report.id}/resolve`);
  assert.equal(again.action_taken_at, r.action_taken_at, "resolving a resolved report changes nothing");
  assert.equal(lastAudit(s, "resolve").id, resolved.id);
  assert.deepEqual((await s.api(staff.mod, "GET", "/api/v1/admin/reports?resolved=true")).map((x: any) => x.id), [report.id]);
  assert.deepEqual(await s.api(staff.mod, "GET", "/api/v1/admin/reports"), [], "resolved reports leave the default list");
  assert.equal((await s.api(staff.mod, "GET", "/api/v1/admin/reports?resolved=true&unresolved=true")).length, 1);
  const o = await s.api(staff.mod, "POST", `/api/v1/admin/reports/${report.id}/reopen`);
  assert.deepEqual([o.action_taken, o.action_taken_at, o.action_taken_by_account], [false, null, null]);
  assert.equal(lastAudit(s, "reopen").targetId, report.id);
  // Unknown reports.
  assert.equal((await s.req(staff.mod, "POST", "/api/v1/admin/reports/555/resolve")).status, 404);
  assert.equal((await s.req(staff.plain, "POST", `/api/v1/admin/reports/${report.id}/resolve`)).status, 403);
});

test("resolve with a note; notes are added and deleted by their author or someone who outranks them", () => {
  const actorOf = (u: TestUser) => makeActor(s.app, findUserByAccountId(s.app.db, u.id)!, findAccountById(s.app.db, u.id)!, "cli");
  const mod = actorOf(staff.mod);
  const current = () => s.app.db.prepare("SELECT action_taken_at FROM reports WHERE id = ?").get(BigInt(report.id)) as { action_taken_at: bigint | null };
  resolveReport(s.app, mod, findReportById(s.app.db, report.id)!, "Suspended them, see account notes");
  assert.ok(current().action_taken_at !== null);
  const [note] = listModerationNotes(s.app.db, "report", report.id);
  assert.deepEqual([note.content, note.accountId], ["Suspended them, see account notes", staff.mod.id]);
  assert.equal(lastAudit(s, "create").targetType, "ReportNote");
  assert.equal(lastAudit(s, "resolve").source, "cli");
  reopenReport(s.app, mod, findReportById(s.app.db, report.id)!);
  // Blank and huge notes are refused.
  assert.throws(() => addNote(s.app, mod, "report", report.id, "   "), /Content can't be blank/);
  assert.throws(() => addNote(s.app, mod, "report", report.id, "x".repeat(2001)), /too long/);
  // The plain user may not write notes; the owner may delete the moderator's, the moderator not the owner's.
  assert.throws(() => addNote(s.app, actorOf(staff.plain), "report", report.id, "hi"), /not allowed/);
  const ownerNote = addNote(s.app, actorOf(staff.owner), "report", report.id, "owner's");
  assert.throws(() => deleteNote(s.app, mod, "report", ownerNote.id), /not allowed/);
  deleteNote(s.app, actorOf(staff.owner), "report", note.id);
  assert.deepEqual(lastAudit(s, "destroy").changes, { content: ["Suspended them, see account notes", null] });
  assert.throws(() => deleteNote(s.app, mod, "report", "123"), /Record not found/);
  assert.throws(() => deleteNote(s.app, mod, "account", ownerNote.id), /Record not found/, "a report note is not an account note");
});

test("the audit log cannot be edited", () => {
  const entry = lastAudit(s);
  assert.throws(() => s.app.db.prepare("UPDATE admin_action_logs SET action = 'x' WHERE id = ?").run(BigInt(entry.id)), /append-only/);
  assert.throws(() => s.app.db.prepare("DELETE FROM admin_action_logs").run(), /append-only/);
});
