import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Idempotency-Key of POST /api/v1/statuses (conventions.md §11): one key per account, valid 1 h.

export const IDEMPOTENCY_TTL = 3_600_000;

/** The status created with this key within the TTL, if any. */
export function findIdempotentStatusId(db: DB, accountId: Id, key: string, now: number): Id | undefined {
  const r = stmt(db, "SELECT status_id FROM idempotency_keys WHERE account_id = ? AND key = ? AND created_at > ?").get(
    BigInt(accountId),
    key,
    now - IDEMPOTENCY_TTL,
  ) as Row | undefined;
  return r ? str(r.status_id) : undefined;
}

/** Records the key (replacing an expired one) and drops the account's other expired keys. */
export function saveIdempotencyKey(db: DB, accountId: Id, key: string, statusId: Id, now: number): void {
  stmt(db, "DELETE FROM idempotency_keys WHERE account_id = ? AND created_at <= ?").run(BigInt(accountId), now - IDEMPOTENCY_TTL);
  stmt(
    db,
    `INSERT INTO idempotency_keys (account_id, key, status_id, created_at) VALUES (@account, @key, @status, @now)
     ON CONFLICT (account_id, key) DO UPDATE SET status_id = excluded.status_id, created_at = excluded.created_at`,
  ).run({ account: BigInt(accountId), key, status: BigInt(statusId), now });
}

/**
 * A scheduled post was published as `toId`: a key that named the scheduled post now names the
 * status, so a retried request gets what it made rather than a second post.
 */
export function repointIdempotencyKeys(db: DB, accountId: Id, fromId: Id, toId: Id): void {
  stmt(db, "UPDATE idempotency_keys SET status_id = ? WHERE account_id = ? AND status_id = ?").run(BigInt(toId), BigInt(accountId), BigInt(fromId));
}
