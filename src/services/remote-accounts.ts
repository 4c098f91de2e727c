import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { type Account, findAccountById, updateAccount } from "../storage/accounts.ts";
import {
  deleteAccountLeftovers,
  favouritedStatusIds,
  followRequestsOfAccount,
  followsOfAccount,
  statusesOfAccount,
} from "../storage/account-purge.ts";
import { deleteFavourite } from "../storage/favourites.ts";
import { adjustStatusCounter, findStatusById } from "../storage/statuses.ts";
import { clearFeeds, endFollow, endFollowRequest } from "./follows.ts";
import { deleteStatus } from "./statuses.ts";

// A remote actor deleted itself (AP §5.3): its content goes with every counter kept right.
// The row stays, marked suspended, so that late deliveries signed by it are dropped and the
// API answers 404 for it, as for a suspended account.

const BATCH = 200;

/** Removes the remote account's statuses, boosts, follows, favourites and the rest; suspends it. */
export function purgeRemoteAccount(app: App, account: Account): void {
  if (account.domain === null) throw new Error("purgeRemoteAccount: not a remote account");
  const db = app.db;
  // Suspended first: nothing new attaches to it while the batches run.
  if (account.suspendedAt === null) updateAccount(db, account.id, { suspendedAt: app.now(), updatedAt: app.now() });

  for (;;) {
    const statuses = statusesOfAccount(db, account.id, BATCH);
    if (statuses.length === 0) break;
    // Each deleteStatus is a savepoint of this batch's transaction: one commit per batch.
    tx(db, () => {
      // A boost of its own post may already be gone with the post (FK cascade).
      for (const s of statuses) if (findStatusById(db, s.id)) deleteStatus(app, s);
    });
  }

  const unfollowed = new Set<string>();
  for (;;) {
    const follows = followsOfAccount(db, account.id, BATCH);
    if (follows.length === 0) break;
    tx(db, () => {
      for (const f of follows) {
        endFollow(app, f);
        if (f.targetAccountId === account.id) unfollowed.add(f.accountId);
      }
    });
  }
  for (;;) {
    const requests = followRequestsOfAccount(db, account.id, BATCH);
    if (requests.length === 0) break;
    tx(db, () => {
      for (const r of requests) endFollowRequest(app, r);
    });
  }
  // Its posts leave the home feeds of those who followed it.
  for (const followerId of unfollowed) {
    const follower = findAccountById(db, followerId);
    if (follower) clearFeeds(app, follower, account.id);
  }

  for (;;) {
    const favourited = favouritedStatusIds(db, account.id, BATCH);
    if (favourited.length === 0) break;
    tx(db, () => {
      for (const statusId of favourited) {
        if (deleteFavourite(db, account.id, statusId)) adjustStatusCounter(db, statusId, "favourites_count", -1);
      }
    });
  }
  tx(db, () => deleteAccountLeftovers(db, account.id));
}
