import type { H3Event } from "h3";
import type { App } from "../app.ts";
import { ApiError } from "../errors.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { scopesSatisfy } from "../lib/scopes.ts";
import type { Account, Token, User } from "../services/domain-types.ts";
import { findTokenOwnerCached } from "../services/token-cache.ts";
import { noteTokenUse } from "../services/tokens.ts";
import type { Params } from "./params.ts";

export interface Viewer {
  token: Token;
  user: User;
  account: Account;
}
export interface AppViewer {
  token: Token;
  user: User | null;
  account: Account | null;
}

const INVALID = "The access token is invalid";

function unauthorized(message = INVALID): ApiError {
  const kind = message === INVALID ? "invalid" : message.includes("revoked") ? "revoked" : "expired";
  return new ApiError(401, message, undefined, undefined, {
    "www-authenticate": `Bearer realm="Doorkeeper", error="invalid_token", error_description="The access token is ${kind}"`,
  });
}

/**
 * The bearer token of a request: Authorization header, else access_token/bearer_token params,
 * else (WebSocket upgrades only) the first Sec-WebSocket-Protocol value, where browsers put it.
 */
export function bearerToken(event: H3Event): string | undefined {
  const h = event.req.headers.get("authorization");
  if (h) {
    const m = /^bearer\s+(\S+)\s*$/i.exec(h);
    if (m) return m[1];
  }
  const q = event.url.searchParams;
  const fromQuery = q.get("access_token") ?? q.get("bearer_token");
  if (fromQuery) return fromQuery;
  if (isWebSocketUpgrade(event)) {
    const offered = firstSubprotocol(event);
    if (offered) return offered;
  }
  // Body params count only when the route has already read them (never forces a body read).
  const p = (event.context as { apiParams?: Params }).apiParams;
  return p?.str("access_token") ?? p?.str("bearer_token") ?? undefined;
}

export function isWebSocketUpgrade(event: H3Event): boolean {
  return event.req.headers.get("upgrade")?.toLowerCase() === "websocket";
}

/** The first sub-protocol a WebSocket client offered (`new WebSocket(url, token)`). */
export function firstSubprotocol(event: H3Event): string | undefined {
  const v = event.req.headers.get("sec-websocket-protocol")?.split(",")[0]?.trim();
  return v || undefined;
}

type Resolved =
  | { kind: "none" }
  | { kind: "unknown" }
  | { kind: "dead"; message: string }
  | { kind: "ok"; viewer: AppViewer };

/** The account of the request's token, when a route resolved a valid one (for the access log). */
export function authenticatedAccountId(event: H3Event): Account["id"] | undefined {
  const auth = (event.context as { auth?: Resolved }).auth;
  return auth?.kind === "ok" ? auth.viewer.account?.id : undefined;
}

/** Resolves the request's token once and memoises it on the event. */
function resolve(app: App, event: H3Event): Resolved {
  const ctx = event.context as { auth?: Resolved };
  if (ctx.auth) return ctx.auth;
  const raw = bearerToken(event);
  const now = app.now();
  const res: Resolved = raw ? lookup(app, sha256Hex(raw), now) : { kind: "none" };
  if (res.kind === "ok") noteTokenUse(app, res.viewer.token, res.viewer.user, now, clientIp(event));
  ctx.auth = res;
  return res;
}

function lookup(app: App, tokenHash: string, now: number): Resolved {
  const found = findTokenOwnerCached(app, tokenHash);
  if (!found) return { kind: "unknown" };
  const { token, user, account } = found;
  if (token.revokedAt !== null) return { kind: "dead", message: "The access token was revoked" };
  if (token.expiresAt !== null && token.expiresAt <= now) return { kind: "dead", message: "The access token expired" };
  if (token.userId && (!user || !account)) return { kind: "unknown" };
  return { kind: "ok", viewer: { token, user, account } };
}

export function clientIp(event: H3Event): string | null {
  const ip = (event.req as { ip?: string }).ip;
  return typeof ip === "string" ? ip : null;
}

