import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import type { Account } from "../storage/accounts.ts";
import { blockingViewerAmong, deleteBlock, deleteNotificationsBetween, findBlock, insertBlock, listBlocksPage } from "../storage/blocks.ts";
import { updateBlockUri } from "../storage/activity-uris.ts";
import { findFollowRequest } from "../storage/follow-requests.ts";
import { findFollow } from "../storage/follows.ts";
import type { KeysetPage, PageRow } from "../storage/relationship-pages.ts";
import { isBlocking } from "../storage/relationship-checks.ts";
import { clearFeeds, endFollow, endFollowRequest } from "./follows.ts";
import { onBlocked, onFollowRejected, onUnblocked, onUnfollowed } from "../federation/outbox/hooks.ts";
import { inTx } from "../db/db.ts";

// Mastodon's BlockService + AfterBlockService, UnblockService.

/** Stored URI of a Block activity. */
export const blockUri = (app: App, id: Id) => `${app.baseUrl}/blocks/${id}`;

/**
 * POST /api/v1/accounts/:id/block. Ends follows and pending requests in both directions,
 * drops the target's notifications to the blocker and each side's posts from the other's
 * feeds. Idempotent; blocking oneself does nothing (as Mastodon).
 */
export function blockAccount(app: App, source: Account, target: Account, via: { uri?: string } = {}): void {
  if (source.id === target.id) return;
  inTx(app.db, () => {
    for (const [a, b] of [
      [source.id, target.id],
      [target.id, source.id],
    ]) {
      // The blocker's own follow is withdrawn (Undo Follow); the other side's is refused
      // (Reject Follow). The hooks send them when the other side is remote.
      const severed = a === source.id ? onUnfollowed : onFollowRejected;
      const follow = findFollow(app.db, a, b);
      if (follow) {
        severed(app, follow);
        endFollow(app, follow);
      }
      const request = findFollowRequest(app.db, a, b);
      if (request) {
        severed(app, request);
        endFollowRequest(app, request);
      }
    }
    if (!findBlock(app.db, source.id, target.id)) {
      const id = app.ids.next();
      // A remote Block keeps its activity id (Undo Block may name it).
      insertBlock(app.db, { id, accountId: source.id, targetAccountId: target.id, uri: via.uri ?? blockUri(app, id), createdAt: app.now() });
      onBlocked(app, findBlock(app.db, source.id, target.id)!);
    } else if (via.uri) {
      updateBlockUri(app.db, source.id, target.id, via.uri);
    }
    deleteNotificationsBetween(app.db, source.id, target.id);
  });
  clearFeeds(app, source, target.id);
  clearFeeds(app, target, source.id);
}

/** POST /api/v1/accounts/:id/unblock. Idempotent. */
export function unblockAccount(app: App, source: Account, target: Account): void {
  inTx(app.db, () => {
    const block = findBlock(app.db, source.id, target.id);
    if (!block) return;
    onUnblocked(app, block);
    deleteBlock(app.db, source.id, target.id);
  });
}

export function listBlocks(app: App, owner: Account, page: KeysetPage): PageRow[] {
  return listBlocksPage(app.db, owner.id, page);
}

/**
 * True when `account` blocks the viewer: the viewer then gets the reduced view of that
 * profile (Mastodon hides it as if unavailable) and never sees it in account lists.
 */
export function blockedViewOf(app: App, viewerId: Id | null, accountId: Id): boolean {
  return viewerId !== null && viewerId !== accountId && isBlocking(app.db, accountId, viewerId);
}

/** Batch form of blockedViewOf for a page of accounts (search, directory, multi-get). */
export function accountsBlockingViewer(app: App, viewerId: Id | null, accountIds: Iterable<Id>): Set<Id> {
  return viewerId === null ? new Set() : blockingViewerAmong(app.db, viewerId, accountIds);
}
