import { type DB, type Row, stmt, str, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { findOwnerUser } from "./users.ts";

// Counts behind the instance endpoints and NodeInfo. Small instances answer these in well under a
// millisecond; they are computed per request rather than cached so they are never stale.

/** Confirmed users whose account is not suspended (NodeInfo users.total, v1 stats.user_count). */
export function countUsers(db: DB): number {
  return num(
    (
      stmt(
        db,
        `SELECT count(*) AS n FROM users JOIN accounts ON accounts.id = users.account_id
         WHERE users.confirmed_at IS NOT NULL AND accounts.suspended_at IS NULL`,
      ).get() as Row
    ).n,
  );
}

/** Posts (including boosts) written on this server and not deleted. */
export function countLocalStatuses(db: DB): number {
  return num((stmt(db, "SELECT count(*) AS n FROM statuses WHERE local = 1 AND deleted_at IS NULL").get() as Row).n);
}

// Remote domains we know accounts from, minus those suspended by an instance domain block
// (a block covers subdomains), as Mastodon's Instance.searchable.
const PEERS = `
  SELECT DISTINCT lower(a.domain) AS domain FROM accounts a
  WHERE a.domain IS NOT NULL
    AND NOT EXISTS (
      SELECT 1 FROM domain_blocks b
      WHERE b.severity = 'suspend'
        AND (b.domain = lower(a.domain) OR substr(lower(a.domain), -length(b.domain) - 1) = '.' || b.domain))`;

export function listPeerDomains(db: DB): string[] {
  return (stmt(db, `${PEERS} ORDER BY 1`).all() as Row[]).map((r) => r.domain as string);
}

export function countPeerDomains(db: DB): number {
  return num((stmt(db, `SELECT count(*) AS n FROM (${PEERS})`).get() as Row).n);
}

/** Up to `limit` known domains starting with `prefix` (case-insensitive), alphabetically. */
export function searchPeerDomains(db: DB, prefix: string, limit: number): string[] {
  const escaped = prefix.toLowerCase().replace(/[\\%_]/g, (c) => "\\" + c);
  return (
    stmt(db, `SELECT domain FROM (${PEERS}) WHERE domain LIKE @p ESCAPE '\\' ORDER BY domain LIMIT @limit`).all({
      p: escaped + "%",
      limit: BigInt(limit),
    }) as Row[]
  ).map((r) => r.domain as string);
}

/**
 * The instance's contact: the account of the instance owner (storage/users.ts findOwnerUser),
 * when that user's role is an administrative one (Admin's position or above).
 */
export function findContactAccountId(db: DB): Id | undefined {
  const owner = findOwnerUser(db);
  return owner && owner.position >= 100 ? owner.accountId : undefined;
}

/**
 * Weekly counts since `origin` (ms): bucket index (0 = the week starting at origin) → count.
 * `minId` is the smallest id that can date from origin, so the statuses scan is a primary-key range.
 */
export function localStatusesByWeek(db: DB, origin: number, minId: Id, week: number): Map<number, number> {
  return buckets(
    stmt(
      db,
      `SELECT (created_at - @origin) / @week AS w, count(*) AS n FROM statuses
       WHERE id >= @minId AND local = 1 AND created_at >= @origin GROUP BY w`,
    ).all({ origin: BigInt(origin), minId: BigInt(minId), week: BigInt(week) }) as Row[],
  );
}

/** Local sign-ups per week. */
export function registrationsByWeek(db: DB, origin: number, week: number): Map<number, number> {
  return buckets(
    stmt(db, "SELECT (created_at - @origin) / @week AS w, count(*) AS n FROM users WHERE created_at >= @origin GROUP BY w").all({
      origin: BigInt(origin),
      week: BigInt(week),
    }) as Row[],
  );
}

/** Distinct users active (authenticated request) per week. */
export function loginsByWeek(db: DB, origin: number, week: number): Map<number, number> {
  return buckets(
    stmt(
      db,
      `SELECT (day - @origin) / @week AS w, count(DISTINCT user_id) AS n FROM user_activity_days
       WHERE day >= @origin GROUP BY w`,
    ).all({ origin: BigInt(origin), week: BigInt(week) }) as Row[],
  );
}

function buckets(rows: Row[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const r of rows) out.set(num(r.w), num(r.n));
  return out;
}
