import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { hashPassword, verifyPassword } from "../lib/crypto.ts";
import { type User, findUserById, updateUser } from "../storage/users.ts";
import type { WebSession } from "../storage/web-sessions.ts";
import { revokeOtherSessions } from "./web-sessions.ts";

// Settings → Account → change password (Mastodon's Auth::RegistrationsController#update): the
// current password is required; on success every other browser session ends with its token
// (User#clear_other_sessions). Tokens of other apps stay, as in Mastodon.

const MIN_PASSWORD = 8;
const MAX_PASSWORD = 72;
const MAX_INPUT = 1000;

export type PasswordChangeResult = { ok: true; endedSessions: number } | { ok: false; errors: string[] };

export async function changePassword(
  app: App,
  user: User,
  current: WebSession,
  input: { currentPassword: string; password: string; confirmation: string },
): Promise<PasswordChangeResult> {
  const errors: string[] = [];
  const good = input.currentPassword.length <= MAX_INPUT && (await verifyPassword(input.currentPassword, user.passwordHash));
  if (!good) errors.push("Current password is invalid");
  if (input.password.length < MIN_PASSWORD) errors.push(`Password is too short (minimum is ${MIN_PASSWORD} characters)`);
  else if (input.password.length > MAX_PASSWORD) errors.push(`Password is too long (maximum is ${MAX_PASSWORD} characters)`);
  if (input.password !== input.confirmation) errors.push("Password confirmation doesn't match Password");
  if (errors.length) return { ok: false, errors };
  const passwordHash = await hashPassword(input.password);
  const ended = tx(app.db, () => {
    const fresh = findUserById(app.db, user.id);
    if (!fresh) return 0;
    updateUser(app.db, user.id, { passwordHash, updatedAt: app.now() });
    return revokeOtherSessions(app, fresh, current);
  });
  return { ok: true, endedSessions: ended };
}
