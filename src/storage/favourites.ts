import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type Account, rowToAccount } from "./accounts.ts";
import { type Keyset, keysetSql } from "./keyset.ts";
import { type Status, rowToStatus } from "./statuses.ts";

/** Returns true when a new favourite row was written (false: it already existed). */
export function insertFavourite(db: DB, f: { id: Id; accountId: Id; statusId: Id; createdAt: number; uri?: string | null }): boolean {
  const r = stmt(
    db,
    "INSERT OR IGNORE INTO favourites (id, account_id, status_id, uri, created_at) VALUES (@id, @accountId, @statusId, @uri, @createdAt)",
  ).run({ id: BigInt(f.id), accountId: BigInt(f.accountId), statusId: BigInt(f.statusId), uri: f.uri ?? null, createdAt: f.createdAt });
  return r.changes > 0;
}

/** The id of the account's favourite of a status (a Like's id is built from it), if any. */
export function findFavouriteId(db: DB, accountId: Id, statusId: Id): Id | undefined {
  const r = stmt(db, "SELECT id FROM favourites WHERE account_id = ? AND status_id = ?").get(BigInt(accountId), BigInt(statusId)) as
    | Row
    | undefined;
  return r ? str(r.id) : undefined;
}

/** Returns true when a favourite was removed. */
export function deleteFavourite(db: DB, accountId: Id, statusId: Id): boolean {
  return stmt(db, "DELETE FROM favourites WHERE account_id = ? AND status_id = ?").run(BigInt(accountId), BigInt(statusId)).changes > 0;
}

/** The caller's favourited statuses, newest favourite first; `cursor` is the favourite id. */
export function pageFavouritedStatuses(db: DB, accountId: Id, k: Keyset): { cursor: Id; status: Status }[] {
  const q = keysetSql("f.id", k);
  const rows = stmt(
    db,
    `SELECT f.id AS page_cursor, s.* FROM favourites f JOIN statuses s ON s.id = f.status_id
     WHERE f.account_id = @account AND s.deleted_at IS NULL${q.where} ${q.order}`,
  ).all({ ...q.params, account: BigInt(accountId) }) as Row[];
  if (q.reverse) rows.reverse();
  return rows.map((r) => ({ cursor: str(r.page_cursor), status: rowToStatus(r) }));
}

/**
 * Accounts that favourited a status, newest first; `cursor` is the favourite id. Suspended
 * accounts are left out, and for a viewer the accounts it blocks, is blocked by or mutes.
 */
export function pageFavouritingAccounts(db: DB, statusId: Id, viewerId: Id | null, k: Keyset, now: number): { cursor: Id; account: Account }[] {
  const q = keysetSql("f.id", k);
  const rows = stmt(
    db,
    `SELECT f.id AS page_cursor, a.* FROM favourites f JOIN accounts a ON a.id = f.account_id
     WHERE f.status_id = @status AND a.suspended_at IS NULL${viewerFilter("a.id")}${q.where} ${q.order}`,
  ).all({ ...q.params, status: BigInt(statusId), viewer: viewerId ? BigInt(viewerId) : null, now }) as Row[];
  if (q.reverse) rows.reverse();
  return rows.map((r) => ({ cursor: str(r.page_cursor), account: rowToAccount(r) }));
}

/** SQL that drops accounts hidden from @viewer (blocks either way, active mutes); no-op when @viewer is NULL. */
export function viewerFilter(col: string): string {
  return ` AND (@viewer IS NULL OR (
      NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = @viewer AND b.target_account_id = ${col})
      AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = ${col} AND b.target_account_id = @viewer)
      AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = @viewer AND m.target_account_id = ${col}
                      AND (m.expires_at IS NULL OR m.expires_at > @now))))`;
}
