import type { App } from "../app.ts";
import { stmt } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { findAccountById } from "../storage/accounts.ts";
import { isBlocking, isDomainBlocking, isFollowing } from "../storage/relationship-checks.ts";
import type { Status } from "../storage/statuses.ts";

/**
 * Mastodon's StatusPolicy#show?: public/unlisted to anyone the author does not block (nor
 * whose domain the author blocks); private to the author, accepted followers and mentioned
 * accounts; direct to the author and mentioned accounts; nothing from suspended authors.
 * A status the viewer may not see is answered exactly like a missing one (404).
 */
export function canViewStatus(app: App, viewerAccountId: Id | null, status: Status): boolean {
  if (status.deletedAt !== null) return false;
  const author = findAccountById(app.db, status.accountId);
  if (!author || author.suspendedAt !== null) return false;
  if (viewerAccountId === status.accountId) return true;
  // Only the author's blocks hide a post: a viewer who blocks the author can still open it
  // (Mastodon's StatusPolicy); timelines and threads filter the viewer's own blocks and mutes.
  if (viewerAccountId) {
    if (isBlocking(app.db, status.accountId, viewerAccountId)) return false;
    const viewer = findAccountById(app.db, viewerAccountId);
    if (viewer?.domain && isDomainBlocking(app.db, status.accountId, viewer.domain)) return false;
  }
  if (status.visibility === "public" || status.visibility === "unlisted") return true;
  if (!viewerAccountId) return false;
  if (isMentioned(app, viewerAccountId, status.id)) return true;
  return status.visibility === "private" && isFollowing(app.db, viewerAccountId, status.accountId);
}

function isMentioned(app: App, accountId: Id, statusId: Id): boolean {
  return !!stmt(app.db, "SELECT 1 FROM mentions WHERE status_id = ? AND account_id = ?").get(BigInt(statusId), BigInt(accountId));
}
