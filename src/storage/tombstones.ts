import { type DB, stmt } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Uris of deleted remote statuses (AP §5.3): a late or replayed Create/Update must not bring
// one back, and a Delete that overtakes its Create still wins.

export function insertTombstone(db: DB, t: { uri: string; accountId: Id; createdAt: number }): void {
  stmt(db, "INSERT OR IGNORE INTO tombstones (uri, account_id, created_at) VALUES (@uri, @accountId, @createdAt)").run({
    uri: t.uri,
    accountId: BigInt(t.accountId),
    createdAt: t.createdAt,
  });
}

export function hasTombstone(db: DB, uri: string): boolean {
  return !!stmt(db, "SELECT 1 FROM tombstones WHERE uri = ?").get(uri);
}
