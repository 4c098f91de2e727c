import type { App } from "../app.ts";
import { randomToken, sha256Hex } from "../lib/crypto.ts";
import type { Id } from "../lib/ids.ts";
import { DEFAULT_SCOPES, isKnownScope, parseScopes, scopesSubset } from "../lib/scopes.ts";
import type { Application } from "../storage/applications.ts";
import { insertGrant } from "../storage/grants.ts";
import { listLiveTokenScopes } from "../storage/tokens.ts";
import { OOB_URI, findClient } from "./oauth-apps.ts";

// Doorkeeper's wording (config/locales/en.yml of the doorkeeper gem), shown on the error page.
export const OAUTH_DESCRIPTIONS = {
  invalid_request: "The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.",
  invalid_client: "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
  invalid_redirect_uri: "The requested redirect uri is malformed or doesn't match client redirect URI.",
  unsupported_response_type: "The authorization server does not support this response type.",
  unsupported_response_mode: "The authorization server does not support this response mode.",
  invalid_scope: "The requested scope is invalid, unknown, or malformed.",
  invalid_code_challenge_method: "The code_challenge_method must be one of S256.",
  access_denied: "The resource owner or authorization server denied the request.",
} as const;
export type AuthorizeErrorCode = keyof typeof OAUTH_DESCRIPTIONS;

export interface AuthorizeError {
  error: AuthorizeErrorCode;
  description: string;
  /** 401 for client errors, 400 for the rest (Doorkeeper). */
  status: number;
}

export type ResponseMode = "query" | "fragment" | "form_post";

/** A validated authorization request (Doorkeeper's pre-authorization). */
export interface AuthorizeRequest {
  client: Application;
  redirectUri: string;
  responseMode: ResponseMode;
  responseModeGiven: boolean;
  scopes: string[];
  state: string | null;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  forceLogin: boolean;
}

export interface AuthorizeInput {
  clientId?: string;
  redirectUri?: string;
  responseType?: string;
  responseMode?: string;
  scope?: string;
  state?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  forceLogin?: boolean;
}

const GRANT_TTL = 10 * 60_000;
// RFC 7636 §4.2: a base64url S256 challenge is 43 characters; allow the verifier alphabet.
const CHALLENGE_RE = /^[A-Za-z0-9\-._~]{43,128}$/;
const LOOPBACK = new Set(["127.0.0.1", "[::1]"]);

function fail(error: AuthorizeErrorCode, description: string = OAUTH_DESCRIPTIONS[error]): { error: AuthorizeError } {
  return { error: { error, description, status: error === "invalid_client" ? 401 : 400 } };
}

function sameQuery(a: URLSearchParams, b: URLSearchParams): boolean {
  const norm = (q: URLSearchParams) => [...q].map(([k, v]) => `${k}=${v}`).sort().join("&");
  return norm(a) === norm(b);
}

/**
 * Doorkeeper's URIChecker: exact match, or the same URI where the request adds query
 * parameters to a registered URI without any, or (RFC 8252 §7.3) a loopback IP redirect on
 * another port.
 */
export function redirectUriMatches(requested: string, registered: string): boolean {
  if (requested === registered) return true;
  if (requested === OOB_URI || registered === OOB_URI) return false;
  let req: URL, reg: URL;
  try {
    req = new URL(requested);
    reg = new URL(registered);
  } catch {
    return false;
  }
  if (reg.search !== "" && !sameQuery(req.searchParams, reg.searchParams)) return false;
  req.search = "";
  reg.search = "";
  if (LOOPBACK.has(req.hostname) && LOOPBACK.has(reg.hostname) && req.protocol === "http:" && reg.protocol === "http:") {
    req.port = "";
    reg.port = "";
  }
  return req.href === reg.href;
}

