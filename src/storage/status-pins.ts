import { type DB, type Row, stmt, num, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export function countPins(db: DB, accountId: Id): number {
  return num((stmt(db, "SELECT count(*) AS n FROM status_pins WHERE account_id = ?").get(BigInt(accountId)) as Row).n);
}

export function isPinned(db: DB, accountId: Id, statusId: Id): boolean {
  return !!stmt(db, "SELECT 1 FROM status_pins WHERE account_id = ? AND status_id = ?").get(BigInt(accountId), BigInt(statusId));
}

export function insertPin(db: DB, p: { id: Id; accountId: Id; statusId: Id; createdAt: number }): void {
  stmt(db, "INSERT INTO status_pins (id, account_id, status_id, created_at) VALUES (@id, @accountId, @statusId, @createdAt)").run({
    id: BigInt(p.id),
    accountId: BigInt(p.accountId),
    statusId: BigInt(p.statusId),
    createdAt: p.createdAt,
  });
}

export function deletePin(db: DB, accountId: Id, statusId: Id): void {
  stmt(db, "DELETE FROM status_pins WHERE account_id = ? AND status_id = ?").run(BigInt(accountId), BigInt(statusId));
}

/** The account's pinned status ids (at most `limit`: remote featured collections are small). */
export function listPinnedStatusIds(db: DB, accountId: Id, limit: number): Id[] {
  const rows = stmt(db, "SELECT status_id FROM status_pins WHERE account_id = ? ORDER BY id LIMIT ?").all(BigInt(accountId), limit) as Row[];
  return rows.map((r) => str(r.status_id));
}
