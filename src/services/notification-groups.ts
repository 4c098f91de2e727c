// Grouped notifications (Mastodon 4.3, /api/v2/notifications): pages of groups rather than
// of notifications. Notifications sharing a group_key (favourites or reblogs of one post,
// follows, sign-ups, each within 12 hours: see notify()) form one group; every other one is
// a group of its own, `ungrouped-<id>`.
import type { App } from "../app.ts";
import { readTx, tx } from "../db/db.ts";
import { notFound } from "../errors.ts";
import { type Id, parseId } from "../lib/ids.ts";
import {
  type NotificationGroup,
  deleteNotificationsOfGroup,
  findNotificationOfGroup,
  listGroupMembersPage,
  loadGroupsData,
} from "../storage/notification-groups.ts";
import {
  deleteNotification,
  findVisibleNotification,
  notificationsMarker,
  scanNotifications,
  type NotificationFilter,
} from "../storage/notification-reads.ts";
import type { Notification } from "../storage/notifications.ts";

export type { NotificationGroup };

/** Notification::GROUPABLE_NOTIFICATION_TYPES */
export const GROUPABLE_TYPES: readonly string[] = ["favourite", "reblog", "follow", "admin.sign_up"];
// NotificationGroup::SAMPLE_ACCOUNTS_SIZE
const SAMPLE_ACCOUNTS = 8;
// Notifications read to fill one page of groups: a very large group (a post going viral)
// would otherwise make every page walk all of it.
const MAX_SCAN = 5000;
const SCAN_CHUNK = 200;

/**
 * `grouped_types[]`: which groupable types may be grouped. Absent or empty: all of them; an
 * unknown type is ignored (so a list of unknown ones groups nothing).
 */
export function groupedTypesOf(raw: string[] | undefined): Set<string> {
  if (!raw || raw.length === 0) return new Set(GROUPABLE_TYPES);
  return new Set(GROUPABLE_TYPES.filter((t) => raw.includes(t)));
}

const keyOf = (n: Notification, grouped: Set<string>) =>
  n.groupKey !== null && grouped.has(n.type) ? n.groupKey : `ungrouped-${n.id}`;

/**
 * Mastodon's paginate_groups: walks the notifications in id order from the cursor and keeps
 * the first one of each group until `limit` groups are found. Returned in scan order.
 */
function scanGroups(
  app: App,
  viewerId: Id,
  filter: NotificationFilter,
  grouped: Set<string>,
  s: { below: Id | null; above: Id | null; ascending: boolean; limit: number },
): Notification[] {
  const seen = new Set<string>();
  const firsts: Notification[] = [];
  let { below, above } = s;
  for (let read = 0; firsts.length < s.limit && read < MAX_SCAN; ) {
    // Most pages hold few large groups: the first read is sized for the page.
    const size = read === 0 ? Math.min(SCAN_CHUNK, Math.max(20, 2 * s.limit)) : SCAN_CHUNK;
    const chunk = scanNotifications(app.db, viewerId, filter, { below, above, ascending: s.ascending, limit: size }, app.now());
    for (const n of chunk) {
      const key = keyOf(n, grouped);
      if (seen.has(key)) continue;
      seen.add(key);
      firsts.push(n);
      if (firsts.length >= s.limit) break;
    }
    read += chunk.length;
    if (chunk.length < size) break;
    const last = chunk[chunk.length - 1].id;
    if (s.ascending) above = last;
    else below = last;
  }
  return firsts;
}

export interface GroupedPage {
  groups: NotificationGroup[];
  /** The page's notifications, newest first: the Link header's cursors. */
  cursors: Id[];
}

export function listNotificationGroups(
  app: App,
  viewerId: Id,
  filter: NotificationFilter,
  grouped: Set<string>,
  page: { limit: number; maxId?: Id; sinceId?: Id; minId?: Id },
): GroupedPage {
  return readTx(app.db, () => {
    const up = page.minId !== undefined;
    const firsts = scanGroups(app, viewerId, filter, grouped, {
      below: page.maxId ?? null,
      above: (up ? page.minId : page.sinceId) ?? null,
      ascending: up,
      limit: page.limit,
    });
    if (up) firsts.reverse();
    if (firsts.length === 0) return { groups: [], cursors: [] };
    // The range the groups' counts and samples are bounded by (Mastodon's pagination_range):
    // the page's notifications, or to the end of the list on a last, incomplete page.
    let lower: Id | null = firsts[firsts.length - 1].id;
    let upper: Id | null = firsts[0].id;
    if (firsts.length < page.limit) {
      if (up) upper = page.maxId ? (BigInt(page.maxId) - 1n).toString() : null;
      else lower = page.sinceId ? (BigInt(page.sinceId) + 1n).toString() : null;
    }
    const groups = buildGroups(app, viewerId, firsts, grouped, { lower, upper });
    return { groups, cursors: firsts.map((n) => n.id) };
  });
}

