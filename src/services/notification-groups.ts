// Grouped notifications (Mastodon 4.3, /api/v2/notifications): pages of groups rather than
// of notifications. Notifications sharing a group_key (favourites or reblogs of one post,
// follows, sign-ups, each within 12 hours: see notify()) form one group; every other one is
// a group of its own, `ungrouped-<id>`.
import type { App } from "../app.ts";
import { readTx, tx } from "../db/db.ts";
import { notFound } from "../errors.ts";
import { compareIds, type Id, parseId } from "../lib/ids.ts";
import {
  type NotificationGroup,
  deleteNotificationsOfGroup,
  findNotificationOfGroup,
  listGroupMembersPage,
  loadGroupMembersBelow,
} from "../storage/notification-groups.ts";
import {
  deleteNotification,
  findVisibleNotification,
  notificationsMarker,
  scanNotifications,
  type NotificationFilter,
} from "../storage/notification-reads.ts";
import type { Notification } from "../storage/notifications.ts";
import { GROUPABLE_TYPES } from "./notifications.ts";

export type { NotificationGroup };

// NotificationGroup::SAMPLE_ACCOUNTS_SIZE
const SAMPLE_ACCOUNTS = 8;
// Notifications read to fill one page of groups: a very large group (a post going viral)
// would otherwise make every page walk all of it.
const MAX_SCAN = 5000;
const MAX_CHUNK = 500;

/**
 * `grouped_types[]`: which groupable types may be grouped. Absent or empty: all of them; an
 * unknown type is ignored (so a list of unknown ones groups nothing).
 */
export function groupedTypesOf(raw: string[] | undefined): Set<string> {
  if (!raw || raw.length === 0) return new Set(GROUPABLE_TYPES);
  return new Set([...GROUPABLE_TYPES].filter((t) => raw.includes(t)));
}

const keyOf = (n: Notification, grouped: Set<string>) =>
  n.groupKey !== null && grouped.has(n.type) ? n.groupKey : `ungrouped-${n.id}`;

interface Scan {
  /** The first notification of each group, in scan order. */
  firsts: Notification[];
  /** Every notification read, in scan order. */
  rows: Notification[];
  /** The scan reached its far bound (rather than the page size or MAX_SCAN). */
  exhausted: boolean;
}

/**
 * Mastodon's paginate_groups: walks the notifications in id order from the cursor and keeps
 * the first one of each group until `limit` groups are found. Reads in chunks sized from
 * what the page still needs, so a page of small groups reads little more than it shows.
 */
function scanGroups(
  app: App,
  viewerId: Id,
  filter: NotificationFilter,
  grouped: Set<string>,
  s: { below: Id | null; above: Id | null; ascending: boolean; limit: number },
): Scan {
  const seen = new Set<string>();
  const scan: Scan = { firsts: [], rows: [], exhausted: false };
  let { below, above } = s;
  while (scan.firsts.length < s.limit && scan.rows.length < MAX_SCAN) {
    // Rows per group so far (1 before any) times the groups still wanted, and a few more.
    const perGroup = scan.firsts.length ? scan.rows.length / scan.firsts.length : 1;
    const size = Math.min(MAX_CHUNK, MAX_SCAN - scan.rows.length, Math.ceil((s.limit - scan.firsts.length) * perGroup) + 10);
    const chunk = scanNotifications(app.db, viewerId, filter, { below, above, ascending: s.ascending, limit: size }, app.now());
    for (const n of chunk) {
      if (scan.firsts.length >= s.limit) break;
      scan.rows.push(n);
      const key = keyOf(n, grouped);
      if (seen.has(key)) continue;
      seen.add(key);
      scan.firsts.push(n);
    }
    if (chunk.length < size) {
      scan.exhausted = scan.firsts.length < s.limit;
      break;
    }
    const last = chunk[chunk.length - 1].id;
    if (s.ascending) above = last;
    else below = last;
  }
  return scan;
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
    const scan = scanGroups(app, viewerId, filter, grouped, {
      below: page.maxId ?? null,
      above: (up ? page.minId : page.sinceId) ?? null,
      ascending: up,
      limit: page.limit,
    });
    const firsts = up ? [...scan.firsts].reverse() : scan.firsts;
    if (firsts.length === 0) return { groups: [], cursors: [] };
    // The range the groups' counts and samples are bounded by (Mastodon's pagination_range):
    // the page's notifications, or to the end of the list on a last, incomplete page. The
    // scan read every notification in it (a scan stopped by MAX_SCAN ends it where it stopped).
    let lower: Id | null = firsts[firsts.length - 1].id;
    let upper: Id | null = firsts[0].id;
    if (scan.exhausted) {
      if (up) upper = page.maxId ? (BigInt(page.maxId) - 1n).toString() : null;
      else lower = page.sinceId ? (BigInt(page.sinceId) + 1n).toString() : null;
    } else if (firsts.length < page.limit) {
      const last = scan.rows[scan.rows.length - 1].id;
      if (up) upper = last;
      else lower = last;
    }
    const groups = buildGroups(app, viewerId, firsts, grouped, { lower, upper, rows: scan.rows });
    const cursors = firsts.map((n) => n.id);
    // A scan stopped by MAX_SCAN links on from where it stopped, or the next page would walk
    // the same huge group again.
    if (!scan.exhausted && firsts.length < page.limit) {
      const last = scan.rows[scan.rows.length - 1].id;
      if (up) cursors.unshift(last);
      else cursors.push(last);
    }
    return { groups, cursors };
  });
}

