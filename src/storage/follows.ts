import { type DB, type Row, stmt, str, num, bool, json } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type KeysetPage, type PageRow, selectPage } from "./relationship-pages.ts";

/** A follow or a pending follow request (same shape; a request becomes a follow with its uri). */
export interface FollowRecord {
  id: Id;
  accountId: Id;
  targetAccountId: Id;
  showReblogs: boolean;
  notify: boolean;
  /** Language filter; null = all languages. */
  languages: string[] | null;
  uri: string;
  createdAt: number;
  updatedAt: number;
}

export interface FollowOptions {
  showReblogs?: boolean;
  notify?: boolean;
  /** null clears the filter; undefined leaves it unchanged. */
  languages?: string[] | null;
}

export function rowToFollowRecord(r: Row): FollowRecord {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    targetAccountId: str(r.target_account_id),
    showReblogs: bool(r.show_reblogs),
    notify: bool(r.notify),
    languages: r.languages === null || r.languages === undefined ? null : json<string[] | null>(r.languages, null),
    uri: r.uri as string,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export function findFollow(db: DB, accountId: Id, targetId: Id): FollowRecord | undefined {
  const r = stmt(db, "SELECT * FROM follows WHERE account_id = ? AND target_account_id = ?").get(BigInt(accountId), BigInt(targetId)) as
    | Row
    | undefined;
  return r && rowToFollowRecord(r);
}

export function insertFollow(db: DB, f: FollowRecord): void {
  stmt(
    db,
    `INSERT INTO follows (id, account_id, target_account_id, show_reblogs, notify, languages, uri, created_at, updated_at)
     VALUES (@id, @accountId, @targetId, @showReblogs, @notify, @languages, @uri, @createdAt, @updatedAt)`,
  ).run(recordParams(f));
}

export function recordParams(f: FollowRecord): Record<string, unknown> {
  return {
    id: BigInt(f.id),
    accountId: BigInt(f.accountId),
    targetId: BigInt(f.targetAccountId),
    showReblogs: f.showReblogs ? 1 : 0,
    notify: f.notify ? 1 : 0,
    languages: f.languages === null ? null : JSON.stringify(f.languages),
    uri: f.uri,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  };
}

/** The options after applying `o` to `f` (undefined keeps a value). */
export function mergeFollowOptions(f: FollowRecord, o: FollowOptions): FollowRecord {
  return {
    ...f,
    showReblogs: o.showReblogs ?? f.showReblogs,
    notify: o.notify ?? f.notify,
    languages: o.languages === undefined ? f.languages : o.languages,
  };
}

export function updateFollowOptions(db: DB, table: "follows" | "follow_requests", f: FollowRecord, now: number): void {
  stmt(
    db,
    `UPDATE ${table} SET show_reblogs = @showReblogs, notify = @notify, languages = @languages, updated_at = @now WHERE id = @id`,
  ).run({
    id: BigInt(f.id),
    showReblogs: f.showReblogs ? 1 : 0,
    notify: f.notify ? 1 : 0,
    languages: f.languages === null ? null : JSON.stringify(f.languages),
    now,
  });
}

export function deleteFollowById(db: DB, id: Id): void {
  stmt(db, "DELETE FROM follows WHERE id = ?").run(BigInt(id));
}

/** followers_count / following_count move with each follow created or removed. */
export function adjustFollowCounts(db: DB, followerId: Id, followeeId: Id, delta: 1 | -1): void {
  stmt(db, "UPDATE accounts SET following_count = max(0, following_count + @d) WHERE id = @id").run({ d: delta, id: BigInt(followerId) });
  stmt(db, "UPDATE accounts SET followers_count = max(0, followers_count + @d) WHERE id = @id").run({ d: delta, id: BigInt(followeeId) });
}

/**
 * Accounts a viewer must not see in account lists: blocked either way, muted (active) or on
 * a domain the viewer blocks (Mastodon's excluded_from_timeline_account_ids). `@viewer` = 0
 * when anonymous, which matches nothing. Expects the listed account aliased `a`.
 */
export const EXCLUDED_FOR_VIEWER = `
  AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = @viewer AND b.target_account_id = a.id)
  AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = a.id AND b.target_account_id = @viewer)
  AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = @viewer AND m.target_account_id = a.id
                  AND (m.expires_at IS NULL OR m.expires_at > @now))
  AND (a.domain IS NULL OR NOT EXISTS (SELECT 1 FROM account_domain_blocks d
                  WHERE d.account_id = @viewer AND d.domain = lower(a.domain)))`;

/** Followers of `accountId`, newest follow first; cursor = follow id. */
export function listFollowersPage(db: DB, accountId: Id, viewerId: Id | null, page: KeysetPage, now: number): PageRow[] {
  return selectPage(
    db,
    page,
    "f.id",
    (where, order) => `SELECT f.id AS cursor, f.account_id FROM follows f JOIN accounts a ON a.id = f.account_id
      WHERE f.target_account_id = @accountId AND a.suspended_at IS NULL${where}${EXCLUDED_FOR_VIEWER}
      ORDER BY ${order} LIMIT @limit`,
    { accountId: BigInt(accountId), viewer: BigInt(viewerId ?? 0), now },
  );
}

/** Accounts `accountId` follows, newest follow first; cursor = follow id. */
export function listFollowingPage(db: DB, accountId: Id, viewerId: Id | null, page: KeysetPage, now: number): PageRow[] {
  return selectPage(
    db,
    page,
    "f.id",
    (where, order) => `SELECT f.id AS cursor, f.target_account_id AS account_id FROM follows f JOIN accounts a ON a.id = f.target_account_id
      WHERE f.account_id = @accountId AND a.suspended_at IS NULL${where}${EXCLUDED_FOR_VIEWER}
      ORDER BY ${order} LIMIT @limit`,
    { accountId: BigInt(accountId), viewer: BigInt(viewerId ?? 0), now },
  );
}

/** Follows between `accountId` and accounts of `domain`, both directions (domain blocks). */
export function findFollowsWithDomain(db: DB, accountId: Id, domain: string): { outgoing: FollowRecord[]; incoming: FollowRecord[] } {
  const p = { id: BigInt(accountId), domain };
  const outgoing = stmt(
    db,
    `SELECT f.* FROM follows f JOIN accounts a ON a.id = f.target_account_id
     WHERE f.account_id = @id AND a.domain IS NOT NULL AND lower(a.domain) = @domain`,
  ).all(p) as Row[];
  const incoming = stmt(
    db,
    `SELECT f.* FROM follows f JOIN accounts a ON a.id = f.account_id
     WHERE f.target_account_id = @id AND a.domain IS NOT NULL AND lower(a.domain) = @domain`,
  ).all(p) as Row[];
  return { outgoing: outgoing.map(rowToFollowRecord), incoming: incoming.map(rowToFollowRecord) };
}

/** Mastodon's DomainBlockPreview: follows that blocking `domain` would sever. */
export function countFollowsWithDomain(db: DB, accountId: Id, domain: string): { following: number; followers: number } {
  const r = stmt(
    db,
    `SELECT
       (SELECT count(*) FROM follows f JOIN accounts a ON a.id = f.target_account_id
         WHERE f.account_id = @id AND a.domain IS NOT NULL AND lower(a.domain) = @domain) AS following,
       (SELECT count(*) FROM follows f JOIN accounts a ON a.id = f.account_id
         WHERE f.target_account_id = @id AND a.domain IS NOT NULL AND lower(a.domain) = @domain) AS followers`,
  ).get({ id: BigInt(accountId), domain }) as Row;
  return { following: num(r.following), followers: num(r.followers) };
}

/**
 * Side effects of a follow ending that live in other packages' tables, as Mastodon's
 * dependent rows: the follower's endorsement of the target (AccountPin needs a follow), the
 * target in the follower's lists (ListAccount belongs to the follow), and the target's
 * `follow` notification about it (the notification belongs to the follow).
 */
export function deleteFollowDependents(db: DB, followerId: Id, followeeId: Id): void {
  const p = { follower: BigInt(followerId), followee: BigInt(followeeId) };
  stmt(db, "DELETE FROM account_pins WHERE account_id = @follower AND target_account_id = @followee").run(p);
  stmt(
    db,
    "DELETE FROM list_accounts WHERE account_id = @followee AND list_id IN (SELECT id FROM lists WHERE account_id = @follower)",
  ).run(p);
  stmt(
    db,
    "DELETE FROM notifications WHERE account_id = @followee AND from_account_id = @follower AND type = 'follow'",
  ).run(p);
}
