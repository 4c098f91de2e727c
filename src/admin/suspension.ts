import type { App } from "../app.ts";
import { type Account, findAccountById, updateAccount } from "../storage/accounts.ts";
import {
  deleteAuthorFromAllFeeds,
  deleteDeletionRequest,
  followedLocalIds,
  insertDeletionRequest,
  localFollowerIds,
} from "../storage/account-moderation.ts";
import { removeFromFollowers } from "../services/follows.ts";
import { scheduleFeedMerge } from "../services/feeds.ts";
import { onProfileUpdated } from "../federation/outbox/hooks.ts";

// What suspending and unsuspending do beyond the flag (Mastodon's Account#suspend!,
// SuspendAccountService, UnsuspendAccountService). Called inside the action's transaction.

/**
 * Suspends by our moderators: the data is scheduled for deletion (30 days, or at once by
 * DELETE /api/v1/admin/accounts/:id), posts leave every feed, and
 * - a local account's followers get Update(actor) carrying `suspended: true`;
 * - a remote account's follows of our users are rejected (Reject(Follow)) and removed, as its
 *   own server will not stop it reading what those users send.
 */
export function applySuspension(app: App, account: Account, at?: number): void {
  const now = app.now();
  if (account.domain !== null) {
    // Before the flag: a suspended account has no personal inbox to send the Reject to.
    for (const ownerId of followedLocalIds(app.db, account.id)) {
      const owner = findAccountById(app.db, ownerId);
      if (owner) removeFromFollowers(app, owner, account);
    }
  }
  // `at`: a domain block stamps its own time, so lifting the block finds the accounts it suspended.
  updateAccount(app.db, account.id, { suspendedAt: account.suspendedAt ?? at ?? now, suspensionOrigin: "local", updatedAt: now });
  insertDeletionRequest(app.db, account.id, now);
  deleteAuthorFromAllFeeds(app.db, account.id);
  onProfileUpdated(app, account);
}

/** Lifts our suspension: no deletion, the actor updated again, posts back in followers' feeds. */
export function liftSuspension(app: App, account: Account): void {
  const now = app.now();
  updateAccount(app.db, account.id, { suspendedAt: null, suspensionOrigin: null, updatedAt: now });
  deleteDeletionRequest(app.db, account.id);
  for (const followerId of localFollowerIds(app.db, account.id)) scheduleFeedMerge(app, followerId, account.id);
  onProfileUpdated(app, account);
}
