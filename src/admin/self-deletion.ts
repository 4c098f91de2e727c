import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { ApiError } from "../errors.ts";
import { verifyPassword } from "../lib/crypto.ts";
import { type Account, findAccountById, updateAccount } from "../storage/accounts.ts";
import { deleteAuthorFromAllFeeds, insertDeletionRequest } from "../storage/account-moderation.ts";
import type { User } from "../storage/users.ts";
import { enqueueAccountPurge } from "./account-purge.ts";

// A user deletes their own account (Mastodon's Settings::DeletesController): with the password,
// the account is suspended at once (signed out everywhere: a suspended account's tokens no longer
// work) and the `account.purge` job sends Delete(actor) to every known inbox, then removes the
// content in batches. The account row stays, emptied, so the username is never given out again.
// Here rather than in services/ because it shares the moderators' purge.

export async function deleteOwnAccount(app: App, user: User, account: Account, password: string): Promise<void> {
  if (!(await verifyPassword(password.slice(0, 1000), user.passwordHash))) throw new ApiError(422, "Current password is invalid");
  const current = findAccountById(app.db, account.id);
  if (!current || current.suspendedAt !== null) throw new ApiError(422, "This account is already being deleted");
  const now = app.now();
  tx(app.db, () => {
    updateAccount(app.db, account.id, { suspendedAt: now, suspensionOrigin: "local", updatedAt: now });
    // Marks it as awaiting deletion (purgeRest removes the mark at the end).
    insertDeletionRequest(app.db, account.id, now);
    deleteAuthorFromAllFeeds(app.db, account.id);
    enqueueAccountPurge(app, account.id, null);
  });
}
