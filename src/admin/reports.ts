import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound, unprocessable } from "../errors.ts";
import { type Id, parseId } from "../lib/ids.ts";
import { isoTime } from "../lib/iso-time.ts";
import { findReportById, findReportsByIds, type Report, type ReportCategory } from "../storage/reports.ts";
import { filterReportIds, type ReportFilter, updateReportModeration, type ReportModerationPatch } from "../storage/report-moderation.ts";
import { findRuleById } from "../storage/rules.ts";
import { REPORT_CATEGORIES } from "../services/reports.ts";
import { type Actor, requireCan } from "./actor.ts";
import { audit, changesOf } from "./audit.ts";
import { addNote } from "./notes.ts";

export type { Report } from "../storage/reports.ts";
export type { ReportFilter } from "../storage/report-moderation.ts";

// Moderating reports (Mastodon's Admin::ReportsController and Report#resolve!/unresolve!):
// the listing, category and rules, assignment, and the seed's state table:
// unresolved --resolve (optionally with a note)--> resolved --reopen--> unresolved.
// Every change is audited; all need manage_reports.

export function requireReport(app: App, rawId: string | undefined): Report {
  const id = parseId(rawId);
  const report = id && findReportById(app.db, id);
  if (!report) throw notFound();
  return report;
}

export function listReportsForModeration(app: App, actor: Actor, filter: ReportFilter): Report[] {
  requireCan(actor, "manage_reports");
  const ids = filterReportIds(app.db, filter);
  const found = findReportsByIds(app.db, ids);
  return ids.map((id) => found.get(id)!).filter(Boolean);
}

/** The moderation fields of a report as the audit log shows them. */
function trail(r: Report): Record<string, unknown> {
  return {
    action_taken_at: r.actionTakenAt === null ? null : isoTime(r.actionTakenAt),
    action_taken_by_account_id: r.actionTakenByAccountId,
    assigned_account_id: r.assignedAccountId,
    category: r.category,
    rule_ids: r.ruleIds,
  };
}

/** Applies a patch, audits it as `action` with what changed, and returns the new report. */
function change(app: App, actor: Actor, report: Report, action: string, patch: ReportModerationPatch, note?: string): Report {
  return tx(app.db, () => {
    const before = findReportById(app.db, report.id)!;
    updateReportModeration(app.db, report.id, patch, app.now());
    const after = findReportById(app.db, report.id)!;
    audit(app, actor, action, { type: "Report", id: report.id, name: report.id }, changesOf(trail(before), trail(after)));
    if (note !== undefined && note.trim() !== "") addNote(app, actor, "report", report.id, note);
    return after;
  });
}

/** PUT /api/v1/admin/reports/:id: category and cited rules (rules only for a violation). */
export function updateReport(app: App, actor: Actor, report: Report, input: { category?: string; ruleIds?: string[] }): Report {
  requireCan(actor, "manage_reports");
  const category = (input.category?.trim() || report.category) as ReportCategory;
  if (!REPORT_CATEGORIES.includes(category)) throw unprocessable("Validation failed: Category is not included in the list");
  let ruleIds = report.ruleIds;
  if (input.ruleIds !== undefined) {
    ruleIds = [...new Set(input.ruleIds.map((r) => r.trim()).filter((r) => r !== ""))];
    if (ruleIds.length && (category !== "violation" || ruleIds.some((r) => !parseId(r) || !findRuleById(app.db, r)))) {
      throw unprocessable("Validation failed: Rule ids does not reference valid rules");
    }
  } else if (category !== "violation") ruleIds = [];
  return change(app, actor, report, "update", { category, ruleIds });
}

export function assignReportToSelf(app: App, actor: Actor, report: Report): Report {
  requireCan(actor, "manage_reports");
  return change(app, actor, report, "assigned_to_self", { assignedAccountId: actor.account.id });
}

export function unassignReport(app: App, actor: Actor, report: Report): Report {
  requireCan(actor, "manage_reports");
  return change(app, actor, report, "unassigned", { assignedAccountId: null });
}

/** unresolved → resolved, with an optional note (a resolved report stays as it is). */
export function resolveReport(app: App, actor: Actor, report: Report, note?: string): Report {
  requireCan(actor, "manage_reports");
  if (report.actionTakenAt !== null) return report;
  return change(app, actor, report, "resolve", { actionTakenAt: app.now(), actionTakenByAccountId: actor.account.id }, note);
}

/** resolved → unresolved (an unresolved report stays as it is). */
export function reopenReport(app: App, actor: Actor, report: Report, note?: string): Report {
  requireCan(actor, "manage_reports");
  if (report.actionTakenAt === null) return report;
  return change(app, actor, report, "reopen", { actionTakenAt: null, actionTakenByAccountId: null }, note);
}

/**
 * Resolves reports inside an account action's transaction (Admin::AccountAction#process_reports!):
 * each is audited as `resolve`.
 */
export function resolveReportsInTx(app: App, actor: Actor, reportIds: Id[]): void {
  for (const id of reportIds) {
    const r = findReportById(app.db, id);
    if (!r || r.actionTakenAt !== null) continue;
    updateReportModeration(app.db, id, { actionTakenAt: app.now(), actionTakenByAccountId: actor.account.id }, app.now());
    const after = findReportById(app.db, id)!;
    audit(app, actor, "resolve", { type: "Report", id, name: id }, changesOf(trail(r), trail(after)));
  }
}
