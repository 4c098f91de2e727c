import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { ApiError } from "../errors.ts";
import { randomToken, sha256Hex } from "../lib/crypto.ts";
import { EMAIL_RE, Validation } from "../lib/validation.ts";
import { enqueueMail } from "../mail/queue.ts";
import { confirmationMail } from "../mail/messages.ts";
import type { Account } from "../storage/accounts.ts";
import { findAccountById } from "../storage/accounts.ts";
import { clearEmailToken, findUserIdByEmailToken, setEmailToken } from "../storage/user-email-tokens.ts";
import { findUserByEmail, findUserById, updateUser, type User } from "../storage/users.ts";
import { emailBlockVerdict } from "./email-address-blocks.ts";
import { confirmUser } from "./users.ts";
import { applyPendingEmail } from "./email-change.ts";

// Confirming the e-mail address of a sign-up (Devise's confirmable as Mastodon uses it): the
// sign-up mails a link, GET /auth/confirmation?confirmation_token= confirms, and the signing-up
// app may ask for another mail (POST /api/v1/emails/confirmations), optionally to a corrected
// address, until the address is confirmed.

/** How long a confirmation link works (roost's choice; a new mail replaces the old link). */
export const CONFIRMATION_VALID_MS = 7 * 24 * 3600_000;

/** New token, stored hashed, and its mail queued. Synchronous: runs in the caller's tx (or its own). */
export function sendConfirmation(app: App, user: Pick<User, "id" | "email">, username: string): void {
  const token = randomToken(24);
  tx(app.db, () => {
    setEmailToken(app.db, user.id, "confirmation", sha256Hex(token), app.now());
    enqueueMail(app, confirmationMail(app, user.email, username, token));
  });
}

/**
 * The confirmation link. Returns the confirmed user's username, or undefined for an unknown,
 * used or expired token (confirmUser then announces the account, see there).
 */
export function confirmByToken(app: App, token: string | undefined): { username: string } | undefined {
  if (!token || token.length > 200) return undefined;
  const found = findUserIdByEmailToken(app.db, "confirmation", sha256Hex(token));
  if (!found || found.sentAt === null || found.sentAt + CONFIRMATION_VALID_MS <= app.now()) return undefined;
  const user = findUserById(app.db, found.userId);
  const account = user && findAccountById(app.db, user.accountId);
  if (!user || !account) return undefined;
  tx(app.db, () => {
    clearEmailToken(app.db, user.id, "confirmation");
    applyPendingEmail(app, user);
    confirmUser(app, account.username);
  });
  return { username: account.username };
}

/**
 * POST /api/v1/emails/confirmations (Api::V1::Emails::ConfirmationsController#create): only
 * the app the user signed up with, only while the address is unconfirmed; `email` corrects the
 * address first (checked like a sign-up's).
 */
export async function resendConfirmation(app: App, viewer: { applicationId: string | null; user: User | null; account: Account | null }, email: string | undefined): Promise<void> {
  const { user, account } = viewer;
  if (!user || !account || user.createdByAppId === null || user.createdByAppId !== viewer.applicationId)
    throw new ApiError(403, "This method is only available to the application the user originally signed-up with");
  if (user.confirmedAt !== null) throw new ApiError(403, "This method is only available while the e-mail is awaiting confirmation");
  let address = user.email;
  if (email !== undefined) {
    const v = new Validation();
    const e = email.trim();
    if (e === "") v.add("email", "ERR_BLANK", "can't be blank");
    else if (e.length > 255 || !EMAIL_RE.test(e)) v.add("email", "ERR_INVALID", "is invalid");
    else {
      const other = findUserByEmail(app.db, e);
      if (other && other.id !== user.id) v.add("email", "ERR_TAKEN", "has already been taken");
      else {
        const verdict = await emailBlockVerdict(app, e, null);
        if (verdict === "blocked") v.add("email", "ERR_BLOCKED", "uses a disallowed e-mail provider");
        else if (verdict === "canonical") v.add("email", "ERR_TAKEN", "has already been taken");
      }
    }
    v.throwIfAny();
    address = e;
  }
  tx(app.db, () => {
    if (address !== user.email) updateUser(app.db, user.id, { email: address, updatedAt: app.now() });
    sendConfirmation(app, { id: user.id, email: address }, account.username);
  });
}
