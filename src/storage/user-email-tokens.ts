import { type DB, type Row, stmt, str, numOrNull } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Devise's confirmable and recoverable tokens (migration 0047): one of each per user, stored
// as sha256 hashes; a new one replaces the old, a used one is cleared.

export type EmailTokenKind = "confirmation" | "reset_password";

const COLUMNS: Record<EmailTokenKind, { hash: string; sentAt: string }> = {
  confirmation: { hash: "confirmation_token_hash", sentAt: "confirmation_sent_at" },
  reset_password: { hash: "reset_password_token_hash", sentAt: "reset_password_sent_at" },
};

export function setEmailToken(db: DB, userId: Id, kind: EmailTokenKind, tokenHash: string, now: number): void {
  const c = COLUMNS[kind];
  stmt(db, `UPDATE users SET ${c.hash} = ?, ${c.sentAt} = ? WHERE id = ?`).run(tokenHash, now, BigInt(userId));
}

export function clearEmailToken(db: DB, userId: Id, kind: EmailTokenKind): void {
  const c = COLUMNS[kind];
  stmt(db, `UPDATE users SET ${c.hash} = NULL WHERE id = ?`).run(BigInt(userId));
}

/** The user holding a token, with when it was sent. */
export function findUserIdByEmailToken(db: DB, kind: EmailTokenKind, tokenHash: string): { userId: Id; sentAt: number | null } | undefined {
  const c = COLUMNS[kind];
  const r = stmt(db, `SELECT id, ${c.sentAt} AS sent_at FROM users WHERE ${c.hash} = ?`).get(tokenHash) as Row | undefined;
  return r && { userId: str(r.id), sentAt: numOrNull(r.sent_at) };
}

/** When the last token of this kind went to the user (resends are limited by it). */
export function emailTokenSentAt(db: DB, userId: Id, kind: EmailTokenKind): number | null {
  const c = COLUMNS[kind];
  const r = stmt(db, `SELECT ${c.sentAt} AS sent_at FROM users WHERE id = ?`).get(BigInt(userId)) as Row | undefined;
  return r ? numOrNull(r.sent_at) : null;
}

/** Local users, confirmed and able to sign in, whose role has any of `bits` (staff mail). */
export function staffEmailsWithBits(db: DB, bits: number): { accountId: Id; email: string }[] {
  const rows = stmt(
    db,
    `SELECT u.account_id, u.email FROM users u JOIN user_roles r ON r.id = u.role_id
     JOIN accounts a ON a.id = u.account_id
     WHERE (r.permissions & @bits) <> 0 AND u.disabled = 0 AND u.approved = 1 AND u.confirmed_at IS NOT NULL
       AND a.suspended_at IS NULL`,
  ).all({ bits: bits | 1 }) as Row[];
  return rows.map((r) => ({ accountId: str(r.account_id), email: r.email as string }));
}
