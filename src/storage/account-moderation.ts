import { type DB, type Row, stmt, str, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Account states set by moderators (migration 0031): deletion requests and feed clean-up.

export function insertDeletionRequest(db: DB, accountId: Id, at: number): void {
  stmt(db, "INSERT OR IGNORE INTO account_deletion_requests (account_id, created_at) VALUES (?, ?)").run(BigInt(accountId), at);
}

export function deleteDeletionRequest(db: DB, accountId: Id): void {
  stmt(db, "DELETE FROM account_deletion_requests WHERE account_id = ?").run(BigInt(accountId));
}

/** Moves a request's date (a purge under way must not be queued again by the schedule). */
export function touchDeletionRequest(db: DB, accountId: Id, at: number): void {
  stmt(db, "UPDATE account_deletion_requests SET created_at = ? WHERE account_id = ?").run(at, BigInt(accountId));
}

export function hasDeletionRequest(db: DB, accountId: Id): boolean {
  return !!stmt(db, "SELECT 1 FROM account_deletion_requests WHERE account_id = ?").get(BigInt(accountId));
}

/** Accounts whose deletion was requested before `before` (the 30-day purge). */
export function dueDeletionRequests(db: DB, before: number, limit: number): Id[] {
  return (stmt(db, "SELECT account_id FROM account_deletion_requests WHERE created_at < ? ORDER BY created_at LIMIT ?").all(before, BigInt(limit)) as Row[]).map((r) =>
    str(r.account_id),
  );
}

/**
 * Takes an account's posts, and boosts of them, out of every home and list feed (Mastodon's
 * unmerge_from_home / unmerge_from_list for all followers at once).
 */
export function deleteAuthorFromAllFeeds(db: DB, accountId: Id): number {
  const own = "SELECT id FROM statuses WHERE account_id = @a UNION ALL SELECT id FROM statuses WHERE reblog_of_id IN (SELECT id FROM statuses WHERE account_id = @a)";
  const a = BigInt(accountId);
  const home = stmt(db, `DELETE FROM home_feeds WHERE status_id IN (${own})`).run({ a }).changes;
  const lists = stmt(db, `DELETE FROM list_feeds WHERE status_id IN (${own})`).run({ a }).changes;
  return num(home) + num(lists);
}

/** Local accounts that follow `accountId` (their feeds get its posts back on unsuspension). */
export function localFollowerIds(db: DB, accountId: Id): Id[] {
  return (
    stmt(db, "SELECT f.account_id FROM follows f JOIN users u ON u.account_id = f.account_id WHERE f.target_account_id = ?").all(BigInt(accountId)) as Row[]
  ).map((r) => str(r.account_id));
}

/** Local accounts that `accountId` (remote) follows: on suspension they reject it. */
export function followedLocalIds(db: DB, accountId: Id): Id[] {
  return (
    stmt(db, "SELECT f.target_account_id FROM follows f JOIN users u ON u.account_id = f.target_account_id WHERE f.account_id = ?").all(BigInt(accountId)) as Row[]
  ).map((r) => str(r.target_account_id));
}
