import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { readTx } from "../db/db.ts";
import type { Notification } from "../storage/notifications.ts";
import { findLiveStatusesCached } from "../storage/status-cache.ts";
import { type ApiAccount, embeddedAccounts } from "./account.ts";
import { toApiStatuses, type ApiStatus } from "./status.ts";
import { findReportsByIds } from "../storage/reports.ts";
import { findAccountsByIds } from "../storage/accounts.ts";
import { type ApiReport, toApiReport } from "./report.ts";

// https://docs.joinmastodon.org/entities/Notification/
export interface ApiNotification {
  id: string;
  type: string;
  created_at: string;
  group_key: string;
  account: ApiAccount;
  status?: ApiStatus;
  /** admin.report */
  report?: ApiReport;
}

// The types whose entity carries `status` (Mastodon's NotificationSerializer#status_type?).
const STATUS_TYPES = new Set(["favourite", "reblog", "status", "mention", "poll", "update"]);

/**
 * A page of notifications as the recipient sees them, in input order. Fixed cost, in one read
 * transaction: the senders (cached renderings), the statuses (cached rows), plus the
 * batched status serializer.
 * A notification whose sender or status is gone is left out rather than half-rendered.
 */
export function toApiNotifications(app: App, notifications: Notification[], viewerId: Id): ApiNotification[] {
  return readTx(app.db, () => render(app, notifications, viewerId));
}

function render(app: App, notifications: Notification[], viewerId: Id): ApiNotification[] {
  const accounts = embeddedAccounts(app, new Set(notifications.map((n) => n.fromAccountId)));
  const statusIds = new Set<Id>();
  for (const n of notifications) if (n.statusId && STATUS_TYPES.has(n.type)) statusIds.add(n.statusId);
  const statuses = findLiveStatusesCached(app, statusIds);

  // admin.report notifications are rare (staff only): their reports and targets, one query each.
  const reports = findReportsByIds(app.db, notifications.flatMap((n) => (n.type === "admin.report" && n.reportId ? [n.reportId] : [])));
  const targets = findAccountsByIds(app.db, [...reports.values()].map((r) => r.targetAccountId));

  const shown = notifications.filter(
    (n) =>
      accounts.has(n.fromAccountId) &&
      (!STATUS_TYPES.has(n.type) || (n.statusId !== null && statuses.has(n.statusId))) &&
      (n.type !== "admin.report" || (n.reportId != null && reports.has(n.reportId) && targets.has(reports.get(n.reportId)!.targetAccountId))),
  );
  const apiStatuses = new Map<Id, ApiStatus>();
  const uniqueStatuses = [...new Set(shown.flatMap((n) => (STATUS_TYPES.has(n.type) && n.statusId ? [n.statusId] : [])))].map(
    (id) => statuses.get(id)!,
  );
  toApiStatuses(app, uniqueStatuses, viewerId).forEach((s, i) => apiStatuses.set(uniqueStatuses[i].id, s));

  return shown.map((n) => {
    const out: ApiNotification = {
      id: n.id,
      type: n.type,
      created_at: new Date(n.createdAt).toISOString(),
      group_key: n.groupKey ?? `ungrouped-${n.id}`,
      account: accounts.get(n.fromAccountId)!.json,
    };
    if (STATUS_TYPES.has(n.type) && n.statusId) out.status = apiStatuses.get(n.statusId)!;
    if (n.type === "admin.report" && n.reportId) {
      const report = reports.get(n.reportId)!;
      out.report = toApiReport(app, report, targets.get(report.targetAccountId)!);
    }
    return out;
  });
}

export function toApiNotification(app: App, notification: Notification, viewerId: Id): ApiNotification | undefined {
  return toApiNotifications(app, [notification], viewerId)[0];
}
