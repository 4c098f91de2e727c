import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { hashPassword, randomToken, sha256Hex } from "../lib/crypto.ts";
import { enqueueMail } from "../mail/queue.ts";
import { resetPasswordMail } from "../mail/messages.ts";
import { findAccountById } from "../storage/accounts.ts";
import { liveTokenIdsOfUser, revokeGrantsOfUser } from "../storage/tokens.ts";
import { clearEmailToken, findUserIdByEmailToken, setEmailToken } from "../storage/user-email-tokens.ts";
import { findUserByEmail, findUserById, updateUser, type User } from "../storage/users.ts";
import { revokeAccessToken } from "./oauth-token.ts";

// Forgotten passwords (Devise's recoverable, Mastodon's Auth::PasswordsController): a mailed
// link valid 6 hours and once; setting the new password ends every session and token of the
// user (session_activations.destroy_all, revoke_access!).

/** Devise's reset_password_within as Mastodon sets it. */
export const RESET_VALID_MS = 6 * 3600_000;
const MIN_PASSWORD = 8;
const MAX_PASSWORD = 72;

/**
 * Mails a reset link to the user with this address, if there is one who may sign in. The
 * caller answers the same either way (Devise's paranoid mode: no probing for addresses).
 */
export function requestPasswordReset(app: App, email: string): void {
  const address = email.trim();
  if (!address || address.length > 320) return;
  const user = findUserByEmail(app.db, address);
  const account = user && findAccountById(app.db, user.accountId);
  if (!user || !account || account.suspendedAt !== null || user.disabled) return;
  const token = randomToken(24);
  tx(app.db, () => {
    setEmailToken(app.db, user.id, "reset_password", sha256Hex(token), app.now());
    enqueueMail(app, resetPasswordMail(app, user.email, account.username, token));
  });
}

/** The user a reset token belongs to while it is valid. */
export function userOfResetToken(app: App, token: string | undefined): User | undefined {
  if (!token || token.length > 200) return undefined;
  const found = findUserIdByEmailToken(app.db, "reset_password", sha256Hex(token));
  if (!found || found.sentAt === null || found.sentAt + RESET_VALID_MS <= app.now()) return undefined;
  return findUserById(app.db, found.userId);
}

export type ResetResult = { ok: true; username: string } | { ok: false; invalidToken: boolean; errors: string[] };

/** Sets the new password and ends every session and token of the user. */
export async function resetPassword(app: App, token: string | undefined, password: string, confirmation: string): Promise<ResetResult> {
  const user = userOfResetToken(app, token);
  if (!user) return { ok: false, invalidToken: true, errors: ["The link to reset your password is invalid or has expired."] };
  const errors: string[] = [];
  if (password.length < MIN_PASSWORD) errors.push(`Password is too short (minimum is ${MIN_PASSWORD} characters)`);
  else if (password.length > MAX_PASSWORD) errors.push(`Password is too long (maximum is ${MAX_PASSWORD} characters)`);
  if (password !== confirmation) errors.push("Password confirmation doesn't match Password");
  if (errors.length) return { ok: false, invalidToken: false, errors };
  const passwordHash = await hashPassword(password);
  const account = findAccountById(app.db, user.accountId);
  const done = tx(app.db, () => {
    // Checked again in the transaction: the same link may have been used meanwhile.
    if (userOfResetToken(app, token)?.id !== user.id) return false;
    const now = app.now();
    updateUser(app.db, user.id, { passwordHash, updatedAt: now });
    clearEmailToken(app.db, user.id, "reset_password");
    for (const id of liveTokenIdsOfUser(app.db, user.id, now)) revokeAccessToken(app, id);
    revokeGrantsOfUser(app.db, user.id, now);
    return true;
  });
  if (!done) return { ok: false, invalidToken: true, errors: ["The link to reset your password is invalid or has expired."] };
  return { ok: true, username: account?.username ?? "" };
}
