// Follow suggestions (src/suggestions/DESIGN.md): the admins' featured accounts, the global
// ranking the periodic task writes (follow_recommendations), friends of friends per request,
// and what each user dismissed. Every read applies Mastodon's AccountSuggestions::Source
// base_account_scope: discoverable, approved, neither suspended, silenced, moved nor a
// memorial; not the viewer, nor followed or requested by it, blocked either way, muted, on a
// domain it blocks, or dismissed.
import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { LISTED, NOT_EXCLUDED } from "./directory.ts";

export type GlobalReason = "most_followed" | "most_interactions";
export const REASONS: readonly GlobalReason[] = ["most_followed", "most_interactions"];

const SUGGESTIBLE = `${LISTED} AND a.memorial = 0 AND a.id <> @viewer AND ${NOT_EXCLUDED}
  AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.account_id = @viewer AND f.target_account_id = a.id)
  AND NOT EXISTS (SELECT 1 FROM follow_requests r WHERE r.account_id = @viewer AND r.target_account_id = a.id)
  AND NOT EXISTS (SELECT 1 FROM follow_recommendation_mutes x WHERE x.account_id = @viewer AND x.target_account_id = a.id)`;

/** Friends of friends: the viewer's newest follows looked through, and their follows read, at most. */
const FIRST_DEGREE_MAX = 200;
const SECOND_DEGREE_MAX = 10_000;

interface Viewer {
  viewerId: Id;
  now: number;
  limit: number;
}

const params = (v: Viewer) => ({ viewer: BigInt(v.viewerId), now: v.now, limit: v.limit });

// Each source reads its candidates in its own order and filters them as it goes (CROSS JOIN
// keeps SQLite from starting at accounts and sorting everything that passes the filter).

/** Featured accounts the viewer may be suggested, in the order they were featured. */
export function featuredSuggestions(db: DB, v: Viewer): Id[] {
  return (
    stmt(
      db,
      `SELECT a.id FROM featured_accounts fa CROSS JOIN accounts a ON a.id = fa.account_id
       WHERE ${SUGGESTIBLE} ORDER BY fa.created_at, a.id LIMIT @limit`,
    )
      .pluck()
      .all(params(v)) as bigint[]
  ).map(str);
}

/** Candidates checked per statement: the first chunk of a ranking usually fills the page. */
const CHUNK = 200;

/** The ids of `ordered` that may be suggested to the viewer, in their order, at most v.limit. */
function keepSuggestible(db: DB, v: Viewer, ordered: bigint[]): Id[] {
  const out: Id[] = [];
  const check = stmt(db, `SELECT a.id FROM json_each(@ids) j CROSS JOIN accounts a ON a.id = j.value WHERE ${SUGGESTIBLE}`).pluck();
  for (let i = 0; i < ordered.length && out.length < v.limit; i += CHUNK) {
    const chunk = ordered.slice(i, i + CHUNK);
    const ok = new Set((check.all({ ...params(v), ids: `[${chunk.join(",")}]` }) as bigint[]).map(str));
    for (const id of chunk) if (ok.has(str(id)) && out.length < v.limit) out.push(str(id));
  }
  return out;
}

/**
 * Accounts followed by those the viewer follows (Mastodon's FriendsOfFriendsSource): most
 * shared first, then the less followed. Follows of accounts hiding their collections do not
 * count. Bounded: the viewer's FIRST_DEGREE_MAX newest follows, SECOND_DEGREE_MAX of theirs.
 */
export function friendsOfFriends(db: DB, v: Viewer): Id[] {
  const ranked = stmt(
    db,
    `WITH first AS (
       SELECT f.target_account_id AS id FROM follows f JOIN accounts t ON t.id = f.target_account_id
       WHERE f.account_id = @viewer AND t.hide_collections = 0 ORDER BY f.id DESC LIMIT ${FIRST_DEGREE_MAX}),
     second AS (SELECT f2.target_account_id AS id FROM first JOIN follows f2 ON f2.account_id = first.id LIMIT ${SECOND_DEGREE_MAX}),
     counted AS (SELECT id, count(*) AS n FROM second GROUP BY id)
     SELECT c.id FROM counted c CROSS JOIN accounts a ON a.id = c.id ORDER BY c.n DESC, a.followers_count, a.id`,
  )
    .pluck()
    .all({ viewer: BigInt(v.viewerId) }) as bigint[];
  return keepSuggestible(db, v, ranked);
}

