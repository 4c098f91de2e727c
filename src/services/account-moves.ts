import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { ApiError } from "../errors.ts";
import { lastMoveAt, localFollowsOf, recordMove } from "../storage/activity-uris.ts";
import { type Account, findAccountById, updateAccount } from "../storage/accounts.ts";
import { followAccount, unfollowAccount } from "./follows.ts";

// A remote account moved to another one (incoming Move, AP §5.11): it is marked as moved, and
// every local follower follows the new account and leaves the old one, as Mastodon's
// MoveWorker / UnfollowFollowWorker do.

/** A Move is carried out at most once per week per account (Mastodon's move_in_progress lock). */
export const MOVE_INTERVAL_MS = 7 * 24 * 3600_000;

/**
 * Moves `from`'s local followers to `to`. Returns how many followers were moved, or undefined
 * when the account already moved less than a week ago.
 */
export function moveRemoteAccount(app: App, from: Account, to: Account): number | undefined {
  const db = app.db;
  const now = app.now();
  const last = lastMoveAt(db, from.id);
  if (last !== undefined && now - last < MOVE_INTERVAL_MS) return undefined;
  const follows = tx(db, () => {
    updateAccount(db, from.id, { movedToAccountId: to.id, updatedAt: now });
    recordMove(db, from.id, to.id, now);
    return localFollowsOf(db, from.id);
  });
  let moved = 0;
  for (const f of follows) {
    const follower = findAccountById(db, f.accountId);
    if (!follower) continue;
    try {
      // For a remote target this sends a Follow (outbox hook); a locked one answers later.
      followAccount(app, follower, to, { showReblogs: f.showReblogs, notify: f.notify, languages: f.languages });
      moved++;
    } catch (e) {
      // Blocked either way, or the new account is gone: the old follow ends all the same.
      if (!(e instanceof ApiError)) throw e;
      app.log.info("move: follower not carried over", { follower: follower.id, to: to.id, error: e.error });
    }
    unfollowAccount(app, follower, from);
  }
  return moved;
}
