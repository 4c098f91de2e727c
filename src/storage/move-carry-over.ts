import { type DB, type Row, stmt, str, num, numOrNull, bool } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// What local users decided about an account that moved (Mastodon's MoveWorker carries their
// blocks, mutes and private notes over to the new account).

export function localBlockersOf(db: DB, accountId: Id): Id[] {
  const rows = stmt(db, "SELECT b.account_id FROM blocks b JOIN users u ON u.account_id = b.account_id WHERE b.target_account_id = ?").all(
    BigInt(accountId),
  ) as Row[];
  return rows.map((r) => str(r.account_id));
}

/** Local users' active mutes of the account. */
export function localMutesOf(db: DB, accountId: Id, now: number): { accountId: Id; hideNotifications: boolean; expiresAt: number | null }[] {
  const rows = stmt(
    db,
    `SELECT m.account_id, m.hide_notifications, m.expires_at FROM mutes m JOIN users u ON u.account_id = m.account_id
     WHERE m.target_account_id = ? AND (m.expires_at IS NULL OR m.expires_at > ?)`,
  ).all(BigInt(accountId), now) as Row[];
  return rows.map((r) => ({ accountId: str(r.account_id), hideNotifications: bool(r.hide_notifications), expiresAt: numOrNull(r.expires_at) }));
}

/** Local users' private notes on the account. */
export function localNotesOn(db: DB, accountId: Id): { accountId: Id; comment: string; updatedAt: number }[] {
  const rows = stmt(
    db,
    "SELECT n.account_id, n.comment, n.updated_at FROM account_notes n JOIN users u ON u.account_id = n.account_id WHERE n.target_account_id = ?",
  ).all(BigInt(accountId)) as Row[];
  return rows.map((r) => ({ accountId: str(r.account_id), comment: r.comment as string, updatedAt: num(r.updated_at) }));
}

export function hasAccountNote(db: DB, accountId: Id, targetId: Id): boolean {
  return !!stmt(db, "SELECT 1 FROM account_notes WHERE account_id = ? AND target_account_id = ?").get(BigInt(accountId), BigInt(targetId));
}