/** The global ranking, best first, with each account's reasons. */
export function globalSuggestions(db: DB, v: Viewer): { id: Id; reasons: GlobalReason[] }[] {
  const rows = stmt(
    db,
    `SELECT a.id, r.reasons FROM follow_recommendations r CROSS JOIN accounts a ON a.id = r.account_id
     WHERE ${SUGGESTIBLE} ORDER BY r.rank DESC, r.account_id LIMIT @limit`,
  ).all(params(v)) as Row[];
  return rows.map((r) => {
    const reasons = JSON.parse(r.reasons as string) as string[];
    return { id: str(r.id), reasons: REASONS.filter((x) => reasons.includes(x)) };
  });
}

export interface FollowRecommendation {
  accountId: Id;
  rank: number;
  reasons: GlobalReason[];
}

// The global ranking (Mastodon's follow_recommendations view) is computed by the periodic task
// (suggestions/refresh.ts) from the pages these functions read, each bounded by a row count
// and read through an index, so that the task can let requests in between them.

/**
 * Followers that count for most_followed: the accounts of local users active since `since`
 * (user_activity_days), in id order.
 */
export function activeLocalAccountIds(db: DB, since: number): Id[] {
  return (
    stmt(
      db,
      `SELECT u.account_id FROM users u
       WHERE EXISTS (SELECT 1 FROM user_activity_days d WHERE d.user_id = u.id AND d.day >= @since) ORDER BY u.account_id`,
    )
      .pluck()
      .all({ since }) as bigint[]
  ).map(str);
}

/** One page of whom `followerId` follows, by follow id after `afterId` (follows_account). */
export function followedPage(db: DB, followerId: Id, afterId: Id, limit: number): { id: Id; targetId: Id }[] {
  const rows = stmt(db, "SELECT id, target_account_id AS target FROM follows WHERE account_id = @follower AND id > @after ORDER BY id LIMIT @limit")
    .raw()
    .all({ follower: BigInt(followerId), after: BigInt(afterId), limit }) as [bigint, bigint][];
  return rows.map(([id, target]) => ({ id: str(id), targetId: str(target) }));
}

/**
 * One page of the posts after `afterId` (boosts and deleted posts left out), in id order: each
 * one's author and its boosts plus favourites (most_interactions).
 */
export function interactionsPage(db: DB, afterId: bigint, limit: number): { id: bigint; accountId: Id; n: number }[] {
  const rows = stmt(
    db,
    `SELECT id, account_id, reblogs_count + favourites_count FROM statuses
     WHERE id > @after AND deleted_at IS NULL AND reblog_of_id IS NULL ORDER BY id LIMIT @limit`,
  )
    .raw()
    .all({ after: afterId, limit }) as [bigint, bigint, number][];
  return rows.map(([id, account, n]) => ({ id, accountId: str(account), n: Number(n) }));
}

/**
 * Among `ids`, the accounts the global ranking may name: unlocked, opted into discovery,
 * neither suspended, silenced nor moved.
 */
export function rankableAccountIds(db: DB, ids: Id[]): Set<Id> {
  const rows = stmt(
    db,
    `SELECT a.id FROM json_each(@ids) j CROSS JOIN accounts a ON a.id = j.value
     WHERE a.discoverable = 1 AND a.locked = 0 AND a.suspended_at IS NULL AND a.silenced_at IS NULL AND a.moved_to_account_id IS NULL`,
  )
    .pluck()
    .all({ ids: `[${ids.join(",")}]` }) as bigint[];
  return new Set(rows.map(str));
}

/** One page of the stored ranking, by account id after `afterId`; reasons as stored (JSON). */
export function followRecommendationsPage(db: DB, afterId: Id, limit: number): { accountId: Id; rank: number; reasons: string }[] {
  const rows = stmt(db, "SELECT account_id, rank, reasons FROM follow_recommendations WHERE account_id > @after ORDER BY account_id LIMIT @limit")
    .raw()
    .all({ after: BigInt(afterId), limit }) as [bigint, number, string][];
  return rows.map(([id, rank, reasons]) => ({ accountId: str(id), rank, reasons }));
}

/** Stores these accounts' rank and reasons (added or replaced). */
export function upsertFollowRecommendations(db: DB, list: FollowRecommendation[]): void {
  const upsert = stmt(
    db,
    `INSERT INTO follow_recommendations (account_id, rank, reasons) VALUES (?, ?, ?)
     ON CONFLICT (account_id) DO UPDATE SET rank = excluded.rank, reasons = excluded.reasons`,
  );
  for (const r of list) upsert.run(BigInt(r.accountId), r.rank, JSON.stringify(r.reasons));
}

/** Drops these accounts from the stored ranking. */
export function deleteFollowRecommendations(db: DB, accountIds: Id[]): void {
  stmt(db, "DELETE FROM follow_recommendations WHERE account_id IN (SELECT value FROM json_each(?))").run(`[${accountIds.join(",")}]`);
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
