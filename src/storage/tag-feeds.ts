import { type DB, stmt, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import type { FeedEntry } from "./feeds.ts";

// Home rows that come from followed hashtags (Mastodon's FanOutOnWriteService
// #deliver_to_hashtag_followers! and FeedManager#unmerge_tag_from_home).

/**
 * Adds a public post to the home of every local account following one of its tags, by the
 * rules of Mastodon's FeedManager#filter_from_tags?: not the author's own home, nothing whose
 * author or mentioned accounts the follower blocks or mutes, nothing from an author who blocks
 * the follower or whose domain the follower blocks. A follower who also follows the author
 * already has the row (INSERT OR IGNORE). `authorDomain` is lower-cased, null when local.
 * Returns the rows added.
 */
export function insertIntoTagFollowerHomes(db: DB, e: FeedEntry, authorDomain: string | null): number {
  const res = stmt(
    db,
    `INSERT OR IGNORE INTO home_feeds (account_id, status_id)
     SELECT DISTINCT tf.account_id, @statusId FROM statuses_tags st
       JOIN tag_follows tf ON tf.tag_id = st.tag_id
     WHERE st.status_id = @statusId AND tf.account_id <> @author
       AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = tf.account_id
                       AND b.target_account_id IN (SELECT value FROM json_each(@involved)))
       AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.target_account_id = tf.account_id
                       AND b.account_id IN (SELECT value FROM json_each(@blockers)))
       AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = tf.account_id
                       AND m.target_account_id IN (SELECT value FROM json_each(@involved))
                       AND (m.expires_at IS NULL OR m.expires_at > @now))
       AND (@domain IS NULL OR NOT EXISTS (SELECT 1 FROM account_domain_blocks d
                                          WHERE d.account_id = tf.account_id AND d.domain = @domain))`,
  ).run({
    statusId: BigInt(e.statusId),
    author: BigInt(e.authorId),
    involved: e.involvedJson,
    blockers: e.blockersJson,
    now: e.now,
    domain: authorDomain,
  });
  return num(res.changes);
}

/**
 * After an unfollow of a tag: removes from the account's home the posts with that tag that
 * nothing else put there — not its own, not by an account it follows, not carrying another
 * tag it follows. Driven by the (trimmed) feed, so the cost is bounded by the feed's size.
 */
export function removeTagFromHome(db: DB, accountId: Id, tagId: Id): number {
  const res = stmt(
    db,
    `DELETE FROM home_feeds WHERE account_id = @a AND status_id IN (
       SELECT h.status_id FROM home_feeds h
         JOIN statuses_tags st ON st.tag_id = @tag AND st.status_id = h.status_id
         JOIN statuses s ON s.id = h.status_id
       WHERE h.account_id = @a AND s.account_id <> @a
         AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.account_id = @a AND f.target_account_id = s.account_id)
         AND NOT EXISTS (SELECT 1 FROM statuses_tags o JOIN tag_follows tf ON tf.tag_id = o.tag_id AND tf.account_id = @a
                         WHERE o.status_id = h.status_id AND o.tag_id <> @tag))`,
  ).run({ a: BigInt(accountId), tag: BigInt(tagId) });
  return num(res.changes);
}
