// SAML 2.0 sign-in through @node-saml/node-saml: AuthnRequest by HTTP-Redirect, Response by
// HTTP-POST. Assertions must carry a valid signature of the configured IdP certificate; the
// Response must answer a request this server made (InResponseTo, each usable once, kept by
// node-saml's cache in this process), and an assertion id is accepted once.
import type { SAML, Profile } from "@node-saml/node-saml";
import type { App } from "../../app.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { consumeAuthProof } from "../../storage/identities.ts";
import type { ExternalIdentity } from "./identities.ts";

export const SAML_ERRORS = {
  invalid: "The SAML response could not be verified (bad signature, wrong audience, expired, or not an answer to this server's request). Please sign in again.",
  replayed: "This SAML assertion has already been used. Please sign in again.",
  noUid: "The SAML response did not identify you.",
} as const;

const FLOW_MS = 10 * 60_000;
const ASSERTION_MEMORY_MS = 24 * 3600_000;

export function samlEnabled(app: App): boolean {
  return app.config.samlEntryPoint !== "" && app.config.samlIdpCert !== "";
}

export function samlCallbackUrl(app: App): string {
  return `${app.baseUrl}/auth/auth/saml/callback`;
}

/** Where the SP metadata is served (omniauth-saml's path under Mastodon's /auth/auth prefix), also the default entity id. */
export const SAML_METADATA_PATH = "/auth/auth/saml/metadata";

/** This server's certificate and key, when both are configured. */
function spKeys(app: App): { cert: string; key: string } | null {
  const { samlCert: cert, samlPrivateKey: key } = app.config;
  return cert && key ? { cert, key } : null;
}

// node-saml (with its XML signature stack) is loaded on first use: idle memory stays small.
async function saml(app: App): Promise<SAML> {
  const key = "saml:instance";
  let s = app.cache.get(key) as SAML | undefined;
  if (!s) {
    const { SAML, ValidateInResponseTo } = await import("@node-saml/node-saml");
    const sp = spKeys(app);
    s = new SAML({
      entryPoint: app.config.samlEntryPoint,
      idpCert: app.config.samlIdpCert,
      issuer: app.config.samlIssuer || `${app.baseUrl}${SAML_METADATA_PATH}`,
      callbackUrl: samlCallbackUrl(app),
      // With our own key: AuthnRequests are signed (rsa-sha256) and encrypted assertions decrypted.
      ...(sp ? { privateKey: sp.key, publicCert: sp.cert, decryptionPvk: sp.key, signatureAlgorithm: "sha256" as const } : {}),
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: FLOW_MS,
      acceptedClockSkewMs: 60_000,
    });
    app.cache.set(key, s);
  }
  return s;
}

/**
 * The SP metadata an IdP administrator imports: entity id, ACS URL (HTTP-POST), NameID format,
 * and this server's certificate for signing and encryption when configured. Built by node-saml.
 */
export async function samlServiceProviderMetadata(app: App): Promise<string> {
  const sp = spKeys(app);
  return (await saml(app)).generateServiceProviderMetadata(sp?.cert ?? null, sp?.cert ?? null);
}

/** Where the browser was going, per AuthnRequest: the IdP's POST back is cross-site and carries no cookie of ours. */
function pending(app: App): Map<string, { returnTo: string | null; expiresAt: number }> {
  let m = app.cache.get("saml:pending") as Map<string, { returnTo: string | null; expiresAt: number }> | undefined;
  if (!m) app.cache.set("saml:pending", (m = new Map()));
  const now = app.now();
  for (const [k, v] of m) if (v.expiresAt <= now) m.delete(k);
  return m;
}

/** The IdP URL with a new AuthnRequest; its id (the RelayState) remembers `returnTo`. */
export async function samlAuthorizeUrl(app: App, relayState: string, returnTo: string | null): Promise<string> {
  pending(app).set(relayState, { returnTo, expiresAt: app.now() + FLOW_MS });
  return (await saml(app)).getAuthorizeUrlAsync(relayState, undefined, {});
}

function attr(profile: Profile, name: string): string | null {
  const v = profile[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === "string" && first !== "" ? first : null;
}

/** Verifies a posted SAMLResponse; returns the identity and where to continue, or why not. */
export async function samlIdentity(app: App, samlResponse: string, relayState: string): Promise<{ who: ExternalIdentity | string; returnTo: string | null }> {
  const flow = pending(app).get(relayState);
  pending(app).delete(relayState);
  const returnTo = flow?.returnTo ?? null;
  let profile: Profile | null;
  try {
    ({ profile } = await (await saml(app)).validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch {
    return { who: SAML_ERRORS.invalid, returnTo };
  }
  if (!profile) return { who: SAML_ERRORS.invalid, returnTo };
  const assertion = profile.getAssertion?.() as { Assertion?: { $?: { ID?: string } } } | undefined;
  const id = assertion?.Assertion?.$?.ID;
  if (!id) return { who: SAML_ERRORS.invalid, returnTo };
  const now = app.now();
  if (!consumeAuthProof(app.db, "saml", sha256Hex(`${profile.issuer} ${id}`), now, now + ASSERTION_MEMORY_MS)) return { who: SAML_ERRORS.replayed, returnTo };
  const cfg = app.config;
  const uid = cfg.samlUidAttribute ? attr(profile, cfg.samlUidAttribute) : profile.nameID;
  if (!uid) return { who: SAML_ERRORS.noUid, returnTo };
  return {
    who: { provider: "saml", uid, email: attr(profile, cfg.samlEmailAttribute), emailVerified: cfg.samlAssumeEmailVerified, displayName: attr(profile, cfg.samlNameAttribute) },
    returnTo,
  };
}
