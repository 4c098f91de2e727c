import type { App } from "../app.ts";
import { unprocessable } from "../errors.ts";
import type { Account } from "../storage/accounts.ts";
import { deleteAccountPin, insertAccountPin, listAccountPinsPage } from "../storage/account-pins.ts";
import type { KeysetPage, PageRow } from "../storage/relationship-pages.ts";
import { isFollowing } from "../storage/relationship-checks.ts";

// Endorsements (account pins): accounts featured on a profile. Only followed accounts can be
// endorsed (Mastodon's AccountPin validation); ending the follow removes the endorsement.

/** POST /api/v1/accounts/:id/endorse (and legacy /pin). Idempotent. */
export function endorseAccount(app: App, owner: Account, target: Account): void {
  if (!isFollowing(app.db, owner.id, target.id)) {
    throw unprocessable("Validation failed: You must be already following the person you want to endorse");
  }
  insertAccountPin(app.db, { id: app.ids.next(), accountId: owner.id, targetAccountId: target.id, createdAt: app.now() });
}

/** POST /api/v1/accounts/:id/unendorse (and legacy /unpin). Idempotent. */
export function unendorseAccount(app: App, owner: Account, target: Account): void {
  deleteAccountPin(app.db, owner.id, target.id);
}

/** Accounts `owner` endorses, newest first; none for a suspended owner. */
export function listEndorsements(app: App, owner: Account, page: KeysetPage): PageRow[] {
  if (owner.suspendedAt !== null) return [];
  return listAccountPinsPage(app.db, owner.id, page);
}
