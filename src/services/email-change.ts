import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { randomToken, sha256Hex, verifyPassword } from "../lib/crypto.ts";
import { EMAIL_RE } from "../lib/validation.ts";
import { enqueueMail } from "../mail/queue.ts";
import { reconfirmationMail } from "../mail/messages.ts";
import type { Account } from "../storage/accounts.ts";
import { setEmailToken } from "../storage/user-email-tokens.ts";
import { type User, findUnconfirmedEmail, findUserByEmail, setUnconfirmedEmail, updateUser } from "../storage/users.ts";
import { emailBlockVerdict } from "./email-address-blocks.ts";

// Settings → Account → change e-mail (Devise's reconfirmable, as Mastodon uses it): the current
// password is required; the new address is kept as unconfirmed_email and a confirmation link is
// mailed to it; the account's address changes only when that link is followed (applyPendingEmail).

const MAX_INPUT = 1000;

export type EmailChangeResult = { ok: true } | { ok: false; errors: string[] };

export async function requestEmailChange(
  app: App,
  user: User,
  account: Account,
  input: { email: string; currentPassword: string },
): Promise<EmailChangeResult> {
  const errors: string[] = [];
  const good = input.currentPassword.length <= MAX_INPUT && (await verifyPassword(input.currentPassword, user.passwordHash));
  if (!good) errors.push("Current password is invalid");
  const email = input.email.trim();
  if (email === "") errors.push("E-mail can't be blank");
  else if (email.length > 255 || !EMAIL_RE.test(email)) errors.push("E-mail is invalid");
  else if (email.toLowerCase() === user.email.toLowerCase()) errors.push("E-mail is the current address");
  else if (findUserByEmail(app.db, email)) errors.push("E-mail has already been taken");
  else {
    // The sign-up's checks; an allow_with_approval block only holds sign-ups. A blocked
    // address reads as taken, as at sign-up.
    const verdict = await emailBlockVerdict(app, email, null);
    if (verdict === "blocked") errors.push("E-mail uses a disallowed e-mail provider");
    else if (verdict === "canonical") errors.push("E-mail has already been taken");
  }
  if (errors.length) return { ok: false, errors };
  const token = randomToken(24);
  tx(app.db, () => {
    setUnconfirmedEmail(app.db, user.id, email);
    setEmailToken(app.db, user.id, "confirmation", sha256Hex(token), app.now());
    enqueueMail(app, reconfirmationMail(app, email, account.username, token));
  });
  return { ok: true };
}

export function pendingEmail(app: App, user: User): string | null {
  return findUnconfirmedEmail(app.db, user.id);
}

/**
 * Called when a confirmation link is followed, in its transaction: a pending address becomes the
 * account's (unless another account took it meanwhile, then the change is dropped).
 */
export function applyPendingEmail(app: App, user: User): void {
  const pending = findUnconfirmedEmail(app.db, user.id);
  if (pending === null) return;
  setUnconfirmedEmail(app.db, user.id, null);
  const other = findUserByEmail(app.db, pending);
  if (other && other.id !== user.id) return;
  updateUser(app.db, user.id, { email: pending, updatedAt: app.now() });
}
