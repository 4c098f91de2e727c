import type { App } from "../app.ts";
import { notFound } from "../errors.ts";
import { parseId, type Id } from "../lib/ids.ts";
import {
  countNotificationsAfter,
  deleteAllNotifications,
  deleteNotification,
  findVisibleNotification,
  listNotificationsPage,
  notificationsMarker,
  type NotificationFilter,
} from "../storage/notification-reads.ts";
import type { Notification } from "../storage/notifications.ts";
import { NOTIFICATION_TYPES } from "./notifications.ts";

/**
 * Mastodon's `browserable` scope: `types[]` keeps only the known types listed (so a list of
 * unknown types matches nothing), `exclude_types[]` removes some, `account_id` narrows to one
 * sender (a malformed one matches nothing). Notifications the policy filtered are left out
 * unless `include_filtered` is set or one sender is asked for.
 */
export function notificationFilter(
  types: string[] | undefined,
  excludeTypes: string[] | undefined,
  accountId: string | undefined,
  includeFiltered = false,
): NotificationFilter {
  let wanted: string[] = types && types.length ? NOTIFICATION_TYPES.filter((t) => types.includes(t)) : [...NOTIFICATION_TYPES];
  if (excludeTypes?.length) wanted = wanted.filter((t) => !excludeTypes.includes(t));
  const typesJson = wanted.length === NOTIFICATION_TYPES.length ? null : JSON.stringify(wanted);
  const fromAccountId = accountId === undefined || accountId === "" ? null : (parseId(accountId) ?? "0");
  return { typesJson, fromAccountId, includeFiltered: includeFiltered || fromAccountId !== null };
}

export function listNotifications(
  app: App,
  viewerId: Id,
  filter: NotificationFilter,
  page: { limit: number; maxId?: Id; sinceId?: Id; minId?: Id },
): Notification[] {
  return listNotificationsPage(app.db, viewerId, filter, page, app.now());
}

/** One of the viewer's notifications; 404 for anyone else's or a hidden one. */
export function getNotification(app: App, viewerId: Id, rawId: string | undefined): Notification {
  const id = parseId(rawId);
  const n = id && findVisibleNotification(app.db, viewerId, id, app.now());
  if (!n) throw notFound();
  return n;
}

/** One of the viewer's notifications as GET /api/v1/notifications would show it, or undefined (live streams). */
export function findNotification(app: App, viewerId: Id, id: Id): Notification | undefined {
  return findVisibleNotification(app.db, viewerId, id, app.now());
}

export function dismissNotification(app: App, viewerId: Id, rawId: string | undefined): void {
  const id = parseId(rawId);
  if (!id || !deleteNotification(app.db, viewerId, id)) throw notFound();
}

export function clearNotifications(app: App, viewerId: Id): void {
  deleteAllNotifications(app.db, viewerId);
}

/** Notifications newer than the `notifications` marker (all without one), capped at `limit`. */
export function unreadNotificationCount(app: App, viewerId: Id, filter: NotificationFilter, limit: number): number {
  const marker = notificationsMarker(app.db, viewerId);
  const after = marker === undefined ? null : (parseId(marker) ?? null);
  return countNotificationsAfter(app.db, viewerId, filter, after, limit, app.now());
}
