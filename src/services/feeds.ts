import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { isLocalUserAccount } from "../storage/users.ts";
import { listListsContaining } from "../storage/lists.ts";
import { isFollowing } from "../storage/relationship-checks.ts";
import {
  deleteAccountFromFeeds,
  mergeAccountIntoHome,
  mergeAccountIntoList,
  mergeCandidateCount,
  homeFeedOwnersAfter,
  listIdsAfter,
  trimHomeFeed,
  trimListFeed,
} from "../storage/feeds.ts";

/** Entries kept per home or list feed; older ones are removed by the periodic trim. */
export const FEED_MAX_ITEMS = 1000;
const TRIM_BATCH = 200;

/**
 * Removes a target account's posts and boosts (and boosts of its posts) from the owner's home
 * and list feeds (block, mute, unfollow). Synchronous, so callers may run it inside their tx.
 */
export function removeAccountFromFeeds(app: App, ownerAccountId: Id, targetAccountId: Id): void {
  deleteAccountFromFeeds(app.db, ownerAccountId, targetAccountId);
}

/** Statuses of a newly followed (or unmuted) account merged into the home: Mastodon's MAX_ITEMS / 4. */
export const MERGE_ITEMS = FEED_MAX_ITEMS / 4;

/**
 * A member added to a list with at most this many posts to merge is merged in the request
 * that adds it, so the list shows them on the client's next read; one with more, by a
 * `feed.merge` job (up to MERGE_ITEMS rows), so adding a prolific account stays fast.
 */
export const LIST_MERGE_INLINE_MAX = 40;

/**
 * Schedules the backfill of the owner's home, and of the owner's lists that contain the target,
 * with the target's recent posts (after a follow, an accepted follow request or an unmute:
 * Mastodon's MergeWorker for 'home' and, from FollowRequest#authorize! and UnmuteService,
 * for each such list). Only local owners have feeds. Runs as the `feed.merge` job so the
 * request that caused it stays fast; may be called inside a tx.
 */
export function scheduleFeedMerge(app: App, ownerAccountId: Id, targetAccountId: Id): void {
  if (!isLocalUserAccount(app.db, ownerAccountId)) return;
  app.jobs.enqueue("feed.merge", { ownerId: ownerAccountId, targetId: targetAccountId });
}

/** The `feed.merge` job's work for an owner: home, then each of the owner's lists with the target. */
export function mergeIntoFeeds(app: App, ownerAccountId: Id, targetAccountId: Id): number {
  return tx(app.db, () => {
    const now = app.now();
    let added = mergeAccountIntoHome(app.db, ownerAccountId, targetAccountId, MERGE_ITEMS, now);
    for (const list of listListsContaining(app.db, ownerAccountId, targetAccountId))
      added += mergeAccountIntoList(app.db, list.id, targetAccountId, MERGE_ITEMS, now);
    return added;
  });
}

/**
 * Backfills a list with a member just added (Mastodon's AddAccountsToListService →
 * MergeWorker 'list'): at once when the member has few posts, else as a `feed.merge` job.
 * A requested member is merged when the request is accepted (scheduleFeedMerge). Call inside
 * the transaction that adds the member.
 */
export function backfillListMember(app: App, list: { id: Id; accountId: Id }, memberId: Id): void {
  if (memberId !== list.accountId && !isFollowing(app.db, list.accountId, memberId)) return;
  if (mergeCandidateCount(app.db, memberId, LIST_MERGE_INLINE_MAX + 1) <= LIST_MERGE_INLINE_MAX)
    mergeAccountIntoList(app.db, list.id, memberId, MERGE_ITEMS, app.now());
  else app.jobs.enqueue("feed.merge", { listId: list.id, targetId: memberId });
}

/** The `feed.merge` job's work for one list (nothing if the list or the membership is gone). */
export function mergeIntoList(app: App, listId: Id, targetAccountId: Id): number {
  return tx(app.db, () => mergeAccountIntoList(app.db, listId, targetAccountId, MERGE_ITEMS, app.now()));
}

/** Trims every home and list feed to FEED_MAX_ITEMS, a batch of feeds per transaction. */
export function trimFeeds(app: App, keep = FEED_MAX_ITEMS): number {
  let removed = 0;
  for (let after: Id = "0"; ; ) {
    const owners = homeFeedOwnersAfter(app.db, after, TRIM_BATCH);
    if (owners.length === 0) break;
    removed += tx(app.db, () => owners.reduce((n, id) => n + trimHomeFeed(app.db, id, keep), 0));
    after = owners[owners.length - 1];
  }
  for (let after: Id = "0"; ; ) {
    const lists = listIdsAfter(app.db, after, TRIM_BATCH);
    if (lists.length === 0) break;
    removed += tx(app.db, () => lists.reduce((n, id) => n + trimListFeed(app.db, id, keep), 0));
    after = lists[lists.length - 1];
  }
  return removed;
}
