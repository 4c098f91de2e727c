import { type DB, type Row, stmt, str, num, numOrNull } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

/** An authorization code (Doorkeeper's access grant). Only the code's sha256 is stored. */
export interface Grant {
  id: Id;
  applicationId: Id;
  userId: Id;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  expiresAt: number;
  revokedAt: number | null;
  createdAt: number;
}

function rowToGrant(r: Row): Grant {
  return {
    id: str(r.id),
    applicationId: str(r.application_id),
    userId: str(r.user_id),
    redirectUri: r.redirect_uri as string,
    scopes: String(r.scopes).split(" ").filter(Boolean),
    codeChallenge: (r.code_challenge as string | null) ?? null,
    codeChallengeMethod: (r.code_challenge_method as string | null) ?? null,
    expiresAt: num(r.expires_at),
    revokedAt: numOrNull(r.revoked_at),
    createdAt: num(r.created_at),
  };
}

export function insertGrant(db: DB, g: Grant & { codeHash: string }): void {
  stmt(
    db,
    `INSERT INTO oauth_grants (id, application_id, user_id, code_hash, redirect_uri, scopes, code_challenge,
       code_challenge_method, expires_at, created_at)
     VALUES (@id, @applicationId, @userId, @codeHash, @redirectUri, @scopes, @codeChallenge, @codeChallengeMethod,
       @expiresAt, @createdAt)`,
  ).run({
    id: BigInt(g.id),
    applicationId: BigInt(g.applicationId),
    userId: BigInt(g.userId),
    codeHash: g.codeHash,
    redirectUri: g.redirectUri,
    scopes: g.scopes.join(" "),
    codeChallenge: g.codeChallenge,
    codeChallengeMethod: g.codeChallengeMethod,
    expiresAt: g.expiresAt,
    createdAt: g.createdAt,
  });
}

export function findGrantByCodeHash(db: DB, codeHash: string): Grant | undefined {
  const r = stmt(db, "SELECT * FROM oauth_grants WHERE code_hash = ?").get(codeHash) as Row | undefined;
  return r && rowToGrant(r);
}

/** Marks the grant used. False when it was already used (a concurrent or replayed exchange). */
export function consumeGrant(db: DB, id: Id, at: number): boolean {
  return stmt(db, "UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(at, BigInt(id)).changes === 1;
}
