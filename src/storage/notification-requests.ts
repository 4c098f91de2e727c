import { type DB, type Row, stmt, str, strOrNull, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type Keyset, keysetSql } from "./keyset.ts";

/** Filtered mentions from one sender, waiting for the recipient (Mastodon's NotificationRequest). */
export interface NotificationRequest {
  id: Id;
  accountId: Id;
  fromAccountId: Id;
  lastStatusId: Id | null;
  /** Filtered mentions held, counted up to NotificationRequest::MAX_MEANINGFUL_COUNT. */
  notificationsCount: number;
  createdAt: number;
  updatedAt: number;
}

const MAX_MEANINGFUL_COUNT = 100;

// The count is read live: the trigger of migration 0020 removes a request whose last mention
// went, and any other change to its mentions is seen at once.
const COLUMNS = `r.*, (SELECT count(*) FROM (SELECT 1 FROM notifications n WHERE n.account_id = r.account_id
  AND n.from_account_id = r.from_account_id AND n.filtered = 1 AND n.type = 'mention' LIMIT ${MAX_MEANINGFUL_COUNT})) AS notifications_count`;

function rowToRequest(r: Row): NotificationRequest {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    fromAccountId: str(r.from_account_id),
    lastStatusId: strOrNull(r.last_status_id),
    notificationsCount: num(r.notifications_count),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/**
 * A new filtered mention: makes the sender's request or moves it on to this status (never
 * back to an older one: fan-out jobs may deliver a sender's posts out of order).
 */
export function upsertNotificationRequest(db: DB, r: { id: Id; accountId: Id; fromAccountId: Id; statusId: Id; now: number }): void {
  stmt(
    db,
    `INSERT INTO notification_requests (id, account_id, from_account_id, last_status_id, created_at, updated_at)
     VALUES (@id, @account, @from, @status, @now, @now)
     ON CONFLICT (account_id, from_account_id) DO UPDATE SET
       last_status_id = CASE WHEN last_status_id IS NULL OR excluded.last_status_id > last_status_id
                             THEN excluded.last_status_id ELSE last_status_id END,
       updated_at = excluded.updated_at`,
  ).run({ id: BigInt(r.id), account: BigInt(r.accountId), from: BigInt(r.fromAccountId), status: BigInt(r.statusId), now: r.now });
}

/** The recipient's requests, newest first, without those of suspended senders. */
export function listNotificationRequestsPage(db: DB, accountId: Id, page: Keyset): NotificationRequest[] {
  const k = keysetSql("r.id", page);
  const rows = stmt(
    db,
    `SELECT ${COLUMNS} FROM notification_requests r JOIN accounts a ON a.id = r.from_account_id
     WHERE r.account_id = @me AND a.suspended_at IS NULL${k.where} ${k.order}`,
  ).all({ me: BigInt(accountId), ...k.params }) as Row[];
  const list = rows.map(rowToRequest);
  return k.reverse ? list.reverse() : list;
}

export function findNotificationRequest(db: DB, accountId: Id, id: Id): NotificationRequest | undefined {
  const r = stmt(db, `SELECT ${COLUMNS} FROM notification_requests r WHERE r.id = ? AND r.account_id = ?`).get(BigInt(id), BigInt(accountId)) as
    | Row
    | undefined;
  return r && rowToRequest(r);
}

/** The recipient's requests among `ids` (unknown and others' ids are left out). */
export function findNotificationRequestsByIds(db: DB, accountId: Id, ids: Id[]): NotificationRequest[] {
  const rows = stmt(
    db,
    `SELECT ${COLUMNS} FROM notification_requests r WHERE r.account_id = ? AND r.id IN (SELECT value FROM json_each(?))`,
  ).all(BigInt(accountId), JSON.stringify(ids)) as Row[];
  return rows.map(rowToRequest);
}

export function deleteNotificationRequest(db: DB, id: Id): void {
  stmt(db, "DELETE FROM notification_requests WHERE id = ?").run(BigInt(id));
}

/** Brings a sender's filtered notifications back into the recipient's lists. */
export function unfilterNotificationsFrom(db: DB, accountId: Id, fromAccountId: Id): number {
  return stmt(db, "UPDATE notifications SET filtered = 0 WHERE account_id = ? AND from_account_id = ? AND filtered = 1").run(
    BigInt(accountId),
    BigInt(fromAccountId),
  ).changes;
}

/** Deletes a sender's filtered notifications (Mastodon's FilteredNotificationCleanupWorker). */
export function deleteFilteredNotificationsFrom(db: DB, accountId: Id, fromAccountId: Id): number {
  return stmt(db, "DELETE FROM notifications WHERE account_id = ? AND from_account_id = ? AND filtered = 1").run(
    BigInt(accountId),
    BigInt(fromAccountId),
  ).changes;
}

/** Ids of the statuses of a sender's filtered mentions that are direct messages, oldest first. */
export function filteredDirectMentionStatusIds(db: DB, accountId: Id, fromAccountId: Id): Id[] {
  const rows = stmt(
    db,
    `SELECT s.id FROM notifications n JOIN statuses s ON s.id = n.status_id
     WHERE n.account_id = ? AND n.from_account_id = ? AND n.filtered = 1 AND n.type = 'mention'
       AND s.visibility = 'direct' AND s.limited = 0 AND s.deleted_at IS NULL
     ORDER BY s.id`,
  ).all(BigInt(accountId), BigInt(fromAccountId)) as Row[];
  return rows.map((r) => str(r.id));
}
