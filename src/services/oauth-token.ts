import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { ApiError } from "../errors.ts";
import { safeEqual, sha256Base64Url, sha256Hex } from "../lib/crypto.ts";
import type { Id } from "../lib/ids.ts";
import { DEFAULT_SCOPES, isKnownScope, parseScopes, scopesSubset } from "../lib/scopes.ts";
import type { Application } from "../storage/applications.ts";
import { consumeGrant, findGrantByCodeHash } from "../storage/grants.ts";
import { deletePushSubscriptionsOfToken } from "../storage/push-subscriptions.ts";
import { findTokenByHash, revokeToken } from "../storage/tokens.ts";
import { deleteWebSessionsOfToken } from "../storage/web-sessions.ts";
import { authenticateClient } from "./oauth-apps.ts";
import { issueToken } from "./tokens.ts";
import { publishTokenKilled } from "./stream-events.ts";

// Doorkeeper's error descriptions for the token and revocation endpoints.
const DESCRIPTIONS = {
  invalid_client: "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
  invalid_grant: "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.",
  invalid_scope: "The requested scope is invalid, unknown, or malformed.",
  unsupported_grant_type: "The authorization grant type is not supported by the authorization server.",
  unauthorized_client: "You are not authorized to revoke this token",
} as const;

/** An OAuth error body `{error, error_description}` with Doorkeeper's WWW-Authenticate header. */
export function oauthError(status: number, error: string, description: string): ApiError {
  const q = (s: string) => s.replace(/["\\]/g, "");
  return new ApiError(status, error, description, undefined, {
    "www-authenticate": `Bearer realm="Doorkeeper", error="${q(error)}", error_description="${q(description)}"`,
  });
}

const missing = (name: string) => oauthError(400, "invalid_request", `Missing required parameter: ${name}.`);
const invalidGrant = () => oauthError(400, "invalid_grant", DESCRIPTIONS.invalid_grant);
const invalidClient = () => oauthError(401, "invalid_client", DESCRIPTIONS.invalid_client);

export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
}

/** RFC 6749 §2.3.1: HTTP Basic with form-urlencoded id and secret; checked before body params. */
export function clientCredentials(authorization: string | null, body: ClientCredentials): ClientCredentials {
  const m = authorization ? /^basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(authorization) : null;
  if (m) {
    const decoded = Buffer.from(m[1], "base64").toString("utf8");
    const i = decoded.indexOf(":");
    if (i > 0) {
      const dec = (s: string) => {
        try {
          return decodeURIComponent(s.replace(/\+/g, " "));
        } catch {
          return s;
        }
      };
      return { clientId: dec(decoded.slice(0, i)), clientSecret: dec(decoded.slice(i + 1)) };
    }
  }
  return body;
}

export interface TokenRequest extends ClientCredentials {
  grantType?: string;
  code?: string;
  redirectUri?: string;
  codeVerifier?: string;
  scope?: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  scope: string;
  created_at: number;
}

// Mastodon's reuse_access_token is not reproduced: only token hashes are stored, so an
// existing token cannot be handed out again. Every exchange issues a new token.
function tokenResponse(app: App, applicationId: Id, userId: Id | null, scopes: string[]): TokenResponse {
  const t = issueToken(app, { userId, applicationId, scopes });
  return { access_token: t.token, token_type: "Bearer", scope: scopes.join(" "), created_at: Math.floor(t.createdAt / 1000) };
}

function authorizationCodeGrant(app: App, client: Application, req: TokenRequest): TokenResponse {
  const grant = req.code && req.code.length <= 200 ? findGrantByCodeHash(app.db, sha256Hex(req.code)) : undefined;
  const now = app.now();
  if (!grant || grant.revokedAt !== null || grant.expiresAt <= now || grant.applicationId !== client.id) throw invalidGrant();
  if (grant.redirectUri !== req.redirectUri) throw invalidGrant();
  if (grant.codeChallenge !== null) {
    if (!req.codeVerifier) throw missing("code_verifier");
    if (!safeEqual(sha256Base64Url(req.codeVerifier), grant.codeChallenge)) throw invalidGrant();
  }
  return tx(app.db, () => {
    // Single use: the first exchange wins, a replay gets invalid_grant.
    if (!consumeGrant(app.db, grant.id, now)) throw invalidGrant();
    return tokenResponse(app, client.id, grant.userId, grant.scopes);
  });
}

function clientCredentialsGrant(app: App, client: Application, req: TokenRequest): TokenResponse {
  const requested = parseScopes(req.scope);
  const scopes = requested.length ? requested : [...DEFAULT_SCOPES];
  if (!scopes.every(isKnownScope) || !scopesSubset(scopes, client.scopes))
    throw oauthError(400, "invalid_scope", DESCRIPTIONS.invalid_scope);
  return tokenResponse(app, client.id, null, scopes);
}

/**
 * POST /oauth/token: authorization_code (with optional PKCE S256) and client_credentials.
 * The password and refresh_token grants do not exist (Mastodon 4.4 removed the former and
 * never issues refresh tokens).
 */
export function exchangeToken(app: App, req: TokenRequest): TokenResponse {
  if (!req.grantType) throw missing("grant_type");
  if (req.grantType === "authorization_code") {
    if (!req.code) throw missing("code");
    if (!req.redirectUri) throw missing("redirect_uri");
    const client = authenticateClient(app, req.clientId, req.clientSecret);
    if (!client) throw invalidClient();
    return authorizationCodeGrant(app, client, req);
  }
  if (req.grantType === "client_credentials") {
    const client = authenticateClient(app, req.clientId, req.clientSecret);
    if (!client) throw invalidClient();
    return clientCredentialsGrant(app, client, req);
  }
  throw oauthError(400, "unsupported_grant_type", DESCRIPTIONS.unsupported_grant_type);
}

/**
 * Revokes an access token and ends what hangs on it: the browser session it backs, its Web
 * Push subscription and its streaming connections.
 */
export function revokeAccessToken(app: App, tokenId: Id): void {
  tx(app.db, () => {
    revokeToken(app.db, tokenId, app.now());
    deleteWebSessionsOfToken(app.db, tokenId);
    deletePushSubscriptionsOfToken(app.db, tokenId);
    publishTokenKilled(app, tokenId);
  });
}

/** POST /oauth/revoke (RFC 7009): idempotent for unknown tokens; only the owning client may revoke. */
export function revokeClientToken(app: App, req: ClientCredentials & { token?: string }): void {
  const client = authenticateClient(app, req.clientId, req.clientSecret);
  if (!client) throw oauthError(403, "unauthorized_client", DESCRIPTIONS.unauthorized_client);
  if (!req.token) throw missing("token");
  const token = req.token.length <= 200 ? findTokenByHash(app.db, sha256Hex(req.token)) : undefined;
  if (!token || token.revokedAt !== null) return;
  if (token.applicationId !== client.id) throw oauthError(403, "unauthorized_client", DESCRIPTIONS.unauthorized_client);
  revokeAccessToken(app, token.id);
}
