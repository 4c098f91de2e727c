// Signing in with an identity proven by an external provider (CAS, SAML, OIDC, PAM): Mastodon's
// User::Omniauthable.find_for_omniauth. The identity's user, else (when configured) an existing
// user taken over by verified e-mail or username, else a new user; then the same browser
// session as a password sign-in.
import type { App } from "../../app.ts";
import { ApiError } from "../../errors.ts";
import { findAccountByHandle, findAccountById } from "../../storage/accounts.ts";
import { findIdentity, insertIdentity, userHasIdentityAt } from "../../storage/identities.ts";
import { type User, findUserByAccountId, findUserByEmail, findUserById } from "../../storage/users.ts";
import { createUser } from "../users.ts";
import { type SignInResult, openSession, refusal } from "../web-sessions.ts";

/** What a provider vouches for. `uid` is stable per provider; the rest may change. */
export interface ExternalIdentity {
  provider: "cas" | "saml" | "openid_connect" | "pam";
  uid: string;
  email: string | null;
  emailVerified: boolean;
  displayName: string | null;
  /** The username a new account takes (PAM: the PAM name); otherwise made from `uid`. */
  username?: string;
}

export const EXTERNAL_ERRORS = {
  noEmail: "Your sign-in provider did not give a verified e-mail address, so no account can be created. Please contact the staff of this server.",
  emailTaken: "An account with this e-mail address already exists here. Sign in with your password instead.",
  badUid: "Your sign-in provider did not identify you.",
} as const;

const MAX_UID = 255;

/** Mastodon's ensure_valid_username: the part before any @, letters, digits and _ only, 30 at most. */
export function usernameFromUid(uid: string): string {
  return uid.split("@")[0].replace(/[^a-z0-9_]+/gi, "").slice(0, 30);
}

function uniqueUsername(app: App, start: string): string {
  let name = start || "user";
  for (let i = 1; findAccountByHandle(app.db, name, null); i++) name = `${start || "user"}_${i}`.slice(-30);
  return name;
}

function reattachable(app: App, who: ExternalIdentity): User | undefined {
  const mode = app.config.externalAuthReattach;
  let user: User | undefined;
  if (mode === "email" && who.email && who.emailVerified) user = findUserByEmail(app.db, who.email);
  if (mode === "username") {
    const account = findAccountByHandle(app.db, who.uid, null);
    user = account && findUserByAccountId(app.db, account.id);
  }
  if (!user || userHasIdentityAt(app.db, user.id, who.provider)) return undefined;
  return user;
}

/** The user this identity signs in as (found, taken over or created), or why there is none. */
export async function userForExternal(app: App, who: ExternalIdentity): Promise<User | string> {
  const known = findIdentity(app.db, who.provider, who.uid);
  if (known) return findUserById(app.db, known.userId) ?? EXTERNAL_ERRORS.badUid;
  const bind = (userId: string) => insertIdentity(app.db, { id: app.ids.next(), provider: who.provider, uid: who.uid, userId, createdAt: app.now() });
  const existing = reattachable(app, who);
  if (existing) {
    bind(existing.id);
    return existing;
  }
  // Mastodon makes a placeholder address and asks for a real one on the next page; roost has no
  // such page yet, so it needs the provider's verified address to create an account.
  if (!who.email || !who.emailVerified) return EXTERNAL_ERRORS.noEmail;
  if (findUserByEmail(app.db, who.email)) return EXTERNAL_ERRORS.emailTaken;
  try {
    // External accounts are approved whatever the registrations mode (Mastodon's set_approved:
    // `open_registrations? || valid_invitation? || external?`): the provider is the gate.
    const { user } = await createUser(app, {
      username: uniqueUsername(app, who.username ?? usernameFromUid(who.uid)),
      email: who.email,
      password: null,
      confirmed: true,
      approved: true,
      displayName: (who.displayName ?? "").slice(0, 30),
      inTx: ({ userId }) => bind(userId),
    });
    return user;
  } catch (e) {
    // A concurrent sign-in of the same identity created it first.
    const again = findIdentity(app.db, who.provider, who.uid);
    if (again) return findUserById(app.db, again.userId) ?? EXTERNAL_ERRORS.badUid;
    if (e instanceof ApiError && e.status === 422) return EXTERNAL_ERRORS.emailTaken;
    throw e;
  }
}

export async function signInExternal(app: App, who: ExternalIdentity, client: { userAgent: string | null; ip: string | null }): Promise<Exclude<SignInResult, { ok: "two_factor" }>> {
  if (!who.uid || who.uid.length > MAX_UID) return { ok: false, message: EXTERNAL_ERRORS.badUid };
  const user = await userForExternal(app, who);
  if (typeof user === "string") return { ok: false, message: user };
  const account = findAccountById(app.db, user.accountId);
  if (!account) return { ok: false, message: EXTERNAL_ERRORS.badUid };
  const refused = refusal(user, account);
  if (refused) return { ok: false, message: refused };
  // The provider proved who this is: no second factor here (Mastodon's omniauth sign-in skips it too).
  return { ok: true, ...openSession(app, user, account, client) };
}
