// VAPID (RFC 8292): each push request carries a JWT signed with the server's P-256 key, naming
// the push service (`aud`) and a contact (`sub`). Signing costs ~2.5 ms with the web-push
// package, more than encrypting a message, so the header is made once per push service and
// reused for hours: every subscriber on the same service (FCM, Mozilla, Apple, a relay) shares it.
// The package is loaded on first use (~10 MB of RSS: an idle server without pushes never pays).
import type { App } from "../app.ts";

/** web-push's default lifetime (RFC 8292 allows up to 24 h; Mastodon signs for 24 h). */
const JWT_LIFETIME_S = 12 * 3600;
/** A header is reused while at least this much of its lifetime is left. */
const MIN_REMAINING_S = 6 * 3600;
const CACHE_KEY = "push.vapidHeaders";
/** Distinct push services remembered; beyond this the cache starts over. */
const MAX_SERVICES = 1000;

export interface VapidHeaders {
  Authorization: string;
  /** aesgcm only: `p256ecdsa=<public key>`, joined to the `dh=` part. */
  "Crypto-Key"?: string;
}

interface Entry {
  headers: VapidHeaders;
  exp: number;
}

/**
 * The JWT's `sub`: the instance's contact address (the seed: "an administrator contact is sent
 * to the push service"), else the instance's about page, so the push service can still tell
 * whose server this is.
 */
export function vapidSubject(app: App): string {
  const email = app.config.contactEmail.trim();
  return email ? `mailto:${email}` : `https://${app.config.domain}/about`;
}

/**
 * The Authorization (and for aesgcm the Crypto-Key part) for a request to `endpoint`. Times are
 * real time, not app.now(): a real push service checks `exp` against its own clock.
 */
export async function vapidHeaders(app: App, endpoint: string, standard: boolean): Promise<VapidHeaders> {
  const audience = new URL(endpoint).origin;
  const encoding = standard ? "aes128gcm" : "aesgcm";
  const key = `${encoding} ${audience}`;
  let cache = app.cache.get(CACHE_KEY) as Map<string, Entry> | undefined;
  if (!cache) app.cache.set(CACHE_KEY, (cache = new Map()));
  const nowS = Math.floor(Date.now() / 1000);
  const hit = cache.get(key);
  if (hit && hit.exp - nowS >= MIN_REMAINING_S) return hit.headers;
  const exp = nowS + JWT_LIFETIME_S;
  const { default: webpush } = await import("web-push");
  const h = webpush.getVapidHeaders(audience, vapidSubject(app), app.config.vapidPublicKey, app.config.vapidPrivateKey, encoding, exp);
  if (cache.size >= MAX_SERVICES) cache.clear();
  const headers: VapidHeaders = { Authorization: h.Authorization, ...("Crypto-Key" in h ? { "Crypto-Key": h["Crypto-Key"] } : {}) };
  cache.set(key, { headers, exp });
  return headers;
}