/**
 * Mastodon's NotificationGroup.from_notifications. On a list page (`page`), a group is what
 * the scan read of it within the page range, plus its members below the range; elsewhere it
 * is all of its members.
 */
function buildGroups(
  app: App,
  viewerId: Id,
  notifications: Notification[],
  grouped: Set<string>,
  page?: { lower: Id | null; upper: Id | null; rows: Notification[] },
): NotificationGroup[] {
  const keys = notifications.filter((n) => keyOf(n, grouped) === n.groupKey).map((n) => n.groupKey!);
  const inRange = new Map<string, Notification[]>(keys.map((k) => [k, []]));
  if (page) {
    const { lower, upper } = page;
    for (const r of page.rows) {
      const list = r.groupKey !== null ? inRange.get(r.groupKey) : undefined;
      if (!list || !grouped.has(r.type)) continue;
      if ((lower === null || compareIds(r.id, lower) >= 0) && (upper === null || compareIds(r.id, upper) <= 0)) list.push(r);
    }
    // Rows come in scan order: oldest first when the scan went up.
    if (page.rows.length > 1 && compareIds(page.rows[0].id, page.rows[1].id) < 0) for (const list of inRange.values()) list.reverse();
  }
  // Members below the range (all members when not a list page); none when it reaches the bottom.
  const below =
    page && page.lower === null ? new Map() : loadGroupMembersBelow(app.db, viewerId, keys, page ? page.lower : null, SAMPLE_ACCOUNTS, app.now());
  return notifications.map((n): NotificationGroup => {
    const key = keyOf(n, grouped);
    const within = inRange.get(key) ?? [];
    const tail = below.get(key);
    const latest = [
      ...within.map((r) => ({ id: r.id, fromAccountId: r.fromAccountId, createdAt: r.createdAt })),
      ...(tail?.latest ?? []),
    ].slice(0, SAMPLE_ACCOUNTS);
    if (key !== n.groupKey || latest.length === 0) {
      return {
        groupKey: `ungrouped-${n.id}`,
        notification: n,
        count: 1,
        mostRecentId: n.id,
        sampleAccountIds: [n.fromAccountId],
        page: page && { minId: n.id, latestAt: n.createdAt },
      };
    }
    return {
      groupKey: key,
      notification: n,
      count: within.length + (tail?.count ?? 0),
      mostRecentId: latest[0].id,
      sampleAccountIds: latest.map((x) => x.fromAccountId),
      page: page && { minId: within.length ? within[within.length - 1].id : n.id, latestAt: latest[0].createdAt },
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
    return scanGroups(app, viewerId, filter, grouped, { below: null, above: after, ascending: true, limit }).firsts.length;
  });
}
