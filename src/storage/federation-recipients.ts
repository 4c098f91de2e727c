import { type DB, type Row, idListJson, stmt } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Who outside this server must hear of a local action (AP §9.1/9.2), as inbox rows. Every query
// returns remote, unsuspended accounts' preferred inbox (shared when they have one, AP §9.2),
// deduplicated by SQL; the caller applies domain policy and peer availability.

export interface InboxRow {
  inbox: string;
  /** The account's domain (`host[:port]`), for the admin's domain blocks. */
  domain: string;
}

const PREFERRED = "coalesce(a.shared_inbox_url, a.inbox_url)";
const REACHABLE = `a.domain IS NOT NULL AND a.suspended_at IS NULL AND ${PREFERRED} IS NOT NULL`;

const toRows = (rows: Row[]): InboxRow[] => rows.map((r) => ({ inbox: r.inbox as string, domain: r.domain as string }));
const idOrNull = (id: Id | null | undefined) => (id ? BigInt(id) : null);

/**
 * Cheap test run inside every local post's transaction: has any of `followersOf` (the author;
 * a publicly replied-to user) a remote follower, is anyone among the status's mentions remote,
 * or is `otherAccountId` (replied-to or boosted author) remote? EXISTS stops at the first row.
 */
export function hasRemoteConcern(db: DB, q: { followersOf: Id[]; statusId: Id; otherAccountId: Id | null }): boolean {
  const r = stmt(
    db,
    `SELECT EXISTS (SELECT 1 FROM follows f
                    WHERE f.target_account_id IN (SELECT value FROM json_each(@followersOf)) AND f.remote = 1)
         OR EXISTS (SELECT 1 FROM mentions m JOIN accounts a ON a.id = m.account_id
                    WHERE m.status_id = @statusId AND a.domain IS NOT NULL)
         OR EXISTS (SELECT 1 FROM accounts a WHERE a.id = @otherId AND a.domain IS NOT NULL) AS concerned`,
  ).get({ followersOf: idListJson(q.followersOf), statusId: BigInt(q.statusId), otherId: idOrNull(q.otherAccountId) }) as Row;
  return r.concerned === 1n || r.concerned === 1;
}

/** Inboxes of the remote followers of an account: one query, one row per inbox. */
export function remoteFollowerInboxes(db: DB, accountId: Id): InboxRow[] {
  const rows = stmt(
    db,
    `SELECT DISTINCT ${PREFERRED} AS inbox, a.domain AS domain
     FROM follows f JOIN accounts a ON a.id = f.account_id
     WHERE f.target_account_id = ? AND f.remote = 1 AND ${REACHABLE}`,
  ).all(BigInt(accountId)) as Row[];
  return toRows(rows);
}

/** Inboxes of the account's remote followers and of the remote accounts that block it (a Move's audience). */
export function moveAudienceInboxes(db: DB, accountId: Id): InboxRow[] {
  const rows = stmt(
    db,
    `SELECT DISTINCT ${PREFERRED} AS inbox, a.domain AS domain FROM accounts a
     WHERE a.id IN (SELECT account_id FROM follows WHERE target_account_id = @id AND remote = 1
                    UNION ALL SELECT account_id FROM blocks WHERE target_account_id = @id)
       AND ${REACHABLE}`,
  ).all({ id: BigInt(accountId) }) as Row[];
  return toRows(rows);
}

export interface StatusAudienceQuery {
  authorId: Id;
  statusId: Id;
  /** The author's followers (not for direct posts). */
  followers: boolean;
  /** Everyone who boosted, favourited or replied (Update/Delete of public and unlisted posts). */
  interactions: boolean;
  /** The replied-to or boosted author. */
  otherAccountId: Id | null;
  /** A local user replied to publicly: their remote followers hear of the reply too (AP §9.1). */
  localParentAuthorId: Id | null;
}

/**
 * The reach of a status in one query: followers, every mention (silent ones included: they
 * still address), interactions and the other author, minus domains the author blocked.
 */
export function statusAudienceInboxes(db: DB, q: StatusAudienceQuery): InboxRow[] {
  const rows = stmt(
    db,
    `SELECT DISTINCT ${PREFERRED} AS inbox, a.domain AS domain FROM accounts a
     WHERE a.id IN (
         SELECT account_id FROM follows WHERE target_account_id = @authorId AND remote = 1 AND @followers
         UNION ALL SELECT account_id FROM mentions WHERE status_id = @statusId
         UNION ALL SELECT account_id FROM statuses WHERE reblog_of_id = @statusId AND @interactions
         UNION ALL SELECT account_id FROM favourites WHERE status_id = @statusId AND @interactions
         UNION ALL SELECT account_id FROM statuses WHERE in_reply_to_id = @statusId AND @interactions
         UNION ALL SELECT account_id FROM follows WHERE target_account_id = @parentAuthorId AND remote = 1
         UNION ALL SELECT @otherId)
       AND ${REACHABLE}
       AND NOT EXISTS (SELECT 1 FROM account_domain_blocks d WHERE d.account_id = @authorId AND d.domain = a.domain)`,
  ).all({
    authorId: BigInt(q.authorId),
    statusId: BigInt(q.statusId),
    followers: q.followers ? 1 : 0,
    interactions: q.interactions ? 1 : 0,
    otherId: idOrNull(q.otherAccountId),
    parentAuthorId: idOrNull(q.localParentAuthorId),
  }) as Row[];
  return toRows(rows);
}

/**
 * Who hears of a profile change (AP §5.2): remote followers, plus remote accounts the user
 * mentioned or followed (or asked to) since `since` (ms; `sinceId` is the smallest status id
 * of that moment, so the author's statuses are read by index range).
 */
export function profileAudienceInboxes(db: DB, accountId: Id, since: number, sinceId: Id): InboxRow[] {
  const rows = stmt(
    db,
    `SELECT DISTINCT ${PREFERRED} AS inbox, a.domain AS domain FROM accounts a
     WHERE a.id IN (
         SELECT account_id FROM follows WHERE target_account_id = @id AND remote = 1
         UNION ALL SELECT m.account_id FROM statuses s JOIN mentions m ON m.status_id = s.id
                   WHERE s.account_id = @id AND s.id >= @sinceId
         UNION ALL SELECT target_account_id FROM follows WHERE account_id = @id AND created_at >= @since
         UNION ALL SELECT target_account_id FROM follow_requests WHERE account_id = @id AND created_at >= @since)
       AND ${REACHABLE}`,
  ).all({ id: BigInt(accountId), since, sinceId: BigInt(sinceId) }) as Row[];
  return toRows(rows);
}

/**
 * Every inbox we know of (Mastodon's Account.inboxes): a deleted local actor is announced to
 * all of them, not only to its followers, so copies of its posts and profile go everywhere.
 */
export function allKnownInboxes(db: DB): InboxRow[] {
  return toRows(stmt(db, `SELECT DISTINCT ${PREFERRED} AS inbox, a.domain AS domain FROM accounts a WHERE ${REACHABLE}`).all() as Row[]);
}

/** Has the account any remote follower at all (hooks that address followers only)? */
export function hasRemoteFollowers(db: DB, accountId: Id): boolean {
  return !!stmt(
    db,
    `SELECT 1 FROM follows f WHERE f.target_account_id = ? AND f.remote = 1 LIMIT 1`,
  ).get(BigInt(accountId));
}
