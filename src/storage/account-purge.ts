import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type FollowRecord, rowToFollowRecord } from "./follows.ts";
import { type Status, rowToStatus } from "./statuses.ts";

// What an account leaves behind, read in batches so that removing a large account's content
// (a remote actor deleted itself, AP §5.3) runs as a series of short transactions.

/** The account's statuses (boosts included), oldest first, `limit` at a time. */
export function statusesOfAccount(db: DB, accountId: Id, limit: number): Status[] {
  const rows = stmt(db, "SELECT * FROM statuses WHERE account_id = ? ORDER BY id LIMIT ?").all(BigInt(accountId), limit) as Row[];
  return rows.map(rowToStatus);
}

/** Follows from or to the account, `limit` at a time. */
export function followsOfAccount(db: DB, accountId: Id, limit: number): FollowRecord[] {
  const rows = stmt(
    db,
    `SELECT * FROM follows WHERE account_id = @id
     UNION ALL SELECT * FROM follows WHERE target_account_id = @id LIMIT @limit`,
  ).all({ id: BigInt(accountId), limit }) as Row[];
  return rows.map(rowToFollowRecord);
}

/** Pending follow requests from or to the account, `limit` at a time. */
export function followRequestsOfAccount(db: DB, accountId: Id, limit: number): FollowRecord[] {
  const rows = stmt(
    db,
    `SELECT * FROM follow_requests WHERE account_id = @id
     UNION ALL SELECT * FROM follow_requests WHERE target_account_id = @id LIMIT @limit`,
  ).all({ id: BigInt(accountId), limit }) as Row[];
  return rows.map(rowToFollowRecord);
}

/** Statuses the account favourited, `limit` at a time. */
export function favouritedStatusIds(db: DB, accountId: Id, limit: number): Id[] {
  const rows = stmt(db, "SELECT status_id FROM favourites WHERE account_id = ? LIMIT ?").all(BigInt(accountId), limit) as Row[];
  return rows.map((r) => str(r.status_id));
}

/** Rows that carry no counters: the account's blocks, mutes, pins and the notifications it caused. */
export function deleteAccountLeftovers(db: DB, accountId: Id): void {
  const id = BigInt(accountId);
  stmt(db, "DELETE FROM blocks WHERE account_id = ?").run(id);
  stmt(db, "DELETE FROM mutes WHERE account_id = ?").run(id);
  stmt(db, "DELETE FROM status_pins WHERE account_id = ?").run(id);
  stmt(db, "DELETE FROM notifications WHERE from_account_id = ?").run(id);
}
