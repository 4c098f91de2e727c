import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { hashPassword, randomToken, sha256Hex, verifyPassword } from "../lib/crypto.ts";
import { seal, unseal } from "../lib/sealed-box.ts";
import { type Account, findAccountById } from "../storage/accounts.ts";
import { findTokenById } from "../storage/tokens.ts";
import { type User, findUserById, findUserByLogin, updateUser } from "../storage/users.ts";
import {
  type WebSession,
  deleteWebSession,
  findWebSessionByHash,
  insertWebSession,
  findWebSessionOfUser,
  listWebSessionsBeyond,
  listWebSessionsOfUser,
  touchWebSessionActivity,
} from "../storage/web-sessions.ts";
import { recordUserIp } from "../storage/user-ips.ts";
import { deleteExpiredChallenges, findUserOtp, insertChallenge } from "../storage/two-factor.ts";
import { revokeAccessToken } from "./oauth-token.ts";
import { WEB_APP, ensureBuiltinApp, issueToken } from "./tokens.ts";

/** A logged-in browser: Mastodon's session activation plus its user. */
export interface BrowserSession {
  session: WebSession;
  user: User;
  account: Account;
}

// Mastodon's web sessions get a token of the built-in Web app with these scopes.
const SESSION_SCOPES = ["read", "write", "follow"];
// A session's last activity and address are written at most once a minute (the settings list).
const TOUCH_EVERY_MS = 60_000;
const MAX_INPUT = 1000;
const TOKEN_PURPOSE = "web session token";

export const SIGN_IN_ERRORS = {
  invalid: "Invalid e-mail address or password.",
  unconfirmed: "You have to confirm your e-mail address before continuing.",
  pending: "Your account is still pending approval by the staff of this server.",
  disabled: "Your account has been disabled.",
} as const;

/** Why this user may not use a browser session, or null when they may. */
export function refusal(user: User, account: Account): string | null {
  if (user.disabled || account.suspendedAt !== null) return SIGN_IN_ERRORS.disabled;
  if (user.confirmedAt === null) return SIGN_IN_ERRORS.unconfirmed;
  if (!user.approved) return SIGN_IN_ERRORS.pending;
  return null;
}

/** A hash to verify against when the login is unknown, so both cases take the same time. */
async function dummyHash(app: App): Promise<string> {
  const key = "web-sessions:dummy-hash";
  let h = app.cache.get(key) as Promise<string> | undefined;
  if (!h) app.cache.set(key, (h = hashPassword(randomToken())));
  return h;
}

export type SignInResult =
  | { ok: true; sessionId: string; session: BrowserSession }
  | { ok: false; message: string }
  /** The password was right and the user has two-factor on: `challenge` is the half-finished sign-in's token. */
  | { ok: "two_factor"; challenge: string };

// How long the code step of a half-finished sign-in stays open.
const CHALLENGE_MS = 10 * 60_000;

/**
 * Checks the credentials and opens a session bound to a new Web-app token. Beyond
 * config.maxSessions the user's oldest sessions are ended (and their tokens revoked).
 */
export async function signIn(
  app: App,
  input: { login: string; password: string; userAgent: string | null; ip: string | null },
): Promise<SignInResult> {
  const login = input.login.trim();
  if (!login || !input.password || login.length > MAX_INPUT || input.password.length > MAX_INPUT)
    return { ok: false, message: SIGN_IN_ERRORS.invalid };
  const user = findUserByLogin(app.db, login);
  const good = await verifyPassword(input.password, user?.passwordHash ?? (await dummyHash(app)));
  const account = user && findAccountById(app.db, user.accountId);
  if (!user || !account || !good || !user.passwordHash || account.domain !== null) return { ok: false, message: SIGN_IN_ERRORS.invalid };
  return continueSignIn(app, user, account, input);
}

/**
 * After the password (local or PAM) was right: refused accounts stop here, two-factor users go
 * to the code step, everyone else gets a session.
 */
export function continueSignIn(app: App, user: User, account: Account, input: { userAgent: string | null; ip: string | null }): SignInResult {
  const refused = refusal(user, account);
  if (refused) return { ok: false, message: refused };
  if (findUserOtp(app.db, user.id)?.enabledAt != null) {
    // No session yet (Devise's two-factor step): only a token naming the user, until the code is right.
    const challenge = randomToken();
    const now = app.now();
    deleteExpiredChallenges(app.db, now);
    insertChallenge(app.db, sha256Hex(challenge), { userId: user.id, userAgent: input.userAgent?.slice(0, 512) ?? null, ip: input.ip, expiresAt: now + CHALLENGE_MS });
    return { ok: "two_factor", challenge };
  }
  return { ok: true, ...openSession(app, user, account, input) };
}

