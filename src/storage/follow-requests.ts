import { type DB, type Row, stmt } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type FollowRecord, recordParams, rowToFollowRecord } from "./follows.ts";
import { type KeysetPage, type PageRow, selectPage } from "./relationship-pages.ts";

// Pending follow requests: same shape as a follow; authorizing one turns it into a follow
// with the same uri and options.

export function findFollowRequest(db: DB, accountId: Id, targetId: Id): FollowRecord | undefined {
  const r = stmt(db, "SELECT * FROM follow_requests WHERE account_id = ? AND target_account_id = ?").get(
    BigInt(accountId),
    BigInt(targetId),
  ) as Row | undefined;
  return r && rowToFollowRecord(r);
}

export function insertFollowRequest(db: DB, f: FollowRecord): void {
  stmt(
    db,
    `INSERT INTO follow_requests (id, account_id, target_account_id, show_reblogs, notify, languages, uri, created_at, updated_at)
     VALUES (@id, @accountId, @targetId, @showReblogs, @notify, @languages, @uri, @createdAt, @updatedAt)`,
  ).run(recordParams(f));
}

export function deleteFollowRequestById(db: DB, id: Id): void {
  stmt(db, "DELETE FROM follow_requests WHERE id = ?").run(BigInt(id));
}

/** The `follow_request` notification belongs to the request and goes with it. */
export function deleteFollowRequestNotification(db: DB, requesterId: Id, targetId: Id): void {
  stmt(db, "DELETE FROM notifications WHERE account_id = ? AND from_account_id = ? AND type = 'follow_request'").run(
    BigInt(targetId),
    BigInt(requesterId),
  );
}

/** Every pending request to `targetId`, oldest first (bulk authorization on unlock). */
export function listAllFollowRequestsTo(db: DB, targetId: Id): FollowRecord[] {
  const rows = stmt(db, "SELECT * FROM follow_requests WHERE target_account_id = ? ORDER BY id").all(BigInt(targetId)) as Row[];
  return rows.map(rowToFollowRecord);
}

/** Pending requests from accounts of `domain` to `targetId` (account domain blocks). */
export function listFollowRequestsFromDomain(db: DB, targetId: Id, domain: string): FollowRecord[] {
  const rows = stmt(
    db,
    `SELECT r.* FROM follow_requests r JOIN accounts a ON a.id = r.account_id
     WHERE r.target_account_id = ? AND a.domain IS NOT NULL AND lower(a.domain) = ?`,
  ).all(BigInt(targetId), domain) as Row[];
  return rows.map(rowToFollowRecord);
}

/** Pending requests from `accountId` to accounts of `domain` (withdrawn when the domain is blocked). */
export function listFollowRequestsToDomain(db: DB, accountId: Id, domain: string): FollowRecord[] {
  const rows = stmt(
    db,
    `SELECT r.* FROM follow_requests r JOIN accounts a ON a.id = r.target_account_id
     WHERE r.account_id = ? AND a.domain IS NOT NULL AND lower(a.domain) = ?`,
  ).all(BigInt(accountId), domain) as Row[];
  return rows.map(rowToFollowRecord);
}

/** Accounts requesting to follow `targetId` (suspended excluded); cursor = request id. */
export function listFollowRequestsPage(db: DB, targetId: Id, page: KeysetPage): PageRow[] {
  return selectPage(
    db,
    page,
    "r.id",
    (where, order) => `SELECT r.id AS cursor, r.account_id FROM follow_requests r JOIN accounts a ON a.id = r.account_id
      WHERE r.target_account_id = @targetId AND a.suspended_at IS NULL${where}
      ORDER BY ${order} LIMIT @limit`,
    { targetId: BigInt(targetId) },
  );
}
