import { type DB, type Row, stmt, str, strOrNull, num, json, bool } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export interface Notification {
  id: Id;
  /** The recipient. */
  accountId: Id;
  fromAccountId: Id;
  type: string;
  /** For reblog and favourite: the original status. */
  statusId: Id | null;
  /** For admin.report: the report. */
  reportId?: Id | null;
  /** For moderation_warning: the warning. */
  accountWarningId?: Id | null;
  groupKey: string | null;
  /** Held back by the recipient's notification policy (hidden unless asked for). */
  filtered: boolean;
  createdAt: number;
}

/**
 * A notification's columns for pages (alias `n`), ids as text: turning 64-bit integers into
 * BigInts and then strings costs more than reading the rows (use with rows.ts allRows).
 */
export const NOTIFICATION_COLUMNS = `CAST(n.id AS TEXT) AS id, CAST(n.account_id AS TEXT) AS account_id,
  CAST(n.from_account_id AS TEXT) AS from_account_id, n.type, CAST(n.status_id AS TEXT) AS status_id,
  CAST(n.report_id AS TEXT) AS report_id, CAST(n.account_warning_id AS TEXT) AS account_warning_id, n.group_key, n.filtered, n.created_at`;

export function rowToNotification(r: Row): Notification {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    fromAccountId: str(r.from_account_id),
    type: r.type as string,
    statusId: strOrNull(r.status_id),
    reportId: strOrNull(r.report_id),
    accountWarningId: strOrNull(r.account_warning_id),
    groupKey: (r.group_key as string | null) ?? null,
    filtered: bool(r.filtered),
    createdAt: num(r.created_at),
  };
}

export function insertNotification(db: DB, n: Notification): void {
  stmt(
    db,
    `INSERT INTO notifications (id, account_id, from_account_id, type, status_id, report_id, account_warning_id, group_key, filtered, created_at)
     VALUES (@id, @accountId, @fromAccountId, @type, @statusId, @reportId, @accountWarningId, @groupKey, @filtered, @createdAt)`,
  ).run({
    id: BigInt(n.id),
    accountId: BigInt(n.accountId),
    fromAccountId: BigInt(n.fromAccountId),
    type: n.type,
    statusId: n.statusId ? BigInt(n.statusId) : null,
    reportId: n.reportId ? BigInt(n.reportId) : null,
    accountWarningId: n.accountWarningId ? BigInt(n.accountWarningId) : null,
    groupKey: n.groupKey,
    filtered: n.filtered ? 1 : 0,
    createdAt: n.createdAt,
  });
}

/** The same activity already notified (Mastodon keeps one notification per activity). */
export function notificationExists(db: DB, type: string, accountId: Id, fromAccountId: Id, statusId: Id | null): boolean {
  return !!stmt(
    db,
    `SELECT 1 FROM notifications WHERE account_id = @accountId AND from_account_id = @from AND type = @type
       AND status_id IS @statusId LIMIT 1`,
  ).get({ accountId: BigInt(accountId), from: BigInt(fromAccountId), type, statusId: statusId ? BigInt(statusId) : null });
}

/**
 * The recipient's newest group key starting with `prefix-`. Hour buckets have six digits
 * until 2084, so the largest key of a prefix is also the latest.
 */
export function latestGroupKey(db: DB, accountId: Id, prefix: string): string | undefined {
  const r = stmt(
    db,
    `SELECT group_key FROM notifications WHERE account_id = ? AND group_key >= ? AND group_key < ?
     ORDER BY group_key DESC LIMIT 1`,
  ).get(BigInt(accountId), `${prefix}-0`, `${prefix}-:`) as Row | undefined;
  return r ? (r.group_key as string) : undefined;
}

/** A local, not suspended account (one with a users row): the only kind that gets notifications. */
export function isNotifiableLocalAccount(db: DB, accountId: Id): boolean {
  return !!stmt(
    db,
    "SELECT 1 FROM accounts a JOIN users u ON u.account_id = a.id WHERE a.id = ? AND a.suspended_at IS NULL",
  ).get(BigInt(accountId));
}

/** Following the account, or asked to: Mastodon's `following_sender?`. */
export function isFollowingOrRequested(db: DB, accountId: Id, targetId: Id): boolean {
  return !!stmt(
    db,
    `SELECT 1 FROM follows WHERE account_id = @a AND target_account_id = @b
     UNION ALL SELECT 1 FROM follow_requests WHERE account_id = @a AND target_account_id = @b LIMIT 1`,
  ).get({ a: BigInt(accountId), b: BigInt(targetId) });
}

/**
 * Mastodon's mention filter: the recipient blocks, or mutes with notifications hidden, an
 * account the status mentions or replies to.
 */
export function mentionTouchesHiddenAccount(db: DB, recipientId: Id, statusId: Id, now: number): boolean {
  return !!stmt(
    db,
    `WITH involved(id) AS (
       SELECT account_id FROM mentions WHERE status_id = @status
       UNION SELECT in_reply_to_account_id FROM statuses WHERE id = @status AND in_reply_to_account_id IS NOT NULL)
     SELECT 1 FROM involved i WHERE i.id <> @me AND (
       EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = @me AND b.target_account_id = i.id)
       OR EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = @me AND m.target_account_id = i.id
                  AND m.hide_notifications = 1 AND (m.expires_at IS NULL OR m.expires_at > @now)))
     LIMIT 1`,
  ).get({ me: BigInt(recipientId), status: BigInt(statusId), now });
}

/** Local accounts mentioned (not silently) by a status. */
export function localMentionedAccountIds(db: DB, statusId: Id): Id[] {
  const rows = stmt(
    db,
    `SELECT m.account_id FROM mentions m JOIN users u ON u.account_id = m.account_id
     WHERE m.status_id = ? AND m.silent = 0 ORDER BY m.id`,
  ).all(BigInt(statusId)) as Row[];
  return rows.map((r) => str(r.account_id));
}

/**
 * Local followers of an account who asked to be notified of its posts, with the languages
 * they follow it in (null: all).
 */
export function localNotifyingFollowers(db: DB, accountId: Id): { accountId: Id; languages: string[] | null }[] {
  const rows = stmt(
    db,
    `SELECT f.account_id, f.languages FROM follows f JOIN users u ON u.account_id = f.account_id
     WHERE f.target_account_id = ? AND f.notify = 1`,
  ).all(BigInt(accountId)) as Row[];
  return rows.map((r) => ({ accountId: str(r.account_id), languages: json<string[] | null>(r.languages, null) }));
}

/** Local accounts with a live boost of the status. */
export function localReblogerIds(db: DB, statusId: Id): Id[] {
  const rows = stmt(
    db,
    `SELECT DISTINCT s.account_id FROM statuses s JOIN users u ON u.account_id = s.account_id
     WHERE s.reblog_of_id = ? AND s.deleted_at IS NULL`,
  ).all(BigInt(statusId)) as Row[];
  return rows.map((r) => str(r.account_id));
}
