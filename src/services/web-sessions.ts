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
  listWebSessionsBeyond,
  touchWebSession,
} from "../storage/web-sessions.ts";
import { recordUserIp } from "../storage/user-ips.ts";
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
const DAY = 86_400_000;
const MAX_INPUT = 1000;
const TOKEN_PURPOSE = "web session token";

export const SIGN_IN_ERRORS = {
  invalid: "Invalid e-mail address or password.",
  unconfirmed: "You have to confirm your e-mail address before continuing.",
  pending: "Your account is still pending approval by the staff of this server.",
  disabled: "Your account has been disabled.",
} as const;

/** Why this user may not use a browser session, or null when they may. */
function refusal(user: User, account: Account): string | null {
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

export type SignInResult = { ok: true; sessionId: string; session: BrowserSession } | { ok: false; message: string };

/** Checks the credentials and opens a session (openSession). */
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
  return openSession(app, user, account, input);
}

/**
 * Opens a browser session for a user whose identity was proven (password here, an external
 * provider in services/external-auth/), bound to a new Web-app token. Beyond config.maxSessions
 * the user's oldest sessions are ended (and their tokens revoked).
 */
export function openSession(app: App, user: User, account: Account, input: { userAgent: string | null; ip: string | null }): SignInResult {
  const refused = refusal(user, account);
  if (refused) return { ok: false, message: refused };
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
  return { ok: true, sessionId, session: { session, user, account } };
}

/**
 * The session behind a cookie value. A session whose token was revoked (logout elsewhere,
 * /oauth/revoke, cleanup) is gone: its row is deleted and the browser counts as logged out.
 */
export function currentSession(app: App, rawSessionId: string | undefined): BrowserSession | null {
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
  if (now - session.updatedAt > DAY) touchWebSession(app.db, session.id, now);
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
