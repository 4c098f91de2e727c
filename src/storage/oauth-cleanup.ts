import { type DB, tx } from "../db/db.ts";

/**
 * Deletes revoked/expired tokens (their web sessions go with them by cascade) and grants that
 * were used, revoked or expired.
 */
export function deleteDeadTokensAndGrants(db: DB, now: number): { tokens: number; grants: number } {
  return tx(db, () => {
    const tokens = db
      .prepare("DELETE FROM oauth_tokens WHERE revoked_at IS NOT NULL OR (expires_at IS NOT NULL AND expires_at <= ?)")
      .run(now).changes;
    const grants = db
      .prepare("DELETE FROM oauth_grants WHERE revoked_at IS NOT NULL OR expires_at <= ?")
      .run(now).changes;
    return { tokens, grants };
  });
}
