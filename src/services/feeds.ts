import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { isLocalUserAccount } from "../storage/users.ts";
import {
  deleteAccountFromFeeds,
  mergeAccountIntoHome,
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
 * Schedules the backfill of the owner's home with the target's recent posts (after a follow,
 * an accepted follow request or an unmute). Only local owners have a home. Runs as the
 * `feed.merge` job so the request that caused it stays fast; may be called inside a tx.
 */
export function scheduleHomeMerge(app: App, ownerAccountId: Id, targetAccountId: Id): void {
  if (!isLocalUserAccount(app.db, ownerAccountId)) return;
  app.jobs.enqueue("feed.merge", { ownerId: ownerAccountId, targetId: targetAccountId });
}

/** The `feed.merge` job's work (synchronous, database only). */
export function mergeIntoHome(app: App, ownerAccountId: Id, targetAccountId: Id): number {
  return tx(app.db, () => mergeAccountIntoHome(app.db, ownerAccountId, targetAccountId, MERGE_ITEMS, app.now()));
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
