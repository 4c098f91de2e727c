import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import type { Notification } from "../storage/notifications.ts";
import { type NotificationPage, readNotificationPage, STATUS_TYPES } from "../storage/notification-page.ts";
import { hiddenOnPage } from "../storage/status-page.ts";
import { type ApiAccount, type EmbeddedAccount, embeddedAccounts } from "./account.ts";
import { accountText, renderStatusPage, renderStatusPageTexts, type ApiStatus } from "./status.ts";
import { isoTime } from "../lib/iso-time.ts";
import { type ApiReport, toApiReport } from "./report.ts";
import { type Account, findAccountsByIds } from "../storage/accounts.ts";
import { findReportsByIds, type Report } from "../storage/reports.ts";
import { type ApiAccountWarning, toApiAccountWarning } from "./account-warning.ts";
import { type AccountWarning, findAccountWarningsByIds } from "../storage/account-warnings.ts";

// https://docs.joinmastodon.org/entities/Notification/
export interface ApiNotification {
  id: string;
  type: string;
  created_at: string;
  group_key: string;
  /** Only present (true) on notifications the policy filtered. */
  filtered?: true;
  account: ApiAccount;
  status?: ApiStatus;
  /** admin.report */
  report?: ApiReport;
  /** moderation_warning */
  moderation_warning?: ApiAccountWarning;
}

export { STATUS_TYPES };

/**
 * A page of notifications as the recipient sees them, in input order. Fixed cost, in one read
 * transaction (storage/notification-page.ts): the senders (cached renderings), the statuses
 * (cached rows), plus the batched reads of their page.
 * A notification whose sender or status is gone is left out rather than half-rendered.
 */
export function toApiNotifications(app: App, notifications: Notification[], viewerId: Id): ApiNotification[] {
  return readNotificationPage(app, notifications, viewerId, (ids) => embeddedAccounts(app, ids), (page) => {
    const statuses = new Map<Id, ApiStatus>();
    if (page.statusPage) renderStatusPage(app, page.statuses, page.statusPage, viewerId).forEach((s, i) => statuses.set(page.statuses[i].id, s));
    return page.shown.map((n) => {
      const out = ownFields(app, n, page) as ApiNotification;
      out.account = page.accounts.get(n.fromAccountId)!.json;
      const status = statusIdOf(n);
      if (status) out.status = statuses.get(status)!;
      return out;
    });
  });
}

/**
 * The same page as JSON text (what the list endpoint sends), from the cached texts of the
 * embedded accounts and statuses (serializers/status.ts). `hideFiltered`: without the
 * notifications whose status the viewer's `hide` filters drop in `notifications`.
 */
export function toApiNotificationsJson(app: App, notifications: Notification[], viewerId: Id, opts: { hideFiltered?: boolean } = {}): string {
  return readNotificationPage(app, notifications, viewerId, (ids) => embeddedAccounts(app, ids), (page) => {
    const hidden = opts.hideFiltered && page.statusPage ? hiddenOnPage(page.statusPage, page.statuses, viewerId, "notifications") : undefined;
    const shown = hidden?.size ? page.shown.filter((n) => !hidden.has(statusIdOf(n) ?? "")) : page.shown;
    const shownStatuses = hidden?.size ? page.statuses.filter((s) => !hidden.has(s.id)) : page.statuses;
    const statuses = new Map<Id, string>();
    if (page.statusPage) renderStatusPageTexts(app, shownStatuses, page.statusPage, viewerId).forEach((s, i) => statuses.set(shownStatuses[i].id, s));
    const items = shown.map((n) => {
      let out = JSON.stringify(ownFields(app, n, page)).slice(0, -1);
      out += `,"account":${accountText(page.accounts.get(n.fromAccountId))}`;
      const status = statusIdOf(n);
      if (status) out += `,"status":${statuses.get(status)!}`;
      return out + "}";
    });
    return "[" + items.join(",") + "]";
  });
}

type Page = NotificationPage<EmbeddedAccount>;

const statusIdOf = (n: Notification): Id | null => (STATUS_TYPES.has(n.type) ? n.statusId : null);

/** The records admin.report and moderation_warning notifications carry, with their target accounts. */
export interface PageReports {
  reports: Map<Id, Report>;
  warnings: Map<Id, AccountWarning>;
  targets: Map<Id, Account>;
}

/**
 * admin.report and moderation_warning notifications are rare: their reports, warnings and
 * targets, one query each.
 */
export function loadReports(app: App, notifications: Notification[]): PageReports {
  const reports = findReportsByIds(app.db, notifications.flatMap((n) => (n.type === "admin.report" && n.reportId ? [n.reportId] : [])));
  const warnings = findAccountWarningsByIds(
    app.db,
    notifications.flatMap((n) => (n.type === "moderation_warning" && n.accountWarningId ? [n.accountWarningId] : [])),
  );
  const targets = findAccountsByIds(app.db, [...[...reports.values()].map((r) => r.targetAccountId), ...[...warnings.values()].map((w) => w.targetAccountId)]);
  return { reports, warnings, targets };
}

/** Not an admin.report or moderation_warning, or one whose record and target are still there. */
export function hasReport(n: Notification, p: PageReports): boolean {
  if (n.type === "moderation_warning") {
    const warning = n.accountWarningId ? p.warnings.get(n.accountWarningId) : undefined;
    return !!warning && p.targets.has(warning.targetAccountId);
  }
  if (n.type !== "admin.report") return true;
  const report = n.reportId ? p.reports.get(n.reportId) : undefined;
  return !!report && p.targets.has(report.targetAccountId);
}

/** The AccountWarning entity of a moderation_warning notification that passed hasReport(). */
export function warningOf(app: App, n: Notification, p: PageReports): ApiAccountWarning {
  const warning = p.warnings.get(n.accountWarningId!)!;
  return toApiAccountWarning(app, warning, p.targets.get(warning.targetAccountId)!);
}

/** The Report entity of an admin.report notification that passed hasReport(). */
export function reportOf(app: App, n: Notification, p: PageReports): ApiReport {
  const report = p.reports.get(n.reportId!)!;
  return toApiReport(app, report, p.targets.get(report.targetAccountId)!);
}

/** The notification's own fields and its report; `account` and `status` are the callers'. */
function ownFields(app: App, n: Notification, page: Page): Omit<ApiNotification, "account"> {
  const out: Omit<ApiNotification, "account"> = {
    id: n.id,
    type: n.type,
    created_at: isoTime(n.createdAt),
    group_key: n.groupKey ?? `ungrouped-${n.id}`,
  };
  if (n.filtered) out.filtered = true;
  if (n.type === "admin.report" && n.reportId) out.report = reportOf(app, n, page);
  if (n.type === "moderation_warning" && n.accountWarningId) out.moderation_warning = warningOf(app, n, page);
  return out;
}

export function toApiNotification(app: App, notification: Notification, viewerId: Id): ApiNotification | undefined {
  return toApiNotifications(app, [notification], viewerId)[0];
}
