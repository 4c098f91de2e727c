// Content negotiation (AP §2), the headers of ActivityPub responses, and who is asking
// (authorized fetch, AP §11).
import type { H3Event } from "h3";
import type { App } from "../../app.ts";
import { ApiError } from "../../errors.ts";
import type { Id } from "../../lib/ids.ts";
import { AP_CONTENT_TYPE, type ApObject } from "../types.ts";
import { verifyRequest } from "../verify-request.ts";

const AS_JSON_TYPES = new Set(["application/activity+json", "application/ld+json", "application/json"]);

/**
 * True when the Accept header lists an ActivityStreams type or plain JSON with a non-zero
 * q. Unlike Rails, a wildcard type next to it does not turn the request into a browser one:
 * an AS type listed at all wins (AP §2).
 */
export function wantsActivityJson(accept: string | null): boolean {
  if (!accept) return false;
  for (const part of accept.split(",")) {
    const [type, ...params] = part.split(";").map((p) => p.trim().toLowerCase());
    if (!AS_JSON_TYPES.has(type)) continue;
    const q = params.find((p) => p.startsWith("q="));
    if (q && Number(q.slice(2)) === 0) continue;
    return true;
  }
  return false;
}

export function wantsJson(event: H3Event, forcedJson = false): boolean {
  return forcedJson || wantsActivityJson(event.req.headers.get("accept"));
}

/** Who the object is served to: the verified signer, or nobody (anonymous). */
export interface Requester {
  signerId: Id | null;
}

/** Shared caches may keep a response only when nobody signed for it and the object is public. */
export const cacheFor = (who: Requester, isPublic = true): CachePolicy => (who.signerId === null && isPublic ? "public" : "private");

const isSigned = (event: H3Event) => event.req.headers.has("signature") || event.req.headers.has("signature-input");

/**
 * The verified signer of a GET. In authorized-fetch mode a signature is required (401
 * unsigned; verifyRequest answers 401/403 for bad or blocked signers). Otherwise a signature
 * is optional and only widens what is shown (followers-only posts to their followers); a bad
 * one is treated as no signature, as Mastodon does in public fetch mode.
 */
export async function requester(app: App, event: H3Event): Promise<Requester> {
  if (app.config.authorizedFetch) {
    if (!isSigned(event)) throw new ApiError(401, "Request not signed");
    const verified = await verifyRequest(app, event);
    return { signerId: verified.signer.id };
  }
  if (!isSigned(event)) return { signerId: null };
  try {
    return { signerId: (await verifyRequest(app, event)).signer.id };
  } catch (err) {
    app.log.debug("ignoring an unverifiable signature on a public fetch", { path: event.url.pathname, err });
    return { signerId: null };
  }
}

export type CachePolicy =
  /** Shown to anyone: cacheable by shared caches unless authorized fetch personalises it. */
  | "public"
  /** Depends on the signer: never in shared caches. */
  | "private"
  /** The same for everyone, even in authorized-fetch mode (the instance actor). */
  | "always-public";

const VARY = "Accept, Accept-Language, Cookie";

/** The JSON body with Mastodon's headers; returns the text to send. */
export function sendAp(app: App, event: H3Event, doc: ApObject, cache: CachePolicy, maxAge = 180): string {
  const h = event.res.headers;
  h.set("content-type", AP_CONTENT_TYPE);
  h.set("vary", app.config.authorizedFetch ? `${VARY}, Signature` : VARY);
  const shared = cache === "always-public" || (cache === "public" && !app.config.authorizedFetch);
  h.set("cache-control", shared ? `public, max-age=${maxAge}` : "private");
  return JSON.stringify(doc);
}

/** The human URL of an AP resource, for browsers (AP §2: 301 with `Vary: Origin, Accept`). */
export function redirectForBrowsers(event: H3Event, location: string): Response {
  event.res.headers.set("vary", "Origin, Accept");
  event.res.headers.set("cache-control", "public, max-age=180");
  return new Response(null, { status: 301, headers: { location, vary: "Origin, Accept" } });
}

/** A route parameter as sent (h3 leaves it percent-encoded; lookups treat it as opaque). */
export const param = (event: H3Event, name: string): string => event.context.params?.[name] ?? "";

/** 404 with Mastodon's body; the same whether the object is missing or hidden. */
export const notFoundAp = () => new ApiError(404, "Record not found");
