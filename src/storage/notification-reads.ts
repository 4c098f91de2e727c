import { type DB, type Row, stmt, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { allRows } from "../db/rows.ts";
import { NOTIFICATION_COLUMNS, rowToNotification, type Notification } from "./notifications.ts";

export interface NotificationFilter {
  /** JSON array of the types to return; null: every type. */
  typesJson: string | null;
  /** Only from this account; "0" matches nothing (a malformed account_id). */
  fromAccountId: Id | null;
  /** Also those the notification policy held back (otherwise hidden). */
  includeFiltered: boolean;
}

const MAX = "9223372036854775807";

// Parameters are written `+@name`: SQLite re-plans a statement on every bind when a bare
// parameter sets a LIMIT or meets an indexed column sampled by ANALYZE (sqlite_stat4); the
// unary plus hides the value from the planner, and the indexes are used just the same.
//
// What a recipient may see now, whatever was true when the notification was made: nothing
// from suspended accounts, from accounts blocked either way or muted with notifications
// hidden since, from domains the recipient blocked (unless followed, as at creation), nor
// about a status that has gone. The blocked and muted accounts are one list, read once per
// query rather than looked up for every row.
export const VISIBLE = `
  n.account_id = +@me
  AND a.suspended_at IS NULL
  AND n.from_account_id NOT IN (
        SELECT b.target_account_id FROM blocks b WHERE b.account_id = +@me
        UNION ALL SELECT b.account_id FROM blocks b WHERE b.target_account_id = +@me
        UNION ALL SELECT m.target_account_id FROM mutes m WHERE m.account_id = +@me AND m.hide_notifications = 1
                  AND (m.expires_at IS NULL OR m.expires_at > +@now))
  AND (a.domain IS NULL
       OR NOT EXISTS (SELECT 1 FROM account_domain_blocks d WHERE d.account_id = +@me AND d.domain = lower(a.domain))
       OR EXISTS (SELECT 1 FROM follows f WHERE f.account_id = +@me AND f.target_account_id = a.id))
  AND (n.status_id IS NULL OR EXISTS (SELECT 1 FROM statuses s WHERE s.id = n.status_id AND s.deleted_at IS NULL))
  AND (+@types IS NULL OR n.type IN (SELECT value FROM json_each(@types)))
  AND (+@from IS NULL OR n.from_account_id = +@from)
  AND (+@filtered OR n.filtered = 0)`;

const PAGE_DESC = `SELECT ${NOTIFICATION_COLUMNS} FROM notifications n JOIN accounts a ON a.id = n.from_account_id
  WHERE ${VISIBLE} AND n.id < +@below AND n.id > +@above ORDER BY n.id DESC LIMIT +@limit`;
const PAGE_ASC = `SELECT ${NOTIFICATION_COLUMNS} FROM notifications n JOIN accounts a ON a.id = n.from_account_id
  WHERE ${VISIBLE} AND n.id < +@below AND n.id > +@above ORDER BY n.id ASC LIMIT +@limit`;

export function binds(me: Id, f: NotificationFilter, now: number) {
  return {
    me: BigInt(me),
    now,
    types: f.typesJson,
    from: f.fromAccountId ? BigInt(f.fromAccountId) : null,
    filtered: f.includeFiltered ? 1 : 0,
  };
}

/**
 * One page, newest first, by keyset on the (account_id, id) index. With `minId` the page is
 * the oldest `limit` notifications above it (Mastodon's min_id), still returned newest first.
 */
export function listNotificationsPage(
  db: DB,
  me: Id,
  f: NotificationFilter,
  page: { limit: number; maxId?: Id; sinceId?: Id; minId?: Id },
  now: number,
): Notification[] {
  const ascending = page.minId !== undefined;
  const above = (ascending ? page.minId : page.sinceId) ?? null;
  const list = scanNotifications(db, me, f, { below: page.maxId ?? null, above, ascending, limit: page.limit }, now);
  return ascending ? list.reverse() : list;
}

/**
 * Up to `limit` visible notifications strictly between `above` and `below` (null: unbounded),
 * in scan order: newest first, or oldest first when `ascending`.
 */
export function scanNotifications(
  db: DB,
  me: Id,
  f: NotificationFilter,
  s: { below: Id | null; above: Id | null; ascending: boolean; limit: number },
  now: number,
): Notification[] {
  const params = { ...binds(me, f, now), below: BigInt(s.below ?? MAX), above: BigInt(s.above ?? "0"), limit: s.limit };
  return allRows(db, s.ascending ? PAGE_ASC : PAGE_DESC, params).map(rowToNotification);
}

export function findVisibleNotification(db: DB, me: Id, id: Id, now: number): Notification | undefined {
  const r = stmt(
    db,
    `SELECT n.* FROM notifications n JOIN accounts a ON a.id = n.from_account_id WHERE n.id = +@id AND ${VISIBLE}`,
  ).get({ ...binds(me, { typesJson: null, fromAccountId: null, includeFiltered: true }, now), id: BigInt(id) }) as Row | undefined;
  return r && rowToNotification(r);
}

/** Visible notifications newer than `afterId`, counted up to `limit`. */
export function countNotificationsAfter(db: DB, me: Id, f: NotificationFilter, afterId: Id | null, limit: number, now: number): number {
  const r = stmt(
    db,
    `SELECT count(*) AS c FROM (SELECT 1 FROM notifications n JOIN accounts a ON a.id = n.from_account_id
       WHERE ${VISIBLE} AND n.id > +@above ORDER BY n.id ASC LIMIT +@limit)`,
  ).get({ ...binds(me, f, now), above: BigInt(afterId ?? "0"), limit }) as Row;
  return num(r.c);
}

/** Deletes one of the recipient's notifications; false when it is not theirs. */
export function deleteNotification(db: DB, me: Id, id: Id): boolean {
  return stmt(db, "DELETE FROM notifications WHERE id = ? AND account_id = ?").run(BigInt(id), BigInt(me)).changes > 0;
}

export function deleteAllNotifications(db: DB, me: Id): void {
  stmt(db, "DELETE FROM notifications WHERE account_id = ?").run(BigInt(me));
}

/** The `notifications` read marker (written by the markers endpoint). */
export function notificationsMarker(db: DB, me: Id): string | undefined {
  const r = stmt(db, "SELECT last_read_id FROM markers WHERE account_id = ? AND timeline = 'notifications'").get(BigInt(me)) as
    | Row
    | undefined;
  return r ? String(r.last_read_id) : undefined;
}
