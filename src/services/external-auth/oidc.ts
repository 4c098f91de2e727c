// OpenID Connect sign-in (authorization code flow with PKCE, state and nonce) through
// oauth4webapi, the OAuth client library roost already ships: it checks the issuer, the ID
// token's signature, audience, expiry and nonce, so none of that is written here.
import * as oauth from "oauth4webapi";
import type { App } from "../../app.ts";
import type { ExternalIdentity } from "./identities.ts";

export const OIDC_ERRORS = {
  unreachable: "The sign-in provider could not be reached. Please try again later.",
  refused: "The sign-in provider did not confirm who you are. Please sign in again.",
  denied: "The sign-in was cancelled at the provider.",
} as const;

const DISCOVERY_TTL_MS = 3600_000;

export function oidcEnabled(app: App): boolean {
  return app.config.oidcIssuer !== "" && app.config.oidcClientId !== "";
}

/** Mastodon's callback path (OIDC_REDIRECT_URI is https://<domain>/auth/auth/openid_connect/callback). */
export function oidcRedirectUri(app: App): string {
  return `${app.baseUrl}/auth/auth/openid_connect/callback`;
}

function options(app: App): { [oauth.allowInsecureRequests]?: boolean; signal: AbortSignal } {
  // http issuers only where the operator allowed private addresses (tests, local set-ups).
  return { [oauth.allowInsecureRequests]: app.config.allowPrivateAddresses, signal: AbortSignal.timeout(10_000) };
}

async function server(app: App): Promise<oauth.AuthorizationServer> {
  const key = "oidc:discovery";
  const hit = app.cache.get(key) as { at: number; as: Promise<oauth.AuthorizationServer> } | undefined;
  if (hit && app.now() - hit.at < DISCOVERY_TTL_MS) return hit.as;
  const issuer = new URL(app.config.oidcIssuer);
  const as = oauth.discoveryRequest(issuer, options(app)).then((res) => oauth.processDiscoveryResponse(issuer, res));
  app.cache.set(key, { at: app.now(), as });
  as.catch(() => app.cache.delete(key));
  return as;
}

const client = (app: App): oauth.Client => ({ client_id: app.config.oidcClientId });

/** Where to send the browser, and the secrets its flow must keep (PKCE verifier, nonce). */
export async function oidcAuthorizationUrl(app: App, state: string): Promise<{ url: string; secrets: Record<string, string> } | string> {
  let as: oauth.AuthorizationServer;
  try {
    as = await server(app);
  } catch {
    return OIDC_ERRORS.unreachable;
  }
  if (!as.authorization_endpoint) return OIDC_ERRORS.unreachable;
  const verifier = oauth.generateRandomCodeVerifier();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set("client_id", app.config.oidcClientId);
  url.searchParams.set("redirect_uri", oidcRedirectUri(app));
  url.searchParams.set("response_type", "code");
  url.searchParams.set("scope", app.config.oidcScope);
  url.searchParams.set("state", state);
  url.searchParams.set("nonce", nonce);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set("code_challenge_method", "S256");
  return { url: url.href, secrets: { verifier, nonce } };
}

function claimString(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : null;
}

/**
 * Finishes the flow: the callback's parameters (state checked against the flow's), the code
 * exchanged with the PKCE verifier, the ID token verified with the flow's nonce.
 */
export async function oidcIdentity(app: App, callback: URLSearchParams, state: string, secrets: Record<string, string>): Promise<ExternalIdentity | string> {
  if (callback.get("error")) return OIDC_ERRORS.denied;
  try {
    const as = await server(app);
    const c = client(app);
    const params = oauth.validateAuthResponse(as, c, callback, state);
    const res = await oauth.authorizationCodeGrantRequest(as, c, oauth.ClientSecretPost(app.config.oidcClientSecret), params, oidcRedirectUri(app), secrets.verifier, options(app));
    const result = await oauth.processAuthorizationCodeResponse(as, c, res, { expectedNonce: secrets.nonce, requireIdToken: true });
    const idClaims = oauth.getValidatedIdTokenClaims(result);
    if (!idClaims) return OIDC_ERRORS.refused;
    // Providers put profile and e-mail claims in the UserInfo answer rather than the ID token
    // (as omniauth_openid_connect, Mastodon reads both); its `sub` must be the ID token's.
    let claims: Record<string, unknown> = { ...idClaims };
    if (as.userinfo_endpoint) {
      const info = await oauth.userInfoRequest(as, c, result.access_token, options(app));
      claims = { ...(await oauth.processUserInfoResponse(as, c, idClaims.sub, info)), ...idClaims };
    }
    const uid = claimString(claims[app.config.oidcUidField]);
    if (!uid) return OIDC_ERRORS.refused;
    return {
      provider: "openid_connect",
      uid,
      email: claimString(claims.email),
      emailVerified: app.config.oidcAssumeEmailVerified || claims.email_verified === true,
      displayName: claimString(claims.name),
    };
  } catch (e) {
    if (e instanceof TypeError || (e as Error).name === "TimeoutError") return OIDC_ERRORS.unreachable;
    return OIDC_ERRORS.refused;
  }
}
