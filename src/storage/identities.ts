import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

/** An identity at an external sign-in provider, bound to a local user (Mastodon's Identity). */
export interface Identity {
  id: Id;
  provider: string;
  uid: string;
  userId: Id;
}

export function findIdentity(db: DB, provider: string, uid: string): Identity | undefined {
  const r = stmt(db, "SELECT id, provider, uid, user_id FROM identities WHERE provider = ? AND uid = ?").get(provider, uid) as Row | undefined;
  return r && { id: str(r.id), provider: str(r.provider), uid: str(r.uid), userId: str(r.user_id) };
}

export function insertIdentity(db: DB, i: Identity & { createdAt: number }): void {
  stmt(db, "INSERT INTO identities (id, provider, uid, user_id, created_at) VALUES (@id, @provider, @uid, @userId, @createdAt)").run({
    id: BigInt(i.id),
    provider: i.provider,
    uid: i.uid,
    userId: BigInt(i.userId),
    createdAt: i.createdAt,
  });
}

export function userHasIdentityAt(db: DB, userId: Id, provider: string): boolean {
  return stmt(db, "SELECT 1 FROM identities WHERE user_id = ? AND provider = ?").get(BigInt(userId), provider) !== undefined;
}

/**
 * Records a single-use proof (CAS ticket, SAML assertion id). False when it was seen before:
 * the caller must refuse it. Expired records are dropped on the way.
 */
export function consumeAuthProof(db: DB, provider: string, proofHash: string, now: number, expiresAt: number): boolean {
  stmt(db, "DELETE FROM used_auth_proofs WHERE expires_at <= ?").run(now);
  const r = stmt(db, "INSERT OR IGNORE INTO used_auth_proofs (provider, proof_hash, expires_at) VALUES (?, ?, ?)").run(provider, proofHash, expiresAt);
  return r.changes === 1;
}

/** The user's identity at `provider` (a user has at most one per provider). */
export function findIdentityOfUser(db: DB, userId: Id, provider: string): Identity | undefined {
  const r = stmt(db, "SELECT id, provider, uid, user_id FROM identities WHERE user_id = ? AND provider = ? LIMIT 1").get(BigInt(userId), provider) as Row | undefined;
  return r && { id: str(r.id), provider: str(r.provider), uid: str(r.uid), userId: str(r.user_id) };
}
