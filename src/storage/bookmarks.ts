import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type Keyset, keysetSql } from "./keyset.ts";
import { type Status, rowToStatus } from "./statuses.ts";

export function insertBookmark(db: DB, b: { id: Id; accountId: Id; statusId: Id; createdAt: number }): void {
  stmt(
    db,
    "INSERT OR IGNORE INTO bookmarks (id, account_id, status_id, created_at) VALUES (@id, @accountId, @statusId, @createdAt)",
  ).run({ id: BigInt(b.id), accountId: BigInt(b.accountId), statusId: BigInt(b.statusId), createdAt: b.createdAt });
}

/** Returns true when a bookmark was removed. */
export function deleteBookmark(db: DB, accountId: Id, statusId: Id): boolean {
  return stmt(db, "DELETE FROM bookmarks WHERE account_id = ? AND status_id = ?").run(BigInt(accountId), BigInt(statusId)).changes > 0;
}

/** The caller's bookmarked statuses, newest bookmark first; `cursor` is the bookmark id. */
export function pageBookmarkedStatuses(db: DB, accountId: Id, k: Keyset): { cursor: Id; status: Status }[] {
  const q = keysetSql("b.id", k);
  const rows = stmt(
    db,
    `SELECT b.id AS page_cursor, s.* FROM bookmarks b JOIN statuses s ON s.id = b.status_id
     WHERE b.account_id = @account AND s.deleted_at IS NULL${q.where} ${q.order}`,
  ).all({ ...q.params, account: BigInt(accountId) }) as Row[];
  if (q.reverse) rows.reverse();
  return rows.map((r) => ({ cursor: str(r.page_cursor), status: rowToStatus(r) }));
}