/** Validates /oauth/authorize parameters in Doorkeeper's order. */
export function validateAuthorizeRequest(app: App, input: AuthorizeInput): { request: AuthorizeRequest } | { error: AuthorizeError } {
  if (!input.clientId) return fail("invalid_request", "Missing required parameter: client_id.");
  const client = findClient(app, input.clientId);
  if (!client) return fail("invalid_client");
  if (!input.redirectUri) return fail("invalid_request", "Missing required parameter: redirect_uri.");
  const redirectUri = input.redirectUri;
  if (!client.redirectUris.some((u) => redirectUriMatches(redirectUri, u))) return fail("invalid_redirect_uri");
  if (!input.responseType) return fail("invalid_request", "Missing required parameter: response_type.");
  if (input.responseType !== "code") return fail("unsupported_response_type");
  const mode = input.responseMode || "query";
  if (mode !== "query" && mode !== "fragment" && mode !== "form_post") return fail("unsupported_response_mode");
  const requested = parseScopes(input.scope);
  const scopes = requested.length ? requested : [...DEFAULT_SCOPES];
  if (!scopes.every(isKnownScope) || !scopesSubset(scopes, client.scopes)) return fail("invalid_scope");
  const challenge = input.codeChallenge || null;
  const method = input.codeChallengeMethod || null;
  if (challenge !== null) {
    // A challenge without a method would be "plain", which Mastodon does not allow.
    if (method !== "S256") return fail("invalid_code_challenge_method");
    if (!CHALLENGE_RE.test(challenge)) return fail("invalid_request");
  }
  return {
    request: {
      client,
      redirectUri,
      responseMode: mode,
      responseModeGiven: !!input.responseMode,
      scopes,
      state: input.state ?? null,
      codeChallenge: challenge,
      codeChallengeMethod: challenge ? method : null,
      forceLogin: input.forceLogin === true,
    },
  };
}

/**
 * Consent is skipped for the built-in superapps and when the user already holds a live token
 * of this app with exactly the same scopes, unless the client asked for force_login.
 */
export function canSkipConsent(app: App, req: AuthorizeRequest, userId: Id): boolean {
  if (req.forceLogin) return false;
  if (req.client.superapp) return true;
  const want = [...req.scopes].sort().join(" ");
  return listLiveTokenScopes(app.db, userId, req.client.id, app.now()).some((s) => [...s].sort().join(" ") === want);
}

/** What the browser is sent after Authorize or Deny. */
export type AuthorizeOutcome =
  | { kind: "redirect"; location: string }
  | { kind: "form_post"; action: string; fields: Record<string, string> }
  | { kind: "oob_code"; code: string }
  | { kind: "oob_error"; body: { error: string; error_description: string } };

function deliver(req: AuthorizeRequest, fields: Record<string, string>): AuthorizeOutcome {
  if (req.state !== null) fields.state = req.state;
  if (req.responseMode === "form_post") return { kind: "form_post", action: req.redirectUri, fields };
  const encoded = new URLSearchParams(fields).toString();
  if (req.responseMode === "fragment") return { kind: "redirect", location: `${req.redirectUri}#${encoded}` };
  // Appended to any query the registered URI already has.
  const u = req.redirectUri;
  const sep = !u.includes("?") ? "?" : u.endsWith("?") || u.endsWith("&") ? "" : "&";
  return { kind: "redirect", location: u + sep + encoded };
}

/** Authorize: a single-use code valid 10 minutes, bound to client, user, redirect URI, scopes and PKCE. */
export function approveAuthorization(app: App, req: AuthorizeRequest, userId: Id): AuthorizeOutcome {
  const code = randomToken();
  const now = app.now();
  insertGrant(app.db, {
    id: app.ids.next(),
    applicationId: req.client.id,
    userId,
    codeHash: sha256Hex(code),
    redirectUri: req.redirectUri,
    scopes: req.scopes,
    codeChallenge: req.codeChallenge,
    codeChallengeMethod: req.codeChallengeMethod,
    expiresAt: now + GRANT_TTL,
    revokedAt: null,
    createdAt: now,
  });
  if (req.redirectUri === OOB_URI) return { kind: "oob_code", code };
  return deliver(req, { code });
}

/** Deny: access_denied back to the client (a JSON body for out-of-band clients, as Doorkeeper). */
export function denyAuthorization(req: AuthorizeRequest): AuthorizeOutcome {
  const body = { error: "access_denied", error_description: OAUTH_DESCRIPTIONS.access_denied };
  if (req.redirectUri === OOB_URI) return { kind: "oob_error", body };
  return deliver(req, { ...body });
}
