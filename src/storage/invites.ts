import { type DB, type Row, stmt, str, num, numOrNull, bool } from "../db/db.ts";
import { getRow } from "../db/rows.ts";
import type { Id } from "../lib/ids.ts";

// Invites (migration 0047): Mastodon's Invite. A row is never deleted by an action: expiring
// sets expires_at, so who invited whom stays readable.

export interface Invite {
  id: Id;
  userId: Id;
  code: string;
  expiresAt: number | null;
  maxUses: number | null;
  uses: number;
  autofollow: boolean;
  comment: string | null;
  createdAt: number;
  updatedAt: number;
}

/** An invite with its inviter, as the listing shows it. */
export interface InviteWithInviter extends Invite {
  inviterAccountId: Id;
  inviterUsername: string;
}

function rowToInvite(r: Row): Invite {
  return {
    id: str(r.id),
    userId: str(r.user_id),
    code: r.code as string,
    expiresAt: numOrNull(r.expires_at),
    maxUses: numOrNull(r.max_uses),
    uses: num(r.uses),
    autofollow: bool(r.autofollow),
    comment: (r.comment as string | null) ?? null,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export function insertInvite(db: DB, i: Invite): void {
  stmt(
    db,
    `INSERT INTO invites (id, user_id, code, expires_at, max_uses, uses, autofollow, comment, created_at, updated_at)
     VALUES (@id, @userId, @code, @expiresAt, @maxUses, @uses, @autofollow, @comment, @createdAt, @updatedAt)`,
  ).run({ ...i, id: BigInt(i.id), userId: BigInt(i.userId), autofollow: i.autofollow ? 1 : 0 });
}

export function findInviteById(db: DB, id: Id): Invite | undefined {
  if (!/^[0-9]{1,19}$/.test(id)) return undefined;
  const r = getRow(db, "SELECT * FROM invites WHERE id = ?", BigInt(id));
  return r && rowToInvite(r);
}

/** Codes are compared exactly (Mastodon's are case-sensitive). */
export function findInviteByCode(db: DB, code: string): Invite | undefined {
  const r = getRow(db, "SELECT * FROM invites WHERE code = ?", code);
  return r && rowToInvite(r);
}

export function setInviteExpiry(db: DB, id: Id, expiresAt: number, now: number): void {
  stmt(db, "UPDATE invites SET expires_at = ?, updated_at = ? WHERE id = ?").run(expiresAt, now, BigInt(id));
}

/**
 * Counts one use, only while the invite is still usable at `now`; false when it was used up
 * or expired in the meantime (the check and the increment are one statement).
 */
export function consumeInviteUse(db: DB, id: Id, now: number): boolean {
  const r = stmt(
    db,
    `UPDATE invites SET uses = uses + 1, updated_at = @now
     WHERE id = @id AND (max_uses IS NULL OR uses < max_uses) AND (expires_at IS NULL OR expires_at > @now)`,
  ).run({ id: BigInt(id), now });
  return r.changes === 1;
}

/** Every live invite of a user expires now (Mastodon's invites.available.in_batches.touch_all(:expires_at)). */
export function expireInvitesOfUser(db: DB, userId: Id, now: number): number {
  return stmt(db, "UPDATE invites SET expires_at = @now, updated_at = @now WHERE user_id = @userId AND (expires_at IS NULL OR expires_at > @now)").run({
    userId: BigInt(userId),
    now,
  }).changes;
}

export interface InviteFilter {
  /** Only this user's invites. */
  userId?: Id;
  /** available: usable now; expired: expired or used up. */
  state?: "available" | "expired";
  now: number;
  limit: number;
}

/** Newest first. */
export function listInvites(db: DB, f: InviteFilter): InviteWithInviter[] {
  const where: string[] = [];
  const params: Record<string, unknown> = { now: f.now, limit: f.limit };
  if (f.userId !== undefined) {
    where.push("i.user_id = @userId");
    params.userId = BigInt(f.userId);
  }
  const usable = "((i.expires_at IS NULL OR i.expires_at > @now) AND (i.max_uses IS NULL OR i.uses < i.max_uses))";
  if (f.state === "available") where.push(usable);
  if (f.state === "expired") where.push(`NOT ${usable}`);
  const rows = stmt(
    db,
    `SELECT i.*, u.account_id AS inviter_account_id, a.username AS inviter_username
       FROM invites i JOIN users u ON u.id = i.user_id JOIN accounts a ON a.id = u.account_id
       ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY i.id DESC LIMIT @limit`,
  ).all(params) as Row[];
  return rows.map((r) => ({ ...rowToInvite(r), inviterAccountId: str(r.inviter_account_id), inviterUsername: r.inviter_username as string }));
}
