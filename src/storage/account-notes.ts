import { type DB, stmt } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Private notes a user keeps on other accounts (Relationship.note).

export function upsertAccountNote(db: DB, accountId: Id, targetId: Id, comment: string, now: number): void {
  stmt(
    db,
    `INSERT INTO account_notes (account_id, target_account_id, comment, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (account_id, target_account_id) DO UPDATE SET comment = excluded.comment, updated_at = excluded.updated_at`,
  ).run(BigInt(accountId), BigInt(targetId), comment, now);
}

export function deleteAccountNote(db: DB, accountId: Id, targetId: Id): void {
  stmt(db, "DELETE FROM account_notes WHERE account_id = ? AND target_account_id = ?").run(BigInt(accountId), BigInt(targetId));
}