/** Opens a browser session for a user whose credentials (and second factor) were checked. */
export function openSession(
  app: App,
  user: User,
  account: Account,
  input: { userAgent: string | null; ip: string | null },
): { sessionId: string; session: BrowserSession } {
  const web = ensureBuiltinApp(app, WEB_APP);
  const sessionId = randomToken();
  const now = app.now();
  const session: WebSession = {
    id: app.ids.next(),
    userId: user.id,
    tokenId: "",
    userAgent: input.userAgent?.slice(0, 512) ?? null,
    ip: input.ip,
    createdAt: now,
    updatedAt: now,
    tokenBox: null,
  };
  tx(app.db, () => {
    const token = issueToken(app, { userId: user.id, applicationId: web.id, scopes: SESSION_SCOPES });
    session.tokenId = token.id;
    // Kept, sealed, for what needs the token itself later: the session's Web Push messages.
    session.tokenBox = seal(app.config.secret, TOKEN_PURPOSE, token.token);
    insertWebSession(app.db, { ...session, sessionHash: sha256Hex(sessionId) });
    updateUser(app.db, user.id, { lastSignInAt: user.currentSignInAt, currentSignInAt: now, updatedAt: now });
    recordUserIp(app.db, user.id, input.ip, now);
  });
  for (const old of listWebSessionsBeyond(app.db, user.id, app.config.maxSessions)) endSession(app, old);
  return { sessionId, session: { session, user, account } };
}

/**
 * The session behind a cookie value. A session whose token was revoked (logout elsewhere,
 * /oauth/revoke, cleanup) is gone: its row is deleted and the browser counts as logged out.
 */
export function currentSession(app: App, rawSessionId: string | undefined, ip: string | null = null): BrowserSession | null {
  if (!rawSessionId || rawSessionId.length > 200) return null;
  const session = findWebSessionByHash(app.db, sha256Hex(rawSessionId));
  if (!session) return null;
  const now = app.now();
  const token = findTokenById(app.db, session.tokenId);
  if (!token || token.revokedAt !== null || (token.expiresAt !== null && token.expiresAt <= now)) {
    deleteWebSession(app.db, session.id);
    return null;
  }
  const user = findUserById(app.db, session.userId);
  const account = user && findAccountById(app.db, user.accountId);
  if (!user || !account || refusal(user, account)) return null;
  if (now - session.updatedAt >= TOUCH_EVERY_MS) {
    touchWebSessionActivity(app.db, session.id, now, ip);
    session.updatedAt = now;
    if (ip !== null) session.ip = ip;
  }
  return { session, user, account };
}

/** The session's access token itself; undefined for a session opened before it was kept. */
export function sessionToken(app: App, session: WebSession): string | undefined {
  return session.tokenBox === null ? undefined : unseal(app.config.secret, TOKEN_PURPOSE, session.tokenBox);
}

/** Ends a session: its token is revoked (which deletes the session row). */
export function endSession(app: App, session: WebSession): void {
  revokeAccessToken(app, session.tokenId);
  deleteWebSession(app.db, session.id);
}

export function signOut(app: App, rawSessionId: string | undefined): void {
  if (!rawSessionId || rawSessionId.length > 200) return;
  const session = findWebSessionByHash(app.db, sha256Hex(rawSessionId));
  if (session) endSession(app, session);
}

/** The user's browser sessions, most recently active first. */
export function listSessions(app: App, user: User): WebSession[] {
  return listWebSessionsOfUser(app.db, user.id);
}

/** Ends one of the user's sessions; false when it is not theirs (or already gone). */
export function revokeSession(app: App, user: User, sessionId: string): boolean {
  if (!/^\d{1,20}$/.test(sessionId)) return false;
  const session = findWebSessionOfUser(app.db, user.id, sessionId);
  if (!session) return false;
  endSession(app, session);
  return true;
}

/** Ends every session of the user but `keep` (Mastodon's clear_other_sessions); returns how many. */
export function revokeOtherSessions(app: App, user: User, keep: WebSession): number {
  const others = listWebSessionsOfUser(app.db, user.id).filter((s) => s.id !== keep.id);
  for (const s of others) endSession(app, s);
  return others.length;
}
