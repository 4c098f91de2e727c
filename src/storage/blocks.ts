import { type DB, type Row, stmt, str, num, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type KeysetPage, type PageRow, selectPage } from "./relationship-pages.ts";

export interface Block {
  id: Id;
  accountId: Id;
  targetAccountId: Id;
  uri: string;
  createdAt: number;
}

function rowToBlock(r: Row): Block {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    targetAccountId: str(r.target_account_id),
    uri: r.uri as string,
    createdAt: num(r.created_at),
  };
}

export function findBlock(db: DB, accountId: Id, targetId: Id): Block | undefined {
  const r = stmt(db, "SELECT * FROM blocks WHERE account_id = ? AND target_account_id = ?").get(BigInt(accountId), BigInt(targetId)) as
    | Row
    | undefined;
  return r && rowToBlock(r);
}

export function insertBlock(db: DB, b: Block): void {
  stmt(db, "INSERT INTO blocks (id, account_id, target_account_id, uri, created_at) VALUES (?, ?, ?, ?, ?)").run(
    BigInt(b.id),
    BigInt(b.accountId),
    BigInt(b.targetAccountId),
    b.uri,
    b.createdAt,
  );
}

export function deleteBlock(db: DB, accountId: Id, targetId: Id): boolean {
  return stmt(db, "DELETE FROM blocks WHERE account_id = ? AND target_account_id = ?").run(BigInt(accountId), BigInt(targetId)).changes > 0;
}

/** Accounts `accountId` blocks (suspended excluded), newest block first; cursor = block id. */
export function listBlocksPage(db: DB, accountId: Id, page: KeysetPage): PageRow[] {
  return selectPage(
    db,
    page,
    "b.id",
    (where, order) => `SELECT b.id AS cursor, b.target_account_id AS account_id FROM blocks b JOIN accounts a ON a.id = b.target_account_id
      WHERE b.account_id = @accountId AND a.suspended_at IS NULL${where}
      ORDER BY ${order} LIMIT @limit`,
    { accountId: BigInt(accountId) },
  );
}

/** Ids among `accountIds` that block `viewerId` (one query for a page). */
export function blockingViewerAmong(db: DB, viewerId: Id, accountIds: Iterable<Id>): Set<Id> {
  const rows = stmt(
    db,
    "SELECT account_id AS id FROM blocks WHERE target_account_id = ? AND account_id IN (SELECT value FROM json_each(?))",
  ).all(BigInt(viewerId), idListJson(accountIds)) as Row[];
  return new Set(rows.map((r) => str(r.id)));
}

/**
 * What a block (or a mute hiding notifications) clears, as Mastodon's AfterBlockService:
 * the notifications `fromId` caused to `recipientId`.
 */
export function deleteNotificationsBetween(db: DB, recipientId: Id, fromId: Id): void {
  stmt(db, "DELETE FROM notifications WHERE account_id = ? AND from_account_id = ?").run(BigInt(recipientId), BigInt(fromId));
}
