import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound, unprocessable } from "../errors.ts";
import { type Id, parseId } from "../lib/ids.ts";
import { clipCodePoints, exceedsCodePoints } from "../lib/code-points.ts";
import { findUsersByAccountIds } from "../storage/account-profile.ts";
import { type Account, findAccountById } from "../storage/accounts.ts";
import { findReportById, insertReport, type Report, type ReportCategory } from "../storage/reports.ts";
import { findRuleById } from "../storage/rules.ts";
import { findStatusesByIds } from "../storage/statuses.ts";
import { staffAccountIds } from "../storage/users.ts";
import { onReportForwarded } from "../federation/outbox/hooks.ts";
import { notify } from "./notifications.ts";
import { mailNewReport } from "./staff-mail.ts";
import { isHiddenLocal } from "./account-lookup.ts";
import { canViewStatus } from "./visibility.ts";

// Reports (Mastodon's ReportService): a local user's POST /api/v1/reports, and remote Flags.

export const REPORT_CATEGORIES: readonly ReportCategory[] = ["spam", "legal", "violation", "other"];
/** Mastodon limits the comments of local reporters; remote Flags are cut at 5000 (AP §5.9). */
export const LOCAL_COMMENT_MAX = 1000;
export const REMOTE_COMMENT_MAX = 5000;

export interface ReportInput {
  accountId: string | undefined;
  statusIds: string[];
  comment: string;
  forward: boolean;
  category: string | undefined;
  ruleIds: string[];
}

/** The reported account: existing, visible and not suspended (else 404). */
function requireReportable(app: App, rawId: string | undefined): Account {
  const id = parseId(rawId);
  const target = id ? findAccountById(app.db, id) : undefined;
  if (!target || target.suspendedAt !== null) throw notFound();
  if (target.domain === null && isHiddenLocal(target, findUsersByAccountIds(app.db, [target.id]).get(target.id))) throw notFound();
  return target;
}

/** Every listed status must be the target's and visible to the reporter (Mastodon: find → 404). */
function requireReportedStatuses(app: App, reporter: Account, target: Account, rawIds: string[]): Id[] {
  const ids = [...new Set(rawIds)].map((raw) => {
    const id = parseId(raw);
    if (!id) throw notFound();
    return id;
  });
  const found = findStatusesByIds(app.db, ids);
  for (const id of ids) {
    const s = found.get(id);
    if (!s || s.accountId !== target.id || !canViewStatus(app, reporter.id, s)) throw notFound();
  }
  return ids;
}

/**
 * admin.report notifications and e-mails: every admin and moderator hears of a new report
 * (Mastodon's ReportService#notify_staff!: both, and the reported person never).
 */
function notifyStaff(app: App, reporterId: Id, reportId: Id, targetId: Id, comment: string): void {
  for (const staffId of staffAccountIds(app.db)) {
    notify(app, { type: "admin.report", recipientId: staffId, fromAccountId: reporterId, reportId });
  }
  mailNewReport(app, { id: reportId, reporterId, targetId, comment });
}

/** POST /api/v1/reports. */
export function createReport(app: App, reporter: Account, input: ReportInput): { report: Report; target: Account } {
  const target = requireReportable(app, input.accountId);
  const statusIds = requireReportedStatuses(app, reporter, target, input.statusIds);
  if (exceedsCodePoints(input.comment, LOCAL_COMMENT_MAX)) {
    throw unprocessable(`Validation failed: Comment is too long (maximum is ${LOCAL_COMMENT_MAX} characters)`);
  }
  const ruleIds = [...new Set(input.ruleIds.map((r) => r.trim()).filter((r) => r !== ""))];
  // Rules imply a violation (Mastodon's ReportService).
  const category = (ruleIds.length ? "violation" : input.category || "other") as ReportCategory;
  if (!REPORT_CATEGORIES.includes(category)) throw unprocessable("Validation failed: Category is not included in the list");
  if (ruleIds.some((r) => !parseId(r) || !findRuleById(app.db, parseId(r)!))) {
    throw unprocessable("Validation failed: Rule ids does not reference valid rules");
  }
  const forward = input.forward && target.domain !== null;
  const report = tx(app.db, () => {
    const id = app.ids.next();
    insertReport(app.db, {
      id,
      accountId: reporter.id,
      targetAccountId: target.id,
      statusIds,
      ruleIds,
      comment: input.comment,
      category,
      forwarded: forward,
      uri: null,
      createdAt: app.now(),
    });
    if (forward) onReportForwarded(app, id);
    notifyStaff(app, reporter.id, id, target.id, input.comment);
    return findReportById(app.db, id)!;
  });
  return { report, target };
}

export interface IncomingFlag {
  /** The Flag's id, when it has one. */
  uri: string | null;
  comment: string;
  target: Account;
  statusIds: Id[];
}

/** Stores the reports of a remote Flag (one per target) in one transaction. */
export function createRemoteReports(app: App, reporter: Account, flags: IncomingFlag[]): Report[] {
  return tx(app.db, () =>
    flags.map((f) => {
      const id = app.ids.next();
      insertReport(app.db, {
        id,
        accountId: reporter.id,
        targetAccountId: f.target.id,
        statusIds: f.statusIds,
        ruleIds: [],
        comment: clipCodePoints(f.comment, REMOTE_COMMENT_MAX),
        category: "other",
        forwarded: false,
        uri: f.uri,
        createdAt: app.now(),
      });
      notifyStaff(app, reporter.id, id, f.target.id, clipCodePoints(f.comment, REMOTE_COMMENT_MAX));
      return findReportById(app.db, id)!;
    }),
  );
}