/** Mastodon's NotificationGroup.from_notifications. `range` undefined: not a list page. */
function buildGroups(
  app: App,
  viewerId: Id,
  notifications: Notification[],
  grouped: Set<string>,
  range?: { lower: Id | null; upper: Id | null },
): NotificationGroup[] {
  const keys = notifications.filter((n) => keyOf(n, grouped) === n.groupKey).map((n) => n.groupKey!);
  const data = loadGroupsData(app.db, viewerId, keys, range ?? { lower: null, upper: null }, SAMPLE_ACCOUNTS, app.now());
  return notifications.map((n): NotificationGroup => {
    const key = keyOf(n, grouped);
    const d = key === n.groupKey ? data.get(key) : undefined;
    if (!d || d.latest.length === 0) {
      return {
        groupKey: `ungrouped-${n.id}`,
        notification: n,
        count: 1,
        mostRecentId: n.id,
        sampleAccountIds: [n.fromAccountId],
        page: range && { minId: n.id, latestAt: n.createdAt },
      };
    }
    return {
      groupKey: key,
      notification: n,
      count: d.count,
      mostRecentId: d.latest[0].id,
      sampleAccountIds: d.latest.map((x) => x.fromAccountId),
      page: range && { minId: d.minId ?? n.id, latestAt: d.latest[0].createdAt },
    };
  });
}

/** The notification a group key names: `ungrouped-<id>` is that notification. */
function notificationOfGroup(app: App, viewerId: Id, groupKey: string): Notification | undefined {
  if (groupKey.startsWith("ungrouped-")) {
    const id = parseId(groupKey.slice("ungrouped-".length));
    return id ? findVisibleNotification(app.db, viewerId, id, app.now()) : undefined;
  }
  return findNotificationOfGroup(app.db, viewerId, groupKey, app.now());
}

/** GET /api/v2/notifications/:group_key: the whole group (no page bounds); 404 unknown. */
export function getNotificationGroup(app: App, viewerId: Id, groupKey: string): NotificationGroup {
  return readTx(app.db, () => {
    const n = notificationOfGroup(app, viewerId, groupKey);
    if (!n) throw notFound();
    return buildGroups(app, viewerId, [n], groupedTypesOf(undefined))[0];
  });
}

/** Deletes every notification of the group (nothing for an unknown key, as Mastodon). */
export function dismissNotificationGroup(app: App, viewerId: Id, groupKey: string): void {
  tx(app.db, () => {
    if (!groupKey.startsWith("ungrouped-")) deleteNotificationsOfGroup(app.db, viewerId, groupKey);
    else {
      const id = parseId(groupKey.slice("ungrouped-".length));
      if (id) deleteNotification(app.db, viewerId, id);
    }
  });
}

/**
 * GET /api/v2/notifications/:group_key/accounts: the senders of the group's notifications,
 * newest first, paged by (hidden) notification id. `ungrouped-<id>` gives its one sender.
 */
export function listNotificationGroupAccounts(
  app: App,
  viewerId: Id,
  groupKey: string,
  page: { limit: number; maxId?: Id; sinceId?: Id; minId?: Id },
): { id: Id; fromAccountId: Id }[] {
  if (groupKey.startsWith("ungrouped-")) {
    const n = notificationOfGroup(app, viewerId, groupKey);
    const inPage = n && (!page.maxId || BigInt(n.id) < BigInt(page.maxId)) && BigInt(n.id) > BigInt(page.minId ?? page.sinceId ?? "0");
    return inPage && page.limit > 0 ? [{ id: n.id, fromAccountId: n.fromAccountId }] : [];
  }
  const up = page.minId !== undefined;
  return listGroupMembersPage(
    app.db,
    viewerId,
    groupKey,
    { below: page.maxId ?? null, above: (up ? page.minId : page.sinceId) ?? null, ascending: up, limit: page.limit },
    app.now(),
  );
}

/**
 * GET /api/v2/notifications/unread_count: the groups (not notifications) above the
 * `notifications` marker, at most `limit`.
 */
export function unreadNotificationGroupCount(app: App, viewerId: Id, filter: NotificationFilter, grouped: Set<string>, limit: number): number {
  return readTx(app.db, () => {
    const marker = notificationsMarker(app.db, viewerId);
    const after = marker === undefined ? null : (parseId(marker) ?? null);
    return scanGroups(app, viewerId, filter, grouped, { below: null, above: after, ascending: true, limit }).length;
  });
}
