// Signed GET of an ActivityPub document (AP §2 content types, §12 origin rules).
import type { App } from "../app.ts";
import type { Account } from "../storage/accounts.ts";
import { isSuspendedDomain } from "./domain-policy.ts";
import { instanceActorSignKey } from "./instance-actor.ts";
import { type SignatureScheme, type SignKey, signRequest } from "./net/http-signatures.ts";
import { logRemoteFailure, safeFetch, type SafeResponse } from "./net/safe-fetch.ts";
import { hasAsContext, httpUrl, isObject, sameOrigin } from "./parse/common.ts";
import { AP_ACCEPT, AS_CONTEXT, FederationError, type ApObject } from "./types.ts";

export interface FetchObjectOptions {
  /** Sign as this local account instead of the instance actor (fetching on a user's behalf). */
  signer?: Account;
  /**
   * Require the document's `id` to equal the URL (default true). When false, a document whose
   * id differs is fetched again from its id, which must then match (AP §12).
   */
  exactId?: boolean;
  /** Stops the request where it is (a backfill job's time limit). */
  signal?: AbortSignal;
}

/**
 * True for `application/activity+json`, and for `application/ld+json` whose `profile` lists
 * the ActivityStreams URI (AP §2). A bare `application/json` is refused, as Mastodon does.
 */
export function isActivityPubContentType(header: string | null): boolean {
  if (!header) return false;
  const [type, ...params] = header.split(";").map((s) => s.trim());
  const media = type.toLowerCase();
  if (media === "application/activity+json") return true;
  if (media !== "application/ld+json") return false;
  for (const p of params) {
    const eq = p.indexOf("=");
    if (eq === -1 || p.slice(0, eq).trim().toLowerCase() !== "profile") continue;
    const value = p.slice(eq + 1).trim().replace(/^"|"$/g, "");
    if (value.split(/\s+/).includes(AS_CONTEXT)) return true;
  }
  return false;
}

function signKeyOf(app: App, signer: Account | undefined): SignKey {
  if (!signer) return instanceActorSignKey(app);
  if (!signer.privateKeyPem || signer.domain !== null) throw new Error(`account ${signer.id} cannot sign requests`);
  return { keyId: signer.publicKeyId ?? `${signer.uri}#main-key`, privateKeyPem: signer.privateKeyPem };
}

async function signedGet(app: App, url: string, key: SignKey, scheme: SignatureScheme, signal?: AbortSignal): Promise<SafeResponse> {
  return safeFetch(app, url, {
    method: "GET",
    signal,
    headers: { accept: AP_ACCEPT },
    // Each redirect hop is signed again for its own URL (AP §10.1).
    sign: (u, headers) => signRequest({ method: "GET", url: u.href, headers }, key, scheme),
  });
}

/** Ids are compared as strings (Mastodon: `json['id'] == uri`), tolerating URL normalisation. */
const sameId = (id: unknown, url: string) => typeof id === "string" && (id === url || httpUrl(id) === httpUrl(url));

/**
 * One GET: the parsed document, undefined on 404/410, or a FederationError. A document is only
 * trusted for the origin it was finally served from: after a redirect to another server, that
 * server could claim any id (Mastodon's origin check on the response URL).
 */
async function getDocument(app: App, url: string, key: SignKey, signal?: AbortSignal): Promise<ApObject | undefined> {
  if (isSuspendedDomain(app, url)) throw new FederationError(`${new URL(url).host} is suspended`, true);
  let res = await signedGet(app, url, key, "cavage", signal);
  // RFC 9421 double-knock (AP §10.1): a peer that refuses the cavage signature may take 9421.
  if (res.status === 400 || res.status === 401) res = await signedGet(app, url, key, "rfc9421", signal);
  if (res.status === 404 || res.status === 410) return undefined;
  // A network failure was logged by safeFetch; an answer we cannot use is logged here, once.
  const refused = (reason: string, permanent: boolean) => {
    logRemoteFailure(app, "GET", res.url, reason);
    return new FederationError(`GET ${url}: ${reason}`, permanent);
  };
  if (res.status !== 200) {
    // Rate limits and server errors may pass; any other answer will not change on a retry.
    const transient = res.status === 429 || res.status >= 500;
    throw refused(`HTTP ${res.status}`, !transient);
  }
  if (!isActivityPubContentType(res.headers.get("content-type"))) {
    throw refused(`not an ActivityPub document (${res.headers.get("content-type") ?? "no content type"})`, true);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(res.body.toString("utf8"));
  } catch {
    throw refused("malformed JSON", true);
  }
  if (!isObject(doc)) throw refused("not a JSON object", true);
  if (!hasAsContext(doc)) throw refused("no ActivityStreams context", true);
  if (typeof doc.id !== "string" || !httpUrl(doc.id)) throw refused("no usable id", true);
  if (!sameOrigin(res.url, doc.id)) throw refused(`served from ${new URL(res.url).host} with an id on another server`, true);
  return doc;
}

function refusedId(app: App, url: string, reason: string): FederationError {
  logRemoteFailure(app, "GET", url, reason);
  return new FederationError(`GET ${url}: ${reason}`, true);
}

/**
 * Fetches `url` with a signed GET (instance actor unless `signer`), requires 200 with an AS
 * content type and a JSON object with the AS context and an id on the URL's origin rules.
 * Returns undefined on 404/410 (gone); throws FederationError (permanent for bad documents)
 * or FetchError (network) otherwise.
 */
export async function fetchApObject(app: App, url: string, opts: FetchObjectOptions = {}): Promise<ApObject | undefined> {
  const target = httpUrl(url);
  if (!target) throw new FederationError(`not an http(s) URL: ${url.slice(0, 200)}`, true);
  const key = signKeyOf(app, opts.signer);
  // The fragment names a part of the document (`…/users/bob#main-key`); it is never sent.
  const plain = target.replace(/#.*$/, "");
  const doc = await getDocument(app, plain, key, opts.signal);
  if (!doc || sameId(doc.id, plain)) return doc;
  if (opts.exactId !== false) throw refusedId(app, plain, `the document's id is ${String(doc.id).slice(0, 200)}`);
  // Found through another URL (a web URL, a redirect): only the canonical id is trusted (AP §12).
  const canonical = doc.id as string;
  const again = await getDocument(app, canonical, key, opts.signal);
  if (again && !sameId(again.id, canonical)) throw refusedId(app, canonical, "the document's id differs");
  return again;
}
