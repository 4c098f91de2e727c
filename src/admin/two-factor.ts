import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { ApiError } from "../errors.ts";
import { findUserByAccountId } from "../storage/users.ts";
import { removeTwoFactor, twoFactorState } from "../services/two-factor.ts";
import { type Actor, requireCan, requireOutranks, roleOfUser } from "./actor.ts";
import { audit } from "./audit.ts";
import { findAccountByRef } from "./listing.ts";

/**
 * Turns a user's two-factor authentication off (Mastodon's
 * Admin::TwoFactorAuthenticationsController#destroy: manage_user_access, outranking the user,
 * logged as disable_2fa on the User). Returns false when it was not on.
 */
export function adminDisableTwoFactor(app: App, actor: Actor, ref: string): boolean {
  requireCan(actor, "manage_user_access");
  const account = findAccountByRef(app, ref);
  const user = account.domain === null ? findUserByAccountId(app.db, account.id) : undefined;
  if (!user) throw new ApiError(404, `Not a local user: ${ref}`);
  if (user.id !== actor.user.id) requireOutranks(actor, roleOfUser(app, user));
  if (!twoFactorState(app, user.id).enabled) return false;
  tx(app.db, () => {
    removeTwoFactor(app, user.id);
    audit(app, actor, "disable_2fa", { type: "User", id: user.id, name: account.username });
  });
  return true;
}
