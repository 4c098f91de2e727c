// WebFinger as a client (discovery.md §1.2), with host-meta fallback and a short cache.
import type { App } from "../../app.ts";
import { isSuspendedDomain } from "../domain-policy.ts";
import { logRemoteFailure, safeFetch, type SafeResponse } from "../net/safe-fetch.ts";
import { parseHandle } from "../parse/actor.ts";
import { asArray, httpUrl, isObject } from "../parse/common.ts";
import { FederationError } from "../types.ts";

export interface WebfingerResult {
  /** `acct:user@domain` as the server answered (canonical handle). */
  subject: string;
  /** The `self` link: the actor id. */
  actorUri: string;
}

const CACHE_KEY = "federation:webfinger";
const CACHE_MAX = 1000;
// Long enough to serve the several look-ups of one resolution (handle, then loop-back check),
// short enough that a changed binding is seen within minutes.
const HIT_TTL_MS = 5 * 60_000;
const MISS_TTL_MS = 30_000;

const JRD_ACCEPT = "application/jrd+json, application/json";
const XRD_ACCEPT = "application/xrd+xml, application/xml, text/xml";
const SELF_TYPES = ['application/activity+json', 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'];

interface CacheEntry {
  expires: number;
  value: WebfingerResult | undefined;
}

function cacheOf(app: App): Map<string, CacheEntry> {
  let c = app.cache.get(CACHE_KEY) as Map<string, CacheEntry> | undefined;
  if (!c) app.cache.set(CACHE_KEY, (c = new Map()));
  return c;
}

/**
 * https, except when we ourselves run on plain http: such a server is a development or test
 * setup whose peers are plain http on loopback too. (.onion hosts, the other plain-http case of
 * discovery.md §1.2, are refused by safe-fetch without a proxy.)
 */
const schemeOf = (app: App) => (app.config.protocol === "http" ? "http" : "https");

/** The JRD's subject and ActivityPub `self` link, or a permanent FederationError. */
function readJrd(res: SafeResponse, what: string): WebfingerResult {
  let jrd: unknown;
  try {
    jrd = JSON.parse(res.body.toString("utf8"));
  } catch {
    throw new FederationError(`WebFinger ${what}: malformed JSON`, true);
  }
  if (!isObject(jrd)) throw new FederationError(`WebFinger ${what}: not a JSON object`, true);
  const handle = parseHandle(jrd.subject);
  if (!handle) throw new FederationError(`WebFinger ${what}: missing or malformed subject`, true);
  const self = asArray(jrd.links).find(
    (l) => isObject(l) && l.rel === "self" && typeof l.type === "string" && SELF_TYPES.includes(l.type) && httpUrl(l.href),
  );
  if (!isObject(self)) throw new FederationError(`WebFinger ${what}: no ActivityPub self link`, true);
  return { subject: `acct:${handle.username}@${handle.domain}`, actorUri: self.href as string };
}

/** host-meta's lrdd template (RFC 6415), from the XRD document. */
function lrddTemplate(xml: string): string | undefined {
  for (const m of xml.matchAll(/<Link\b([^>]*)>/gi)) {
    const attrs = new Map<string, string>();
    for (const a of m[1].matchAll(/([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) attrs.set(a[1].toLowerCase(), a[2] ?? a[3]);
    const template = attrs.get("template")?.replace(/&amp;/g, "&");
    if (attrs.get("rel") === "lrdd" && template?.includes("{uri}")) return template;
  }
  return undefined;
}

function failure(status: number, what: string): FederationError {
  return new FederationError(`WebFinger ${what}: HTTP ${status}`, !(status === 429 || status >= 500));
}

async function lookup(app: App, username: string, domain: string): Promise<WebfingerResult | undefined> {
  if (isSuspendedDomain(app, domain)) throw new FederationError(`${domain} is suspended`, true);
  const resource = `acct:${username}@${domain}`;
  const base = `${schemeOf(app)}://${domain}`;
  let res = await safeFetch(app, `${base}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`, {
    headers: { accept: JRD_ACCEPT },
  });
  // Servers that serve WebFinger elsewhere say so in host-meta; asked only after a 404.
  if (res.status === 404) {
    const meta = await safeFetch(app, `${base}/.well-known/host-meta`, { headers: { accept: XRD_ACCEPT } });
    const template = meta.status === 200 ? lrddTemplate(meta.body.toString("utf8")) : undefined;
    const url = template && httpUrl(template.replace("{uri}", encodeURIComponent(resource)));
    if (!url) return undefined;
    res = await safeFetch(app, url, { headers: { accept: JRD_ACCEPT } });
  }
  if (res.status === 404 || res.status === 410) return undefined;
  try {
    if (res.status !== 200) throw failure(res.status, resource);
    return readJrd(res, resource);
  } catch (e) {
    // A network failure was logged by safeFetch; an answer we cannot use is logged here, once.
    logRemoteFailure(app, "GET", res.url, (e as Error).message);
    throw e;
  }
}

/**
 * Looks `user@domain` up (unsigned GET, `Accept: application/jrd+json`), falling back to
 * host-meta's lrdd template on 404. Returns undefined when the account does not exist (404/410);
 * throws FederationError/FetchError on other failures. Results are cached briefly per handle.
 */
export async function webfinger(app: App, username: string, domain: string): Promise<WebfingerResult | undefined> {
  const key = `${username}@${domain}`.toLowerCase();
  const cache = cacheOf(app);
  const now = app.now();
  const hit = cache.get(key);
  if (hit && hit.expires > now) return hit.value;
  const value = await lookup(app, username, domain.toLowerCase());
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.delete(key);
  cache.set(key, { expires: now + (value ? HIT_TTL_MS : MISS_TTL_MS), value });
  return value;
}

/** Forgets cached answers (a test, or a caller that must see a change at once). */
export function clearWebfingerCache(app: App): void {
  cacheOf(app).clear();
}
