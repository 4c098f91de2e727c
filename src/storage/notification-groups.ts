import { type DB, type Row, stmt, str, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { binds, VISIBLE } from "./notification-reads.ts";
import { rowToNotification, type Notification } from "./notifications.ts";

// Grouped notifications (Mastodon 4.3's NotificationGroup): what a group of a recipient's
// notifications sharing one group_key looks like up to a page boundary. Only notifications
// the recipient may still see count (the VISIBLE rule of notification-reads.ts), so a muted
// or suspended sender never shows among the samples.

/** A page's group (services/notification-groups.ts builds them). */
export interface NotificationGroup {
  groupKey: string;
  /** The page's notification for the group (its type, status and report). */
  notification: Notification;
  count: number;
  mostRecentId: Id;
  /** Newest first, up to 8. */
  sampleAccountIds: Id[];
  /** List pages only: the group's oldest notification in the page range, and its newest one's time. */
  page?: { minId: Id; latestAt: number };
}

const EVERYTHING = { typesJson: null, fromAccountId: null, includeFiltered: true };
const MAX = "9223372036854775807";

export interface GroupMembers {
  /** Newest first: the newest `samples` members (id, sender, time). */
  latest: { id: Id; fromAccountId: Id; createdAt: number }[];
  count: number;
}

/**
 * Per group key, the members below `below` (null: all of them): how many, and the newest
 * `samples`. One query whatever the number of groups; a group with no member there costs
 * one index seek.
 */
export function loadGroupMembersBelow(
  db: DB,
  me: Id,
  keys: string[],
  below: Id | null,
  samples: number,
  now: number,
): Map<string, GroupMembers> {
  const out = new Map<string, GroupMembers>();
  // Most groups of a page lie wholly inside it: those are found out from the index alone.
  if (below !== null) keys = groupKeysWithMembersBelow(db, me, keys, below);
  if (keys.length === 0) return out;
  const members = `FROM notifications n JOIN accounts a ON a.id = n.from_account_id
    WHERE ${VISIBLE} AND n.group_key = g.value AND n.id < +@below`;
  const rows = stmt(
    db,
    `SELECT g.value AS group_key,
       (SELECT json_group_array(json_array(CAST(x.id AS TEXT), CAST(x.from_account_id AS TEXT), x.created_at) ORDER BY x.id DESC)
          FROM (SELECT n.id, n.from_account_id, n.created_at ${members} ORDER BY n.id DESC LIMIT +@samples) x) AS latest,
       (SELECT count(*) ${members}) AS count
     FROM json_each(@keys) g`,
  ).all({ ...binds(me, EVERYTHING, now), keys: JSON.stringify(keys), below: BigInt(below ?? MAX), samples }) as Row[];
  for (const r of rows) {
    const latest = (JSON.parse(r.latest as string) as [string, string, number][]).map(([id, from, at]) => ({
      id,
      fromAccountId: from,
      createdAt: at,
    }));
    out.set(r.group_key as string, { latest, count: num(r.count) });
  }
  return out;
}

function groupKeysWithMembersBelow(db: DB, me: Id, keys: string[], below: Id): string[] {
  const rows = stmt(
    db,
    `SELECT g.value AS k FROM json_each(@keys) g WHERE EXISTS (SELECT 1 FROM notifications n
       WHERE n.account_id = +@me AND n.group_key = g.value AND n.id < +@below)`,
  ).all({ keys: JSON.stringify(keys), me: BigInt(me), below: BigInt(below) }) as Row[];
  return rows.map((r) => r.k as string);
}

/** The newest visible notification of a group key (filtered ones included), or undefined. */
export function findNotificationOfGroup(db: DB, me: Id, groupKey: string, now: number): Notification | undefined {
  const r = stmt(
    db,
    `SELECT n.* FROM notifications n JOIN accounts a ON a.id = n.from_account_id
     WHERE ${VISIBLE} AND n.group_key = @key ORDER BY n.id DESC LIMIT 1`,
  ).get({ ...binds(me, EVERYTHING, now), key: groupKey }) as Row | undefined;
  return r && rowToNotification(r);
}

/**
 * A page of a group's visible notifications (ids and senders), newest first, between the
 * cursors; with `ascending` the page is the oldest above `above`, still returned newest first.
 */
export function listGroupMembersPage(
  db: DB,
  me: Id,
  groupKey: string,
  page: { below: Id | null; above: Id | null; ascending: boolean; limit: number },
  now: number,
): { id: Id; fromAccountId: Id }[] {
  const rows = stmt(
    db,
    `SELECT n.id, n.from_account_id FROM notifications n JOIN accounts a ON a.id = n.from_account_id
     WHERE ${VISIBLE} AND n.group_key = @key AND n.id < +@below AND n.id > +@above
     ORDER BY n.id ${page.ascending ? "ASC" : "DESC"} LIMIT +@limit`,
  ).all({
    ...binds(me, EVERYTHING, now),
    key: groupKey,
    below: BigInt(page.below ?? MAX),
    above: BigInt(page.above ?? "0"),
    limit: page.limit,
  }) as Row[];
  const list = rows.map((r) => ({ id: str(r.id), fromAccountId: str(r.from_account_id) }));
  return page.ascending ? list.reverse() : list;
}

/** Deletes every notification of the recipient with this group key; returns how many. */
export function deleteNotificationsOfGroup(db: DB, me: Id, groupKey: string): number {
  return stmt(db, "DELETE FROM notifications WHERE account_id = ? AND group_key = ?").run(BigInt(me), groupKey).changes;
}

/** The earliest future expiry of a mute of the recipient's that hides notifications; null: none. */
export function nextNotificationMuteExpiry(db: DB, me: Id, now: number): number | null {
  const r = stmt(
    db,
    "SELECT min(expires_at) AS t FROM mutes WHERE account_id = ? AND hide_notifications = 1 AND expires_at > ?",
  ).get(BigInt(me), now) as Row;
  return r.t === null ? null : num(r.t);
}
