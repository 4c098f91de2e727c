import { type DB, type Row, stmt, str, num, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Writes of the materialised timelines (home_feeds, list_feeds). Every insert is one
// INSERT ... SELECT that applies Mastodon's FeedManager#filter_from_home? rules in SQL, so a
// fan-out to N followers costs one statement per batch instead of N round trips.

/** What the SQL filters need to know about the entry being fanned out. */
export interface FeedEntry {
  statusId: Id;
  authorId: Id;
  /** Language of the entry row (boosts usually have none, so the follow's languages do not hide them). */
  language: string | null;
  /** in_reply_to_account_id of a reply to someone else; null for non-replies and self-replies. */
  replyToId: Id | null;
  /** For a boost: the original status, its author and the author's domain (lower-cased, null when local). */
  originalId: Id | null;
  originalAuthorId: Id | null;
  originalDomain: string | null;
  /** Accounts whose block or mute by the recipient hides the entry: author, original author, mentioned accounts. */
  involvedJson: string;
  /** Accounts whose block of the recipient hides the entry: author and original author. */
  blockersJson: string;
  now: number;
}

/** Mastodon's REBLOG_FALLOFF: a boost is not added when its original (or another boost of it) is this recent. */
export const REBLOG_FALLOFF = 40;

function params(e: FeedEntry): Record<string, unknown> {
  return {
    statusId: BigInt(e.statusId),
    author: BigInt(e.authorId),
    lang: e.language,
    replyTo: e.replyToId ? BigInt(e.replyToId) : null,
    origId: e.originalId ? BigInt(e.originalId) : null,
    origDomain: e.originalDomain,
    involved: e.involvedJson,
    blockers: e.blockersJson,
    now: e.now,
    falloff: REBLOG_FALLOFF - 1,
  };
}

/**
 * A boost already visible near the top of a feed is not added again: the original or any
 * boost of it among the newest REBLOG_FALLOFF entries. `feed`/`key` name the feed table and
 * its owner column, `owner` the SQL expression of the owner.
 */
function recentDuplicate(feed: "home_feeds" | "list_feeds", key: "account_id" | "list_id", owner: string): string {
  return `EXISTS (SELECT 1 FROM ${feed} d WHERE d.${key} = ${owner}
      AND d.status_id >= coalesce((SELECT d2.status_id FROM ${feed} d2 WHERE d2.${key} = ${owner}
                                   ORDER BY d2.status_id DESC LIMIT 1 OFFSET @falloff), 0)
      AND (d.status_id = @origId OR d.status_id IN (SELECT r.id FROM statuses r WHERE r.reblog_of_id = @origId)))`;
}

/**
 * A reply to someone else reaches owner `r` only when `r` is that account or follows it
 * (filter_from_home?). `replyTo` is null for posts that are no reply and for self-replies.
 */
function replyRule(r: string, replyTo: string): string {
  return `(${replyTo} IS NULL OR ${replyTo} = ${r}
         OR EXISTS (SELECT 1 FROM follows fr WHERE fr.account_id = ${r} AND fr.target_account_id = ${replyTo}))`;
}

/**
 * filter_from_list?: a reply to someone other than the list's owner `l.account_id` by the list's
 * replies_policy: "followed" (the home rule decides), "list" (to a member), "none".
 */
function listReplyRule(l: string, replyTo: string): string {
  return `(${replyTo} IS NULL OR ${replyTo} = ${l}.account_id OR ${l}.replies_policy = 'followed'
         OR (${l}.replies_policy = 'list' AND EXISTS (SELECT 1 FROM list_accounts lr
                                                    WHERE lr.list_id = ${l}.id AND lr.account_id = ${replyTo})))`;
}

/**
 * filter_from_home? for a recipient other than the author. `r` is the recipient expression,
 * `f` the alias of the recipient's follow of the author (show_reblogs, languages).
 */
function recipientRules(r: string, f: string): string {
  return `
    AND (@lang IS NULL OR ${f}.languages IS NULL OR EXISTS (SELECT 1 FROM json_each(${f}.languages) WHERE value = @lang))
    AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = ${r} AND b.target_account_id IN (SELECT value FROM json_each(@involved)))
    AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.target_account_id = ${r} AND b.account_id IN (SELECT value FROM json_each(@blockers)))
    AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = ${r} AND m.target_account_id IN (SELECT value FROM json_each(@involved))
                    AND (m.expires_at IS NULL OR m.expires_at > @now))
    AND ${replyRule(r, "@replyTo")}
    AND (@origId IS NULL OR (coalesce(${f}.show_reblogs, 1) = 1
         AND (@origDomain IS NULL OR NOT EXISTS (SELECT 1 FROM account_domain_blocks db
                                                 WHERE db.account_id = ${r} AND db.domain = @origDomain))))`;
}

const NOT_EXCLUSIVE = (r: string) => `
    AND NOT EXISTS (SELECT 1 FROM list_accounts xa JOIN lists xl ON xl.id = xa.list_id
                    WHERE xa.account_id = @author AND xl.account_id = ${r} AND xl.exclusive = 1)`;

const HOME_DUP = `AND (@origId IS NULL OR NOT ${recentDuplicate("home_feeds", "account_id", "@owner")})`;

/** Owner ids of the rows an `INSERT ... RETURNING owner` added (the live streams tell them). */
function added(rows: unknown[]): Id[] {
  return (rows as bigint[]).map(str);
}

/** The author's own home: no filter but the boost de-duplication. Returns the owners added. */
export function insertIntoOwnHome(db: DB, e: FeedEntry): Id[] {
  return added(
    stmt(
      db,
      `INSERT OR IGNORE INTO home_feeds (account_id, status_id)
     SELECT @owner, @statusId WHERE 1 ${HOME_DUP} RETURNING account_id`,
    )
      .pluck()
      .all({ ...params(e), owner: BigInt(e.authorId) }),
  );
}

/**
 * The follows id that closes a batch of `size` followers after `afterFollowId`, or null when
 * the rest fits in one batch. Batches keep each write transaction short on large fan-outs.
 */
export function followerBatchEnd(db: DB, authorId: Id, afterFollowId: Id, size: number): Id | null {
  const r = stmt(
    db,
    "SELECT id FROM follows WHERE target_account_id = ? AND id > ? ORDER BY id LIMIT 1 OFFSET ?",
  ).get(BigInt(authorId), BigInt(afterFollowId), size - 1) as Row | undefined;
  return r ? str(r.id) : null;
}

const FOLLOWER_DUP = `AND (@origId IS NULL OR NOT ${recentDuplicate("home_feeds", "account_id", "f.account_id")})`;

/** Home rows for the local followers whose follows id is in (after, upTo]. Returns the owners added. */
export function insertIntoFollowerHomes(db: DB, e: FeedEntry, afterFollowId: Id, upToFollowId: Id | null): Id[] {
  const rows = stmt(
    db,
    `INSERT OR IGNORE INTO home_feeds (account_id, status_id)
     SELECT f.account_id, @statusId FROM follows f
     WHERE f.target_account_id = @author AND f.id > @after AND f.id <= @upTo
       AND EXISTS (SELECT 1 FROM users u WHERE u.account_id = f.account_id)
       ${NOT_EXCLUSIVE("f.account_id")}
       ${recipientRules("f.account_id", "f")}
       ${FOLLOWER_DUP}
     RETURNING account_id`,
  )
    .pluck()
    .all({
      ...params(e),
      after: BigInt(afterFollowId),
      upTo: upToFollowId ? BigInt(upToFollowId) : 9223372036854775807n,
    });
  return added(rows);
}

/**
 * Direct statuses reach the home of mentioned local accounts that follow the author (Mastodon's
 * deliver_to_mentioned_followers). Returns the owners added.
 */
export function insertIntoMentionedFollowerHomes(db: DB, e: FeedEntry): Id[] {
  const rows = stmt(
    db,
    `INSERT OR IGNORE INTO home_feeds (account_id, status_id)
     SELECT f.account_id, @statusId FROM mentions m
       JOIN follows f ON f.account_id = m.account_id AND f.target_account_id = @author
     WHERE m.status_id = @statusId
       AND EXISTS (SELECT 1 FROM users u WHERE u.account_id = f.account_id)
       ${NOT_EXCLUSIVE("f.account_id")}
       ${recipientRules("f.account_id", "f")}
     RETURNING account_id`,
  )
    .pluck()
    .all(params(e));
  return added(rows);
}

/**
 * List rows for the local lists containing the author. Owners must follow the author (or be
 * the author); replies follow the list's replies_policy on top of the home rules
 * (Mastodon's filter_from_list? || filter_from_home?), exclusivity aside. Returns the lists added to.
 */
export function insertIntoLists(db: DB, e: FeedEntry): Id[] {
  const rows = stmt(
    db,
    `INSERT OR IGNORE INTO list_feeds (list_id, status_id)
     SELECT l.id, @statusId FROM list_accounts la
       JOIN lists l ON l.id = la.list_id
       LEFT JOIN follows f ON f.account_id = l.account_id AND f.target_account_id = @author
     WHERE la.account_id = @author
       AND EXISTS (SELECT 1 FROM users u WHERE u.account_id = l.account_id)
       AND (l.account_id = @author OR (f.id IS NOT NULL ${recipientRules("l.account_id", "f")}
         AND ${listReplyRule("l", "@replyTo")}))
       AND (@origId IS NULL OR NOT ${recentDuplicate("list_feeds", "list_id", "l.id")})
     RETURNING list_id`,
  )
    .pluck()
    .all(params(e));
  return added(rows);
}

/**
 * Removes the target's posts and boosts, and boosts of the target's posts, from the owner's
 * home and list feeds. Driven by the (trimmed) feed, not by the target's statuses, so the cost
 * is bounded by the feed size whatever the target has posted.
 */
export function deleteAccountFromFeeds(db: DB, ownerId: Id, targetId: Id): void {
  const p = { owner: BigInt(ownerId), target: BigInt(targetId) };
  stmt(
    db,
    `DELETE FROM home_feeds WHERE account_id = @owner AND status_id IN (
       SELECT h.status_id FROM home_feeds h JOIN statuses s ON s.id = h.status_id
         LEFT JOIN statuses o ON o.id = s.reblog_of_id
       WHERE h.account_id = @owner AND (s.account_id = @target OR o.account_id = @target))`,
  ).run(p);
  stmt(
    db,
    `DELETE FROM list_feeds WHERE (list_id, status_id) IN (
       SELECT lf.list_id, lf.status_id FROM lists l JOIN list_feeds lf ON lf.list_id = l.id
         JOIN statuses s ON s.id = lf.status_id LEFT JOIN statuses o ON o.id = s.reblog_of_id
       WHERE l.account_id = @owner AND (s.account_id = @target OR o.account_id = @target))`,
  ).run(p);
}

/**
 * What a merge considers: the target's newest `@limit` posts and boosts that may enter a feed
 * (Mastodon's list_eligible_visibility, limited before the rules as in
 * FeedManager#merge_into_home and #merge_into_list), so a merge reads at most @limit rows
 * however much the target has posted. `s` is the row, `o` and `oa` a boost's original and its author.
 */
const MERGE_SOURCE = `(SELECT id FROM statuses WHERE account_id = @target AND deleted_at IS NULL
         AND visibility IN ('public', 'unlisted', 'private') ORDER BY id DESC LIMIT @limit) c
       JOIN statuses s ON s.id = c.id
       LEFT JOIN statuses o ON o.id = s.reblog_of_id
       LEFT JOIN accounts oa ON oa.id = o.account_id`;

/** The replied-to account of a merged row as FeedEntry.replyToId: null for non-replies and self-replies. */
const MERGE_REPLY_TO = "nullif(s.in_reply_to_account_id, s.account_id)";

/** A reply whose parent is unknown reaches no follower and no list (the fan-out's unknownParent). */
const MERGE_KNOWN_PARENT = `((s.in_reply_to_id IS NULL AND s.in_reply_to_uri IS NULL)
         OR (s.in_reply_to_id IS NOT NULL AND s.in_reply_to_account_id IS NOT NULL))`;

/**
 * The fan-out's rules (recipientRules) evaluated per merged row for owner `r`, who follows the
 * row's author through `f`: the follow's languages and show_reblogs; boosts only of a live
 * public or unlisted post whose author neither blocks `r` nor is on a domain `r` blocks;
 * replies to others only when `r` follows the replied-to account; nothing whose author,
 * boosted author or mentioned accounts `r` blocks or mutes.
 */
function mergeRules(r: string): string {
  return `(s.reblog_of_id IS NULL OR (f.show_reblogs = 1 AND o.deleted_at IS NULL AND o.visibility IN ('public', 'unlisted')
            AND (oa.domain IS NULL OR NOT EXISTS (SELECT 1 FROM account_domain_blocks db
                                                  WHERE db.account_id = ${r} AND db.domain = lower(oa.domain)))
            AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = o.account_id AND b.target_account_id = ${r})))
       AND (s.language IS NULL OR f.languages IS NULL OR EXISTS (SELECT 1 FROM json_each(f.languages) WHERE value = s.language))
       AND ${replyRule(r, MERGE_REPLY_TO)}
       AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = ${r} AND (b.target_account_id = o.account_id
            OR b.target_account_id IN (SELECT m.account_id FROM mentions m WHERE m.status_id = coalesce(o.id, s.id))))
       AND NOT EXISTS (SELECT 1 FROM mutes mu WHERE mu.account_id = ${r} AND (mu.expires_at IS NULL OR mu.expires_at > @now)
            AND (mu.target_account_id = s.account_id OR mu.target_account_id = o.account_id
                 OR mu.target_account_id IN (SELECT m.account_id FROM mentions m WHERE m.status_id = coalesce(o.id, s.id))))`;
}

/**
 * Backfills the owner's home with the target's recent posts and boosts (Mastodon's
 * FeedManager#merge_into_home after a follow, an accepted request or an unmute): the owner must
 * follow the target, the fan-out's home rules apply (mergeRules), direct posts never, and
 * nothing from an author the owner keeps in an exclusive list. Returns the rows added.
 */
export function mergeAccountIntoHome(db: DB, ownerId: Id, targetId: Id, limit: number, now: number): number {
  const res = stmt(
    db,
    `INSERT OR IGNORE INTO home_feeds (account_id, status_id)
     SELECT @owner, s.id FROM ${MERGE_SOURCE}
       JOIN follows f ON f.account_id = @owner AND f.target_account_id = s.account_id
     WHERE ${MERGE_KNOWN_PARENT}
       AND ${mergeRules("@owner")}
       AND NOT EXISTS (SELECT 1 FROM list_accounts xa JOIN lists xl ON xl.id = xa.list_id
                       WHERE xa.account_id = @target AND xl.account_id = @owner AND xl.exclusive = 1)`,
  ).run({ owner: BigInt(ownerId), target: BigInt(targetId), limit, now });
  return num(res.changes);
}

/**
 * Backfills a list with a member's recent posts and boosts (Mastodon's
 * FeedManager#merge_into_list): the rules of insertIntoLists per row, so a list filled by
 * backfill holds what fan-out would have put there. The owner's own posts always; another
 * member's only while the owner follows it (a requested member waits for the accept), by the
 * home rules and the list's replies_policy; exclusivity only matters to home. Nothing when
 * the target is not (or no longer) a member. Returns the rows added.
 */
export function mergeAccountIntoList(db: DB, listId: Id, targetId: Id, limit: number, now: number): number {
  const res = stmt(
    db,
    `INSERT OR IGNORE INTO list_feeds (list_id, status_id)
     SELECT l.id, s.id FROM ${MERGE_SOURCE}
       JOIN lists l ON l.id = @list
       LEFT JOIN follows f ON f.account_id = l.account_id AND f.target_account_id = s.account_id
     WHERE EXISTS (SELECT 1 FROM list_accounts la WHERE la.list_id = @list AND la.account_id = @target)
       AND ${MERGE_KNOWN_PARENT}
       AND (s.account_id = l.account_id OR (f.id IS NOT NULL AND ${mergeRules("l.account_id")}
         AND ${listReplyRule("l", MERGE_REPLY_TO)}))`,
  ).run({ list: BigInt(listId), target: BigInt(targetId), limit, now });
  return num(res.changes);
}

/** How many posts a merge of the account would consider, counted up to `max` (a bounded index scan). */
export function mergeCandidateCount(db: DB, accountId: Id, max: number): number {
  const r = stmt(
    db,
    `SELECT count(*) AS n FROM (SELECT 1 FROM statuses WHERE account_id = ? AND deleted_at IS NULL
       AND visibility IN ('public', 'unlisted', 'private') LIMIT ?)`,
  ).get(BigInt(accountId), max) as Row;
  return num(r.n);
}

/** Removes an account's posts and boosts from one list's feed (the account left the list). */
export function deleteAccountFromListFeed(db: DB, listId: Id, accountId: Id): void {
  stmt(
    db,
    `DELETE FROM list_feeds WHERE list_id = @list AND status_id IN (
       SELECT lf.status_id FROM list_feeds lf JOIN statuses s ON s.id = lf.status_id
       WHERE lf.list_id = @list AND s.account_id = @account)`,
  ).run({ list: BigInt(listId), account: BigInt(accountId) });
}

/** Owners of home feeds, in pages by account id (for the periodic trim). */
export function homeFeedOwnersAfter(db: DB, afterAccountId: Id, limit: number): Id[] {
  const rows = stmt(db, "SELECT account_id FROM users WHERE account_id > ? ORDER BY account_id LIMIT ?").all(
    BigInt(afterAccountId),
    limit,
  ) as Row[];
  return rows.map((r) => str(r.account_id));
}

export function listIdsAfter(db: DB, afterListId: Id, limit: number): Id[] {
  const rows = stmt(db, "SELECT id FROM lists WHERE id > ? ORDER BY id LIMIT ?").all(BigInt(afterListId), limit) as Row[];
  return rows.map((r) => str(r.id));
}

/** Keeps the newest `keep` entries of a home feed; returns the rows removed. */
export function trimHomeFeed(db: DB, accountId: Id, keep: number): number {
  const res = stmt(
    db,
    `DELETE FROM home_feeds WHERE account_id = @a AND status_id < (
       SELECT status_id FROM home_feeds WHERE account_id = @a ORDER BY status_id DESC LIMIT 1 OFFSET @off)`,
  ).run({ a: BigInt(accountId), off: keep - 1 });
  return num(res.changes);
}

export function trimListFeed(db: DB, listId: Id, keep: number): number {
  const res = stmt(
    db,
    `DELETE FROM list_feeds WHERE list_id = @l AND status_id < (
       SELECT status_id FROM list_feeds WHERE list_id = @l ORDER BY status_id DESC LIMIT 1 OFFSET @off)`,
  ).run({ l: BigInt(listId), off: keep - 1 });
  return num(res.changes);
}

/** Accounts mentioned by any of the statuses (one query). */
export function mentionedAccountIds(db: DB, statusIds: Id[]): Id[] {
  const rows = stmt(
    db,
    "SELECT DISTINCT account_id FROM mentions WHERE status_id IN (SELECT value FROM json_each(?))",
  ).all(idListJson(statusIds)) as Row[];
  return rows.map((r) => str(r.account_id));
}

/** Those of `accountIds` that are local users (have a users row). */
export function localAccountIdsAmong(db: DB, accountIds: Id[]): Id[] {
  const rows = stmt(
    db,
    "SELECT account_id FROM users WHERE account_id IN (SELECT value FROM json_each(?))",
  ).all(idListJson(accountIds)) as Row[];
  return rows.map((r) => str(r.account_id));
}
