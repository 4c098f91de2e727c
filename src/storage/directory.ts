// The profile directory (GET /api/v1/directory): accounts that opted in (`discoverable`), in
// Mastodon's order, paged by offset as Mastodon pages it. Served by the partial index of
// migrations/0042_directory.sql.
import { type DB, type Row, stmt } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type Account, rowToAccount } from "./accounts.ts";

export interface DirectoryQuery {
  /** active: latest post first, never-posted last; new: newest account first. */
  order: "active" | "new";
  /** Only local accounts. */
  local: boolean;
  /** With a viewer: not those it blocks, mutes or is blocked by, nor (remote) on domains it blocks. */
  viewerId: Id | null;
  now: number;
  limit: number;
  offset: number;
}

// Mastodon's Account.discoverable: opted in, not suspended, silenced or moved away; local
// accounts only once confirmed and approved (before that nobody may see them anywhere).
export const LISTED = `a.discoverable = 1 AND a.suspended_at IS NULL AND a.silenced_at IS NULL AND a.moved_to_account_id IS NULL
  AND (a.domain IS NOT NULL OR EXISTS (SELECT 1 FROM users u WHERE u.account_id = a.id AND u.confirmed_at IS NOT NULL AND u.approved = 1))`;

export const NOT_EXCLUDED = `(@viewer IS NULL OR (
     NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = @viewer AND b.target_account_id = a.id)
     AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = a.id AND b.target_account_id = @viewer)
     AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = @viewer AND m.target_account_id = a.id AND (m.expires_at IS NULL OR m.expires_at > @now))
     AND (a.domain IS NULL OR NOT EXISTS (SELECT 1 FROM account_domain_blocks d WHERE d.account_id = @viewer AND d.domain = a.domain))))`;

/**
 * A page of the directory. In SQLite's descending order NULLs come last, so `active` puts
 * accounts that never posted at the end, as Mastodon's by_recent_status does; the id breaks
 * ties so that offsets page through a stable order.
 */
export function listDirectory(db: DB, q: DirectoryQuery): Account[] {
  const order = q.order === "new" ? "a.id DESC" : "a.last_status_at DESC, a.id DESC";
  const rows = stmt(
    db,
    `SELECT a.* FROM accounts a WHERE ${LISTED} AND (@local = 0 OR a.domain IS NULL) AND ${NOT_EXCLUDED}
     ORDER BY ${order} LIMIT @limit OFFSET @offset`,
  ).all({
    local: q.local ? 1 : 0,
    viewer: q.viewerId === null ? null : BigInt(q.viewerId),
    now: q.now,
    limit: q.limit,
    offset: q.offset,
  }) as Row[];
  return rows.map(rowToAccount);
}
