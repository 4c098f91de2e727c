import { type DB, type Row, stmt, str, num, numOrNull, bool, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type KeysetPage, type PageRow, selectPage } from "./relationship-pages.ts";

// A mute with expires_at in the past no longer counts anywhere (every query checks it), so
// an expired row is as good as deleted; re-muting overwrites it.

export interface Mute {
  id: Id;
  accountId: Id;
  targetAccountId: Id;
  hideNotifications: boolean;
  expiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

function rowToMute(r: Row): Mute {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    targetAccountId: str(r.target_account_id),
    hideNotifications: bool(r.hide_notifications),
    expiresAt: numOrNull(r.expires_at),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** Creates the mute or replaces its options (and, when it had expired, its id and creation time). */
export function upsertMute(db: DB, m: Mute, now: number): Mute {
  const r = stmt(
    db,
    `INSERT INTO mutes (id, account_id, target_account_id, hide_notifications, expires_at, created_at, updated_at)
     VALUES (@id, @accountId, @targetId, @hide, @expiresAt, @createdAt, @updatedAt)
     ON CONFLICT (account_id, target_account_id) DO UPDATE SET
       id = CASE WHEN mutes.expires_at IS NOT NULL AND mutes.expires_at <= @now THEN excluded.id ELSE mutes.id END,
       created_at = CASE WHEN mutes.expires_at IS NOT NULL AND mutes.expires_at <= @now THEN excluded.created_at ELSE mutes.created_at END,
       hide_notifications = excluded.hide_notifications,
       expires_at = excluded.expires_at,
       updated_at = excluded.updated_at
     RETURNING *`,
  ).get({
    id: BigInt(m.id),
    accountId: BigInt(m.accountId),
    targetId: BigInt(m.targetAccountId),
    hide: m.hideNotifications ? 1 : 0,
    expiresAt: m.expiresAt,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
    now,
  }) as Row;
  return rowToMute(r);
}

export function deleteMute(db: DB, accountId: Id, targetId: Id): boolean {
  return stmt(db, "DELETE FROM mutes WHERE account_id = ? AND target_account_id = ?").run(BigInt(accountId), BigInt(targetId)).changes > 0;
}

/** Active mutes of `accountId` (suspended targets excluded), newest first; cursor = mute id. */
export function listMutesPage(db: DB, accountId: Id, page: KeysetPage, now: number): PageRow[] {
  return selectPage(
    db,
    page,
    "m.id",
    (where, order) => `SELECT m.id AS cursor, m.target_account_id AS account_id FROM mutes m JOIN accounts a ON a.id = m.target_account_id
      WHERE m.account_id = @accountId AND (m.expires_at IS NULL OR m.expires_at > @now) AND a.suspended_at IS NULL${where}
      ORDER BY ${order} LIMIT @limit`,
    { accountId: BigInt(accountId), now },
  );
}

/** Active mutes of `accountId` on the given targets, by target id. */
export function activeMutesAmong(db: DB, accountId: Id, targetIds: Iterable<Id>, now: number): Map<Id, Mute> {
  const rows = stmt(
    db,
    `SELECT * FROM mutes WHERE account_id = ? AND target_account_id IN (SELECT value FROM json_each(?))
     AND (expires_at IS NULL OR expires_at > ?)`,
  ).all(BigInt(accountId), idListJson(targetIds), now) as Row[];
  return new Map(rows.map((r) => [str(r.target_account_id), rowToMute(r)]));
}

/** Housekeeping: drops mutes whose time is up (Mastodon's DeleteMuteWorker). */
export function deleteExpiredMutes(db: DB, now: number): number {
  return stmt(db, "DELETE FROM mutes WHERE expires_at IS NOT NULL AND expires_at <= ?").run(now).changes;
}
