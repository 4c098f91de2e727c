import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import {
  deleteAccountFromFeeds,
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
