import type { App } from "../app.ts";
import { readTx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type Account, findAccountsByIds } from "./accounts.ts";
import type { Notification } from "./notifications.ts";
import { findReportsByIds, type Report } from "./reports.ts";
import { type AccountWarning, findAccountWarningsByIds } from "./account-warnings.ts";
import { findLiveStatusesCached } from "./status-cache.ts";
import { readStatusPage, type StatusPage } from "./status-page.ts";
import type { Status } from "./statuses.ts";

// The reads behind a page of Notification entities (serializers/notification.ts): fixed cost,
// in one read transaction with the page of the statuses they carry.

// The types whose entity carries `status` (Mastodon's NotificationSerializer#status_type?).
export const STATUS_TYPES = new Set(["favourite", "reblog", "status", "mention", "poll", "update"]);

export interface NotificationPage<A> {
  /** The notifications to show: those whose sender, status or report is gone are left out. */
  shown: Notification[];
  /** The senders, as the caller embeds them. */
  accounts: Map<Id, A>;
  /** The distinct statuses the shown notifications carry. */
  statuses: Status[];
  /** Their page (storage/status-page.ts); null when there are none. */
  statusPage: StatusPage<A> | null;
  reports: Map<Id, Report>;
  /** moderation_warning: the warnings (their target is the recipient, one of `targets`). */
  warnings: Map<Id, AccountWarning>;
  targets: Map<Id, Account>;
}

/**
 * Reads a page in one read transaction: the senders (`accountsOf`, as for a status page's
 * authors), the statuses (cached rows) and their page, and the reports of admin.report
 * notifications with their targets. `use` gets the page inside the transaction: rendering a
 * report still reads its target account, which then shares the page's snapshot.
 */
export function readNotificationPage<A extends { domain: string | null }, T>(
  app: App,
  notifications: Notification[],
  viewerId: Id,
  accountsOf: (ids: Set<Id>) => Map<Id, A>,
  use: (page: NotificationPage<A>) => T,
): T {
  return readTx(app.db, () => {
    const accounts = accountsOf(new Set(notifications.map((n) => n.fromAccountId)));
    const statusIds = new Set<Id>();
    for (const n of notifications) if (n.statusId && STATUS_TYPES.has(n.type)) statusIds.add(n.statusId);
    const found = findLiveStatusesCached(app, statusIds);

    // admin.report notifications are rare (staff only): their reports and targets, one query each.
    const reports = findReportsByIds(app.db, notifications.flatMap((n) => (n.type === "admin.report" && n.reportId ? [n.reportId] : [])));
    const warnings = findAccountWarningsByIds(app.db, notifications.flatMap((n) => (n.type === "moderation_warning" && n.accountWarningId ? [n.accountWarningId] : [])));
    const targets = findAccountsByIds(app.db, [...[...reports.values()].map((r) => r.targetAccountId), ...[...warnings.values()].map((w) => w.targetAccountId)]);

    const shown = notifications.filter(
      (n) =>
        accounts.has(n.fromAccountId) &&
        (!STATUS_TYPES.has(n.type) || (n.statusId !== null && found.has(n.statusId))) &&
        (n.type !== "admin.report" || (n.reportId != null && reports.has(n.reportId) && targets.has(reports.get(n.reportId)!.targetAccountId))) &&
        (n.type !== "moderation_warning" || (n.accountWarningId != null && warnings.has(n.accountWarningId))),
    );
    const statuses = [...new Set(shown.flatMap((n) => (STATUS_TYPES.has(n.type) && n.statusId ? [n.statusId] : [])))].map((id) => found.get(id)!);
    const statusPage = statuses.length ? readStatusPage(app, statuses, viewerId, accountsOf) : null;
    return use({ shown, accounts, statuses, statusPage, reports, warnings, targets });
  });
}
