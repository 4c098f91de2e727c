import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { ApiError } from "../errors.ts";
import { lastMoveAt, localFollowsOf, recordMove } from "../storage/activity-uris.ts";
import { type Account, findAccountById, updateAccount } from "../storage/accounts.ts";
import { followAccount, unfollowAccount } from "./follows.ts";
import { blockAccount } from "./blocks.ts";
import { muteAccount } from "./mutes.ts";
import { upsertAccountNote } from "../storage/account-notes.ts";
import { hasAccountNote, localBlockersOf, localMutesOf, localNotesOn } from "../storage/move-carry-over.ts";
import { isBlocking } from "../storage/relationship-checks.ts";

// A remote account moved to another one (incoming Move, AP §5.11): it is marked as moved, and
// every local follower follows the new account and leaves the old one, as Mastodon's
// MoveWorker / UnfollowFollowWorker do; local blocks, mutes and private notes about the old
// account carry over to the new one.

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
  return carryOverFollowers(app, from, to, follows);
}

/**
 * Mastodon's MoveWorker, for a remote or a local account that moved: each local follower of
 * `from` follows `to` and leaves `from`; blocks, mutes and notes carry over. Returns how many
 * followers now follow `to`.
 */
export function carryOverFollowers(app: App, from: Account, to: Account, follows = localFollowsOf(app.db, from.id)): number {
  const db = app.db;
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
  carryOver(app, from, to);
  return moved;
}

/** Mastodon's MoveWorker#carry_blocks_over!, #carry_mutes_over!, #copy_account_notes!. */
function carryOver(app: App, from: Account, to: Account): void {
  const db = app.db;
  const now = app.now();
  for (const blockerId of localBlockersOf(db, from.id)) {
    const blocker = findAccountById(db, blockerId);
    if (blocker && !isBlocking(db, blocker.id, to.id)) blockAccount(app, blocker, to);
  }
  for (const m of localMutesOf(db, from.id, now)) {
    const muter = findAccountById(db, m.accountId);
    // The rest of a timed mute, in seconds (0: indefinite).
    const duration = m.expiresAt === null ? 0 : Math.max(1, Math.ceil((m.expiresAt - now) / 1000));
    if (muter) muteAccount(app, muter, to, { notifications: m.hideNotifications, duration });
  }
  const acct = `@${from.username}@${from.domain}`;
  tx(db, () => {
    for (const n of localNotesOn(db, from.id)) {
      if (hasAccountNote(db, n.accountId, to.id)) continue;
      upsertAccountNote(db, n.accountId, to.id, `This user moved from ${acct}:\n${n.comment}`, now);
    }
  });
}
