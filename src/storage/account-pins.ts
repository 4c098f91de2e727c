import { type DB, stmt } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type KeysetPage, type PageRow, selectPage } from "./relationship-pages.ts";

// Endorsements ("account pins"): accounts featured on the owner's profile.

/** Idempotent: an existing pin is kept with its place in the list. */
export function insertAccountPin(db: DB, p: { id: Id; accountId: Id; targetAccountId: Id; createdAt: number }): void {
  stmt(db, "INSERT INTO account_pins (id, account_id, target_account_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING").run(
    BigInt(p.id),
    BigInt(p.accountId),
    BigInt(p.targetAccountId),
    p.createdAt,
  );
}

export function deleteAccountPin(db: DB, accountId: Id, targetId: Id): void {
  stmt(db, "DELETE FROM account_pins WHERE account_id = ? AND target_account_id = ?").run(BigInt(accountId), BigInt(targetId));
}

/** Accounts `accountId` endorses (suspended excluded), newest pin first; cursor = pin id. */
export function listAccountPinsPage(db: DB, accountId: Id, page: KeysetPage): PageRow[] {
  return selectPage(
    db,
    page,
    "p.id",
    (where, order) => `SELECT p.id AS cursor, p.target_account_id AS account_id FROM account_pins p JOIN accounts a ON a.id = p.target_account_id
      WHERE p.account_id = @accountId AND a.suspended_at IS NULL${where}
      ORDER BY ${order} LIMIT @limit`,
    { accountId: BigInt(accountId) },
  );
}
