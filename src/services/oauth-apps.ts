import type { App } from "../app.ts";
import { ApiError } from "../errors.ts";
import { randomToken, safeEqual, sha256Hex } from "../lib/crypto.ts";
import { DEFAULT_SCOPES, isKnownScope, parseScopes } from "../lib/scopes.ts";
import { exceedsCodePoints } from "../lib/code-points.ts";
import { type Application, findApplicationByClientId, findApplicationById, insertApplication } from "../storage/applications.ts";

export const OOB_URI = "urn:ietf:wg:oauth:2.0:oob";

export interface RegisterAppInput {
  name: string | undefined;
  /** Each entry may itself hold several whitespace-separated URIs. */
  redirectUris: string[] | undefined;
  scopes: string | undefined;
  website: string | undefined;
}

const MAX_NAME = 60;
const MAX_URL = 2000;
// Mastodon's Doorkeeper config: forbid_redirect_uri for these schemes.
const FORBIDDEN_SCHEMES = new Set(["javascript", "data", "vbscript"]);
// RFC 3986 characters; Ruby's URI.parse (which Doorkeeper uses) refuses anything else.
const URI_CHARS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

/** Doorkeeper's redirect URI checks; returns the error messages (without the attribute name). */
export function redirectUriErrors(uri: string): string[] {
  if (uri === OOB_URI) return [];
  if (!URI_CHARS.test(uri)) return ["must be a valid URI."];
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1]?.toLowerCase();
  if (!scheme) return ["must be an absolute URI."];
  const out: string[] = [];
  if (FORBIDDEN_SCHEMES.has(scheme)) out.push("is forbidden by the server.");
  if (uri.includes("#")) out.push("cannot contain a fragment.");
  if (out.length === 0) {
    try {
      new URL(uri);
    } catch {
      out.push("must be a valid URI.");
    }
  }
  return out;
}

function isWebUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
}

/**
 * POST /api/v1/apps. Errors are Mastodon's `Validation failed: ...` 422 (Doorkeeper model
 * errors, hence "Redirect URI" with its capitals and the trailing periods).
 */
export function registerApplication(app: App, input: RegisterAppInput): { application: Application; clientSecret: string } {
  const errors: string[] = [];
  const add = (m: string) => {
    if (!errors.includes(m)) errors.push(m);
  };
  const name = input.name ?? "";
  if (name.trim() === "") add("Name can't be blank");
  else if (exceedsCodePoints(name, MAX_NAME)) add(`Name is too long (maximum is ${MAX_NAME} characters)`);

  const joined = (input.redirectUris ?? []).join("\n");
  const uris = joined.length > MAX_URL ? [] : [...new Set(joined.split(/\s+/).filter(Boolean))];
  if (joined.length > MAX_URL) add(`Redirect URI is too long (maximum is ${MAX_URL} characters)`);
  else if (uris.length === 0) add("Redirect URI can't be blank");
  else for (const u of uris) for (const m of redirectUriErrors(u)) add(`Redirect URI ${m}`);

  const requested = input.scopes !== undefined && input.scopes.length <= MAX_URL ? parseScopes(input.scopes) : [];
  const scopes = requested.length ? requested : [...DEFAULT_SCOPES];
  if ((input.scopes?.length ?? 0) > MAX_URL || !scopes.every(isKnownScope))
    add("Scopes doesn't match those configured on the server.");

  const website = input.website?.trim() ? input.website : null;
  if (website !== null) {
    if (website.length > MAX_URL) add(`Website is too long (maximum is ${MAX_URL} characters)`);
    else if (!isWebUrl(website)) add("Website is invalid");
  }
  if (errors.length) throw new ApiError(422, "Validation failed: " + errors.join(", "));

  const clientSecret = randomToken();
  const application: Application = {
    id: app.ids.next(),
    name,
    website,
    redirectUris: uris,
    scopes,
    clientId: randomToken(),
    clientSecretHash: sha256Hex(clientSecret),
    superapp: false,
    ownerUserId: null,
    createdAt: app.now(),
  };
  insertApplication(app.db, application);
  return { application, clientSecret };
}

/** The client whose id and secret match, else undefined (constant-time secret comparison). */
export function authenticateClient(app: App, clientId: string | undefined, secret: string | undefined): Application | undefined {
  if (!clientId || !secret || clientId.length > 200 || secret.length > 200) return undefined;
  const a = findApplicationByClientId(app.db, clientId);
  if (!a) return undefined;
  return safeEqual(sha256Hex(secret), a.clientSecretHash) ? a : undefined;
}

export function findClient(app: App, clientId: string | undefined): Application | undefined {
  if (!clientId || clientId.length > 200) return undefined;
  return findApplicationByClientId(app.db, clientId);
}

/** The application a token belongs to (apps/verify_credentials). */
export function findTokenApplication(app: App, applicationId: string | null): Application | undefined {
  return applicationId ? findApplicationById(app.db, applicationId) : undefined;
}
