import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { readTx } from "../db/db.ts";
import type { Notification } from "../storage/notifications.ts";
import { findLiveStatusesCached } from "../storage/status-cache.ts";
import { type ApiAccount, type EmbeddedAccount, embeddedAccounts } from "./account.ts";
import { accountText, toApiStatuses, toApiStatusTexts, type ApiStatus } from "./status.ts";
import { isoTime } from "../lib/iso-time.ts";
import type { Status } from "../storage/statuses.ts";
import type { Account } from "../storage/accounts.ts";
import type { Report } from "../storage/reports.ts";
import { findReportsByIds } from "../storage/reports.ts";
import { findAccountsByIds } from "../storage/accounts.ts";
import { type ApiReport, toApiReport } from "./report.ts";

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
}

// The types whose entity carries `status` (Mastodon's NotificationSerializer#status_type?).
export const STATUS_TYPES: ReadonlySet<string> = new Set(["favourite", "reblog", "status", "mention", "poll", "update"]);

/**
 * A page of notifications as the recipient sees them, in input order. Fixed cost, in one read
 * transaction: the senders (cached renderings), the statuses (cached rows), plus the
 * batched status serializer.
 * A notification whose sender or status is gone is left out rather than half-rendered.
 */
export function toApiNotifications(app: App, notifications: Notification[], viewerId: Id): ApiNotification[] {
  return readTx(app.db, () => {
    const page = loadPage(app, notifications);
    const statuses = new Map<Id, ApiStatus>();
    toApiStatuses(app, page.statuses, viewerId).forEach((s, i) => statuses.set(page.statuses[i].id, s));
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
 * embedded accounts and statuses (serializers/status.ts).
 */
export function toApiNotificationsJson(app: App, notifications: Notification[], viewerId: Id): string {
  return readTx(app.db, () => {
    const page = loadPage(app, notifications);
    const statuses = new Map<Id, string>();
    toApiStatusTexts(app, page.statuses, viewerId).forEach((s, i) => statuses.set(page.statuses[i].id, s));
    const items = page.shown.map((n) => {
      let out = JSON.stringify(ownFields(app, n, page)).slice(0, -1);
      out += `,"account":${accountText(page.accounts.get(n.fromAccountId))}`;
      const status = statusIdOf(n);
      if (status) out += `,"status":${statuses.get(status)!}`;
      return out + "}";
    });
    return "[" + items.join(",") + "]";
  });
}

interface Page {
  shown: Notification[];
  accounts: Map<Id, EmbeddedAccount>;
  /** The distinct statuses the shown notifications carry. */
  statuses: Status[];
  reports: Map<Id, Report>;
  targets: Map<Id, Account>;
}

const statusIdOf = (n: Notification): Id | null => (STATUS_TYPES.has(n.type) ? n.statusId : null);

function loadPage(app: App, notifications: Notification[]): Page {
  const accounts = embeddedAccounts(app, new Set(notifications.map((n) => n.fromAccountId)));
  const statusIds = new Set<Id>();
  for (const n of notifications) if (n.statusId && STATUS_TYPES.has(n.type)) statusIds.add(n.statusId);
  const statuses = findLiveStatusesCached(app, statusIds);

  const { reports, targets } = loadReports(app, notifications);
  const shown = notifications.filter(
    (n) =>
      accounts.has(n.fromAccountId) &&
      (!STATUS_TYPES.has(n.type) || (n.statusId !== null && statuses.has(n.statusId))) &&
      hasReport(n, { reports, targets }),
  );
  const unique = [...new Set(shown.flatMap((n) => statusIdOf(n) ?? []))].map((id) => statuses.get(id)!);
  return { shown, accounts, statuses: unique, reports, targets };
}

export interface PageReports {
  reports: Map<Id, Report>;
  targets: Map<Id, Account>;
}

/** admin.report notifications are rare (staff only): their reports and targets, one query each. */
export function loadReports(app: App, notifications: Notification[]): PageReports {
  const reports = findReportsByIds(app.db, notifications.flatMap((n) => (n.type === "admin.report" && n.reportId ? [n.reportId] : [])));
  const targets = findAccountsByIds(app.db, [...reports.values()].map((r) => r.targetAccountId));
  return { reports, targets };
}

/** Not an admin.report, or one whose report and target are still there. */
export function hasReport(n: Notification, p: PageReports): boolean {
  if (n.type !== "admin.report") return true;
  const report = n.reportId ? p.reports.get(n.reportId) : undefined;
  return !!report && p.targets.has(report.targetAccountId);
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
  return out;
}

export function toApiNotification(app: App, notification: Notification, viewerId: Id): ApiNotification | undefined {
  return toApiNotifications(app, [notification], viewerId)[0];
}