// Mastodon's order: a suspended account first (require_not_suspended!, every endpoint), then
// require_user!'s ladder: unconfirmed, pending approval, anything else not functional.
function checkUserState(user: User, account: Account): void {
  if (account.suspendedAt !== null) throw new ApiError(403, "Your login is currently disabled");
  if (user.confirmedAt === null) throw new ApiError(403, "Your login is missing a confirmed e-mail address");
  if (!user.approved) throw new ApiError(403, "Your login is currently pending approval");
  if (user.disabled || account.memorial || account.movedToAccountId) throw new ApiError(403, "Your login is currently disabled");
}

/**
 * An endpoint that needs a user token with any one of `scopes`. 401 without a valid token,
 * 403 when no scope matches, 422 for an app token.
 */
export function requireUser(app: App, event: H3Event, ...scopes: string[]): Viewer {
  const r = resolve(app, event);
  if (r.kind === "none" || r.kind === "unknown") throw unauthorized();
  if (r.kind === "dead") throw unauthorized(r.message);
  const { token, user, account } = r.viewer;
  if (scopes.length && !scopesSatisfy(token.scopes, scopes))
    throw new ApiError(403, "This action is outside the authorized scopes");
  if (!user || !account) throw new ApiError(422, "This method requires an authenticated user");
  checkUserState(user, account);
  return { token, user, account };
}

/**
 * The streaming API's authentication (streaming.md §2): a user token of a functional user.
 * Failures use Mastodon's streaming wording, all 401: "Missing access token", "Invalid
 * access token" (unknown, revoked, expired, an app token, a user who may not log in).
 */
export function requireStreamingUser(app: App, event: H3Event): Viewer {
  const r = resolve(app, event);
  if (r.kind === "none") throw new ApiError(401, "Missing access token");
  if (r.kind !== "ok" || !r.viewer.user || !r.viewer.account) throw new ApiError(401, "Invalid access token");
  const { token, user, account } = r.viewer;
  try {
    checkUserState(user, account);
  } catch {
    throw new ApiError(401, "Invalid access token");
  }
  return { token, user, account };
}

/** Any valid token of an app, with or without a user (apps/verify_credentials, registration). */
export function requireToken(app: App, event: H3Event, ...scopes: string[]): AppViewer {
  const r = resolve(app, event);
  if (r.kind === "none" || r.kind === "unknown") throw unauthorized();
  if (r.kind === "dead") throw unauthorized(r.message);
  if (scopes.length && !scopesSatisfy(r.viewer.token.scopes, scopes))
    throw new ApiError(403, "This action is outside the authorized scopes");
  if (r.viewer.account?.suspendedAt) throw new ApiError(403, "Your login is currently disabled");
  return r.viewer;
}

/**
 * A public endpoint: anonymous callers are welcome (unless the instance requires a login);
 * an unknown token string counts as anonymous, a revoked one is refused, and a token without
 * any of `scopes` gets 403. Returns the viewer when a user token was sent.
 */
export function optionalUser(app: App, event: H3Event, ...scopes: string[]): Viewer | null {
  const r = resolve(app, event);
  if (r.kind === "dead") throw unauthorized(r.message);
  if (r.kind === "none" || r.kind === "unknown") {
    if (!app.config.publicApi) throw new ApiError(401, "This method requires an authenticated user");
    return null;
  }
  const { token, user, account } = r.viewer;
  if (scopes.length && !scopesSatisfy(token.scopes, scopes))
    throw new ApiError(403, "This action is outside the authorized scopes");
  if (!user || !account) return null;
  checkUserState(user, account);
  return { token, user, account };
}

/**
 * The user behind an admin endpoint (Mastodon's `authorize_if_got_token!` then a policy): a
 * request without any token is refused with 403 like any caller without the permission, not
 * 401; a bad token is still 401 and a token without any of `scopes` 403.
 */
export function requireStaffToken(app: App, event: H3Event, ...scopes: string[]): Viewer {
  const r = resolve(app, event);
  if (r.kind === "none") throw new ApiError(403, "This action is not allowed");
  if (r.kind === "unknown") throw unauthorized();
  if (r.kind === "dead") throw unauthorized(r.message);
  const { token, user, account } = r.viewer;
  if (scopes.length && !scopesSatisfy(token.scopes, scopes)) throw new ApiError(403, "This action is outside the authorized scopes");
  if (!user || !account) throw new ApiError(403, "This action is not allowed");
  checkUserState(user, account);
  return { token, user, account };
}
