// Follow suggestions (src/suggestions/DESIGN.md): the admins' featured accounts, the global
// ranking the periodic task writes (follow_recommendations), friends of friends per request,
// and what each user dismissed. Every read applies Mastodon's AccountSuggestions::Source
// base_account_scope: discoverable, approved, neither suspended, silenced, moved nor a
// memorial; not the viewer, nor followed or requested by it, blocked either way, muted, on a
// domain it blocks, or dismissed.
import { type DB, type Row, stmt, str } from "../db/db.ts";
import { idAt, type Id } from "../lib/ids.ts";
import { LISTED, NOT_EXCLUDED } from "./directory.ts";

export type GlobalReason = "most_followed" | "most_interactions";
const REASONS: readonly GlobalReason[] = ["most_followed", "most_interactions"];

const SUGGESTIBLE = `${LISTED} AND a.memorial = 0 AND a.id <> @viewer AND ${NOT_EXCLUDED}
  AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.account_id = @viewer AND f.target_account_id = a.id)
  AND NOT EXISTS (SELECT 1 FROM follow_requests r WHERE r.account_id = @viewer AND r.target_account_id = a.id)
  AND NOT EXISTS (SELECT 1 FROM follow_recommendation_mutes x WHERE x.account_id = @viewer AND x.target_account_id = a.id)`;

/** Friends of friends: the viewer's newest follows looked through, and their follows read, at most. */
const FIRST_DEGREE_MAX = 500;
const SECOND_DEGREE_MAX = 20_000;

interface Viewer {
  viewerId: Id;
  now: number;
  limit: number;
}

const params = (v: Viewer) => ({ viewer: BigInt(v.viewerId), now: v.now, limit: v.limit });

/** Featured accounts the viewer may be suggested, in the order they were featured. */
export function featuredSuggestions(db: DB, v: Viewer): Id[] {
  return (
    stmt(
      db,
      `SELECT a.id FROM featured_accounts fa JOIN accounts a ON a.id = fa.account_id
       WHERE ${SUGGESTIBLE} ORDER BY fa.created_at, a.id LIMIT @limit`,
    )
      .pluck()
      .all(params(v)) as bigint[]
  ).map(str);
}

/**
 * Accounts followed by those the viewer follows (Mastodon's FriendsOfFriendsSource): most
 * shared first, then the less followed. Follows of accounts hiding their collections do not
 * count. Bounded: the viewer's FIRST_DEGREE_MAX newest follows, SECOND_DEGREE_MAX of theirs.
 */
export function friendsOfFriends(db: DB, v: Viewer): Id[] {
  return (
    stmt(
      db,
      `WITH first AS (
         SELECT f.target_account_id AS id FROM follows f JOIN accounts t ON t.id = f.target_account_id
         WHERE f.account_id = @viewer AND t.hide_collections = 0 ORDER BY f.id DESC LIMIT ${FIRST_DEGREE_MAX}),
       second AS (SELECT f2.target_account_id AS id FROM first JOIN follows f2 ON f2.account_id = first.id LIMIT ${SECOND_DEGREE_MAX})
       SELECT a.id FROM second JOIN accounts a ON a.id = second.id
       WHERE ${SUGGESTIBLE}
       GROUP BY a.id ORDER BY count(*) DESC, a.followers_count, a.id LIMIT @limit`,
    )
      .pluck()
      .all(params(v)) as bigint[]
  ).map(str);
}

/** The global ranking, best first, with each account's reasons. */
export function globalSuggestions(db: DB, v: Viewer): { id: Id; reasons: GlobalReason[] }[] {
  const rows = stmt(
    db,
    `SELECT a.id, r.reasons FROM follow_recommendations r JOIN accounts a ON a.id = r.account_id
     WHERE ${SUGGESTIBLE} ORDER BY r.rank DESC, r.account_id LIMIT @limit`,
  ).all(params(v)) as Row[];
  return rows.map((r) => {
    const reasons = JSON.parse(r.reasons as string) as string[];
    return { id: str(r.id), reasons: REASONS.filter((x) => reasons.includes(x)) };
  });
}

/**
 * Rebuilds the global ranking (Mastodon's follow_recommendations view): most_followed, by local
 * users active in the last 30 days (at least 5 of them), and most_interactions, boosts and
 * favourites of the account's posts of the last 30 days (at least 5). Only unlocked accounts
 * that opted into discovery, neither suspended, silenced nor moved. Rank: n / (1 + n) per reason,
 * summed. Returns how many accounts are ranked.
 */
export function rebuildFollowRecommendations(db: DB, now: number, windowMs: number, minimum: number): number {
  stmt(db, "DELETE FROM follow_recommendations").run();
  return stmt(
    db,
    `INSERT INTO follow_recommendations (account_id, rank, reasons)
     SELECT t.account_id, sum(t.n * 1.0 / (1 + t.n)), json_group_array(t.reason) FROM (
       SELECT f.target_account_id AS account_id, count(*) AS n, 'most_followed' AS reason
       FROM follows f JOIN users u ON u.account_id = f.account_id
       WHERE EXISTS (SELECT 1 FROM user_activity_days d WHERE d.user_id = u.id AND d.day >= @since)
       GROUP BY f.target_account_id HAVING count(*) >= @minimum
       UNION ALL
       SELECT s.account_id, sum(s.reblogs_count + s.favourites_count), 'most_interactions'
       FROM statuses s WHERE s.id >= @sinceId AND s.deleted_at IS NULL AND s.reblog_of_id IS NULL
       GROUP BY s.account_id HAVING sum(s.reblogs_count + s.favourites_count) >= @minimum
     ) t JOIN accounts a ON a.id = t.account_id
     WHERE a.discoverable = 1 AND a.locked = 0 AND a.suspended_at IS NULL AND a.silenced_at IS NULL AND a.moved_to_account_id IS NULL
     GROUP BY t.account_id`,
  ).run({ since: now - windowMs, sinceId: BigInt(idAt(now - windowMs)) & ~0xffffn, minimum }).changes;
}

/** DELETE /api/v1/suggestions/:account_id: never suggested to this viewer again. */
export function insertSuggestionMute(db: DB, viewerId: Id, targetId: Id, now: number): void {
  stmt(db, "INSERT OR IGNORE INTO follow_recommendation_mutes (account_id, target_account_id, created_at) VALUES (?, ?, ?)").run(
    BigInt(viewerId),
    BigInt(targetId),
    now,
  );
}

export function isFeatured(db: DB, accountId: Id): boolean {
  return stmt(db, "SELECT 1 FROM featured_accounts WHERE account_id = ?").get(BigInt(accountId)) !== undefined;
}

/** True when it changed. */
export function setFeatured(db: DB, accountId: Id, featured: boolean, now: number): boolean {
  const r = featured
    ? stmt(db, "INSERT OR IGNORE INTO featured_accounts (account_id, created_at) VALUES (?, ?)").run(BigInt(accountId), now)
    : stmt(db, "DELETE FROM featured_accounts WHERE account_id = ?").run(BigInt(accountId));
  return r.changes === 1;
}

/** Featured accounts, in the order they were featured (the CLI's list). */
export function listFeaturedIds(db: DB): Id[] {
  return (stmt(db, "SELECT account_id FROM featured_accounts ORDER BY created_at, account_id").pluck().all() as bigint[]).map(str);
}
