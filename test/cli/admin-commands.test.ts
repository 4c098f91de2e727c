// The admin CLI as an operator runs it (subprocesses): roost accounts, reports, roles, audit.
// Each acts as --as USER or the instance owner, through the same use cases as the admin API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../../src/config/config.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { createReport } from "../../src/services/reports.ts";
import { findAccountByHandle } from "../../src/storage/accounts.ts";
import { roost, tempDir } from "./cli-helpers.ts";

const lines = (s: string) => s.trimEnd().split("\n");
const jsonLines = (s: string) => lines(s).map((l) => JSON.parse(l));

test("roost accounts / reports / roles / audit: tables, --json lines, refusals and exit codes", async (t) => {
  const dataDir = join(tempDir(t), "data");
  const dd = ["--data-dir", dataDir];
  assert.equal((await roost(["init", ...dd, "--domain", "cli.example", "--protocol", "http"])).code, 0);
  const [noOwner, ...made] = await Promise.all([
    roost(["accounts", "list", ...dd]),
    ...["boss:owner", "mia:moderator", "spammer:user", "carol:user", "rep:user"].map((x) => {
      const [name, role] = x.split(":");
      return roost(["user", "create", name, ...dd, "--email", `${name}@cli.example`, "--password", "long enough pw", "--role", role]);
    }),
  ]);
  for (const m of made) assert.equal(m.code, 0, m.stderr);
  // The race above: created or not yet, the command ran before or after; what matters is it
  // either listed or said there was no owner.
  assert.ok(noOwner.code === 0 || /no instance owner yet/.test(noOwner.stderr), noOwner.stderr);

  // A report to work on, filed through the same service as POST /api/v1/reports.
  const app = createApp(loadConfig(dataDir, { jobsAutorun: false }));
  let reportId: string;
  try {
    const reporter = findAccountByHandle(app.db, "rep", null)!;
    const target = findAccountByHandle(app.db, "spammer", null)!;
    reportId = createReport(app, reporter, { accountId: target.id, statusIds: [], comment: "ads everywhere", forward: false, category: "spam", ruleIds: [] }).report.id;
  } finally {
    await closeApp(app);
  }

  const [list, listJson, pending, missing, badIp, modOnOwner, warn] = await Promise.all([
    roost(["accounts", "list", ...dd]),
    roost(["accounts", "list", "--json", ...dd]),
    roost(["accounts", "list", "--pending", ...dd]),
    roost(["accounts", "show", "nobody", ...dd]),
    roost(["accounts", "list", "--ip", "10.0.0/8", ...dd]),
    roost(["accounts", "action", "boss", "--type", "silence", "--as", "mia", ...dd]),
    roost(["accounts", "action", "carol", "--type", "none", "--text", "be kind", "--as", "mia", ...dd]),
  ]);
  // An aligned table, newest first.
  assert.equal(list.code, 0, list.stderr);
  const rows = lines(list.stdout);
  assert.match(rows[0], /^ID\s+USERNAME\s+DOMAIN\s+EMAIL\s+ROLE\s+STATE\s+CREATED$/);
  assert.equal(rows.length, 6);
  assert.equal(rows[0].indexOf("USERNAME"), rows[1].indexOf(rows[1].split(/\s+/)[1]), "columns aligned");
  assert.ok(rows.some((r) => /\bboss\b.*\bOwner\b.*\bactive\b/.test(r)));
  const all = jsonLines(listJson.stdout);
  assert.deepEqual(all.map((a) => a.username).sort(), ["boss", "carol", "mia", "rep", "spammer"]);
  assert.equal(all.find((a) => a.username === "mia").role, "Moderator");
  assert.deepEqual([pending.code, pending.stdout], [0, "ID  USERNAME  DOMAIN  EMAIL  ROLE  STATE  CREATED\n"], "a header and no rows");
  assert.deepEqual([missing.code, missing.stdout, missing.stderr], [1, "", "error: Account not found: nobody\n"]);
  assert.deepEqual([badIp.code, badIp.stderr], [1, "error: --ip: not an address or CIDR range: 10.0.0/8\n"]);
  assert.deepEqual([modOnOwner.code, modOnOwner.stderr], [1, "error: This action is not allowed\n"]);
  assert.equal(warn.code, 0, warn.stderr);
  assert.match(warn.stdout, /^\d+\n$/);

  const [suspend, role, roleTooHigh, newRole, resolve] = await Promise.all([
    roost(["accounts", "action", "spammer", "--type", "suspend", "--report", reportId, "--text", "spam", ...dd]),
    roost(["accounts", "role", "carol", "Moderator", ...dd]),
    roost(["accounts", "role", "carol", "Owner", "--as", "mia", ...dd]),
    roost(["roles", "create", "Helpers", "--permissions", "manage_reports", "--position", "5", "--json", ...dd]),
    roost(["reports", "note", reportId, "looked at it", "--as", "mia", ...dd]),
  ]);
  assert.equal(suspend.code, 0, suspend.stderr);
  assert.deepEqual([role.code, role.stderr], [0, "carol has the role Moderator\n"]);
  assert.deepEqual([roleTooHigh.code, roleTooHigh.stderr], [1, "error: This action is not allowed\n"], "moderators lack manage_roles");
  assert.equal(newRole.code, 0, newRole.stderr);
  const helpers = JSON.parse(newRole.stdout);
  assert.deepEqual([helpers.name, helpers.position, helpers.permissions], ["Helpers", 5, ["manage_reports"]]);
  assert.match(resolve.stdout, /^\d+\n$/);

  const [shown, reports, reportsAll, reportShow, roles, reopen] = await Promise.all([
    roost(["accounts", "show", "spammer", "--json", ...dd]),
    roost(["reports", "list", ...dd]),
    roost(["reports", "list", "--all", "--json", ...dd]),
    roost(["reports", "show", reportId, "--json", ...dd]),
    roost(["roles", "list", "--json", ...dd]),
    roost(["reports", "reopen", reportId, "--note", "not done", "--json", ...dd]),
  ]);
  const spam = JSON.parse(shown.stdout);
  assert.deepEqual([spam.suspended, spam.warnings[0].action, spam.warnings[0].text], [true, "suspend", "spam"]);
  assert.deepEqual(lines(reports.stdout).length >= 1, true);
  const [r] = jsonLines(reportsAll.stdout);
  assert.equal(r.id, reportId);
  const detail = JSON.parse(reportShow.stdout);
  assert.equal(detail.target, "spammer");
  assert.ok(detail.notes.some((n: any) => n.content === "looked at it" && n.by === "mia"));
  assert.deepEqual(jsonLines(roles.stdout).map((x) => x.name), ["Owner", "Admin", "Moderator", "Helpers", "everyone"]);
  const reopened = JSON.parse(reopen.stdout);
  assert.deepEqual([reopened.state, reopened.resolved_by], ["unresolved", null]);

  // The audit log, newest first: who, through what, which record, what changed.
  const [audit, auditJson, auditByMia, auditAboutSpammer] = await Promise.all([
    roost(["audit", "list", ...dd]),
    roost(["audit", "list", "--json", ...dd]),
    roost(["audit", "list", "--actor", "mia", "--json", ...dd]),
    roost(["audit", "list", "--target-account", "spammer", "--json", ...dd]),
  ]);
  assert.equal(audit.code, 0, audit.stderr);
  assert.match(lines(audit.stdout)[0], /^ID\s+TIME\s+ACTOR\s+VIA\s+ACTION\s+TARGET\s+CHANGES$/);
  assert.ok(lines(audit.stdout).some((l) => /\bboss\s+cli\s+suspend\s+Account spammer\s+suspended_at: ∅ → \d{4}-/.test(l)), audit.stdout);
  const entries = jsonLines(auditJson.stdout);
  const suspendEntry = entries.find((e) => e.action === "suspend");
  assert.deepEqual([suspendEntry.actor, suspendEntry.source, suspendEntry.target_type, suspendEntry.changes.suspension_origin], ["boss", "cli", "Account", [null, "local"]]);
  const resolved = entries.find((e) => e.action === "resolve");
  assert.equal(resolved.target_id, reportId, "the suspension resolved the report");
  assert.ok(entries.some((e) => e.action === "change_role" && e.target_name === "carol" && e.changes.role[1] === "Moderator"));
  assert.ok(entries.some((e) => e.action === "create" && e.target_type === "UserRole"));
  assert.ok(jsonLines(auditByMia.stdout).every((e) => e.actor === "mia"));
  assert.ok(jsonLines(auditByMia.stdout).some((e) => e.action === "create" && e.target_type === "ReportNote"));
  // About an account: its own entries (and its user's), not the report's or anyone else's.
  assert.deepEqual(jsonLines(auditAboutSpammer.stdout).map((e) => `${e.action} ${e.target_type} ${e.target_name}`), ["suspend Account spammer"]);

  const [unsuspend, deleted, unknownReport, plainAudit] = await Promise.all([
    roost(["accounts", "unsuspend", "spammer", "--json", ...dd]),
    roost(["accounts", "delete", "carol", ...dd]),
    roost(["reports", "resolve", "999", ...dd]),
    roost(["audit", "list", "--as", "rep", ...dd]),
  ]);
  assert.deepEqual([unsuspend.code, JSON.parse(unsuspend.stdout).suspended], [0, false]);
  assert.deepEqual([deleted.code, deleted.stderr], [1, "error: This action is not allowed\n"], "only suspended accounts");
  assert.deepEqual([unknownReport.code, unknownReport.stderr], [1, "error: Record not found\n"]);
  assert.deepEqual([plainAudit.code, plainAudit.stderr], [1, "error: This action is not allowed\n"], "view_audit_log needed");
});
