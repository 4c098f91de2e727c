import { type DB, type Row, idListJson, stmt, str, strOrNull, num, numOrNull } from "../db/db.ts";
import { getRow, getRowByTable } from "../db/rows.ts";
import type { Id } from "../lib/ids.ts";
import { rowToAccount, type Account } from "./accounts.ts";
import { rowToUser, type User } from "./users.ts";

export interface Token {
  id: Id;
  applicationId: Id | null;
  userId: Id | null;
  scopes: string[];
  expiresAt: number | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
  createdAt: number;
}

export function rowToToken(r: Row): Token {
  return {
    id: str(r.id),
    applicationId: strOrNull(r.application_id),
    userId: strOrNull(r.user_id),
    scopes: String(r.scopes).split(" ").filter(Boolean),
    expiresAt: numOrNull(r.expires_at),
    revokedAt: numOrNull(r.revoked_at),
    lastUsedAt: numOrNull(r.last_used_at),
    createdAt: num(r.created_at),
  };
}

export function insertToken(
  db: DB,
  t: { id: Id; applicationId: Id | null; userId: Id | null; tokenHash: string; scopes: string[]; createdAt: number; expiresAt?: number | null },
): void {
  stmt(
    db,
    `INSERT INTO oauth_tokens (id, application_id, user_id, token_hash, scopes, expires_at, created_at)
     VALUES (@id, @applicationId, @userId, @tokenHash, @scopes, @expiresAt, @createdAt)`,
  ).run({
    id: BigInt(t.id),
    applicationId: t.applicationId ? BigInt(t.applicationId) : null,
    userId: t.userId ? BigInt(t.userId) : null,
    tokenHash: t.tokenHash,
    scopes: t.scopes.join(" "),
    expiresAt: t.expiresAt ?? null,
    createdAt: t.createdAt,
  });
}

export function findTokenByHash(db: DB, tokenHash: string): Token | undefined {
  const r = getRow(db, "SELECT * FROM oauth_tokens WHERE token_hash = ?", tokenHash);
  return r && rowToToken(r);
}

/** A token with its user and the user's account (null for an app token, or when they are gone). */
export interface TokenOwner {
  token: Token;
  user: User | null;
  account: Account | null;
}

/** The token and its owner, read by one statement: authentication runs on every request. */
export function findTokenWithOwner(db: DB, tokenHash: string): TokenOwner | undefined {
  const r = getRowByTable(
    db,
    `SELECT t.*, u.*, a.* FROM oauth_tokens t
     LEFT JOIN users u ON u.id = t.user_id LEFT JOIN accounts a ON a.id = u.account_id
     WHERE t.token_hash = +?`, // `+`: no re-planning on each bind (see storage/timelines.ts)
    tokenHash,
  );
  if (!r) return undefined;
  return {
    token: rowToToken(r.oauth_tokens),
    user: r.users.id === null ? null : rowToUser(r.users),
    account: r.accounts.id === null ? null : rowToAccount(r.accounts),
  };
}

export function findTokenById(db: DB, id: Id): Token | undefined {
  const r = stmt(db, "SELECT * FROM oauth_tokens WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToToken(r);
}

export function revokeToken(db: DB, id: Id, at: number): void {
  stmt(db, "UPDATE oauth_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(at, BigInt(id));
}

/** Last-used bookkeeping is written at most once per day per token (as Doorkeeper/Mastodon). */
export function touchToken(db: DB, id: Id, at: number, ip: string | null): void {
  stmt(db, "UPDATE oauth_tokens SET last_used_at = ?, last_used_ip = ? WHERE id = ?").run(at, ip, BigInt(id));
}

/** Scope sets of the user's live (unrevoked, unexpired) tokens for an app (consent auto-approval). */
export function listLiveTokenScopes(db: DB, userId: Id, applicationId: Id, now: number): string[][] {
  const rows = stmt(
    db,
    `SELECT scopes FROM oauth_tokens
     WHERE user_id = ? AND application_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)`,
  ).all(BigInt(userId), BigInt(applicationId), now) as Row[];
  return rows.map((r) => String(r.scopes).split(" ").filter(Boolean));
}

/**
 * Which of these token ids are live user tokens of a functional user: not revoked or expired;
 * the user confirmed, approved and not disabled; the account neither suspended, memorial nor
 * moved (http/auth.ts checkUserState's rules). One query, for the streaming connections.
 */
export function liveUserTokenIds(db: DB, ids: Iterable<Id>, now: number): Set<Id> {
  const rows = stmt(
    db,
    `SELECT t.id FROM json_each(@ids) j CROSS JOIN oauth_tokens t ON t.id = j.value
       JOIN users u ON u.id = t.user_id JOIN accounts a ON a.id = u.account_id
     WHERE t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > @now)
       AND u.confirmed_at IS NOT NULL AND u.approved = 1 AND u.disabled = 0
       AND a.suspended_at IS NULL AND a.memorial = 0 AND a.moved_to_account_id IS NULL`,
  )
    .pluck()
    .all({ ids: idListJson(ids), now }) as bigint[];
  return new Set(rows.map(str));
}

/** A user's tokens that are neither revoked nor expired (a password reset revokes them all). */
export function liveTokenIdsOfUser(db: DB, userId: Id, now: number): Id[] {
  const rows = stmt(db, "SELECT id FROM oauth_tokens WHERE user_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)").all(BigInt(userId), now) as Row[];
  return rows.map((r) => str(r.id));
}

/** Revokes a user's unused authorization codes (Doorkeeper's revoke_access! also ends grants). */
export function revokeGrantsOfUser(db: DB, userId: Id, now: number): void {
  stmt(db, "UPDATE oauth_grants SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL").run(now, BigInt(userId));
}
