// Incoming HTTP signatures → the signing account (inbox POSTs and authorized-fetch GETs), AP §10.2.
import type { KeyObject } from "node:crypto";
import type { H3Event } from "h3";
import type { App } from "../app.ts";
import { findRowCache, installRowCache, type RowCacheSpec } from "../storage/row-cache.ts";
import { ApiError } from "../errors.ts";
import type { Account } from "../storage/accounts.ts";
import { domainPolicy, installDomainPolicyCache } from "./domain-policy.ts";
import { publicKeyObject } from "./net/key-objects.ts";
import { FetchError } from "./net/safe-fetch.ts";
import {
  type IncomingRequest,
  type ParsedSignature,
  parseRequestSignature,
  SignatureError,
  verifyRequestSignature,
} from "./net/http-signatures.ts";
import { resolveAccountByKeyId } from "./resolve/accounts.ts";
import { FederationError } from "./types.ts";

export interface VerifiedRequest {
  /** The remote account whose key signed the request. */
  signer: Account;
  keyId: string;
  /** The raw body (POST), already read and digest-checked. */
  body?: Buffer;
}

/** Largest body read here when the caller has not read it (AP §7: 1 MiB). */
export const MAX_SIGNED_BODY = 1024 * 1024;

interface KeyEntry {
  account: Account;
  key: KeyObject;
  /** The admin suspended the account's domain. */
  blocked: boolean;
  /** When it was looked up (app.now()): entries live KEY_TTL_MS at most. */
  cachedAt: number;
}

// Besides the exact invalidation below, a cached key lives an hour at most: keys of senders
// that went quiet leave memory, and keys not stored as the account's primary key (which the
// row triggers cannot see) are read again. A key the peer revoked is replaced when the actor
// is fetched again: on a failed verification, or by the daily refresh of remote accounts.
const KEY_TTL_MS = 3600_000;

// Signer keys by key id. Exact: an entry goes as soon as the account row changes (a refetch,
// a suspension) or any admin domain block does, so a cached key is as good as a lookup (see
// storage/row-cache.ts).
const SIGNER_KEYS: RowCacheSpec = {
  name: "federation:signer-keys",
  max: 8192,
  watches: [
    ["accounts", "public_key_id"],
    ["domain_blocks", null],
  ],
};

// Changes made by this process reach the caches at once (triggers); those of another process
// (a `roost` command) are noticed through PRAGMA data_version, which costs a WAL read lock:
// on the inbox's hot path it is checked at most this often.
const SYNC_EVERY_MS = 500;

/** Notices other processes' commits, at most every SYNC_EVERY_MS. */
export function syncVerifyCaches(app: App): void {
  const cache = findRowCache<KeyEntry>(app, SIGNER_KEYS);
  if (!cache) return;
  const now = performance.now();
  const last = app.cache.get("federation:verify-synced") as number | undefined;
  if (last !== undefined && now - last < SYNC_EVERY_MS) return;
  app.cache.set("federation:verify-synced", now);
  cache.sync();
}

/**
 * Installs the caches of this module (call once, outside transactions, when routes are
 * registered). Without them every request looks its key and domain policy up in the database.
 */
export function installVerifyCaches(app: App): void {
  installRowCache(app, SIGNER_KEYS);
  installDomainPolicyCache(app);
}


// A failed verification with a stored key refetches the actor (key rotation), but at most once
// per key id per minute: otherwise forged requests naming a real key id would make us fetch.
const REFRESH_EVERY_MS = 60_000;
const REFRESH_MEMORY = 4096;

function mayRefresh(app: App, keyId: string): boolean {
  let seen = app.cache.get("federation:key-refreshes") as Map<string, number> | undefined;
  if (!seen) app.cache.set("federation:key-refreshes", (seen = new Map()));
  const now = app.now();
  const last = seen.get(keyId);
  if (last !== undefined && now - last < REFRESH_EVERY_MS) return false;
  seen.delete(keyId);
  seen.set(keyId, now);
  if (seen.size > REFRESH_MEMORY) seen.delete(seen.keys().next().value!);
  return true;
}

/** Key lookup (resolve/accounts.ts) with transport failures mapped to the inbox's statuses. */
async function lookupKey(app: App, keyId: string, refresh: boolean): Promise<KeyEntry | undefined> {
  let found: Awaited<ReturnType<typeof resolveAccountByKeyId>>;
  try {
    found = await resolveAccountByKeyId(app, keyId, { refresh });
  } catch (e) {
    // The peer is unreachable or answered 5xx: the sender should retry later.
    if (e instanceof FetchError && !["invalid-url", "private-address", "too-large"].includes(e.kind)) {
      throw new ApiError(503, `Could not fetch the key ${keyId}: ${e.message}`);
    }
    if (e instanceof FederationError && !e.permanent) throw new ApiError(503, `Could not fetch the key ${keyId}: ${e.message}`);
    if (e instanceof FetchError || e instanceof FederationError) throw new ApiError(401, `Could not resolve the key ${keyId}: ${e.message}`);
    throw e;
  }
  if (!found) return undefined;
  let key: KeyObject;
  try {
    key = publicKeyObject(found.publicKeyPem);
  } catch {
    throw new ApiError(401, `The key ${keyId} is not a usable public key`);
  }
  return {
    account: found.account,
    key,
    blocked: found.account.domain !== null && domainPolicy(app, found.account.domain).suspended,
    cachedAt: app.now(),
  };
}

/** The raw request as the verifier needs it: the target exactly as received. */
export function incomingRequest(app: App, event: H3Event, body?: Buffer): IncomingRequest {
  // The node request keeps the target as sent; event.url is normalised by URL parsing.
  const raw = event.req.runtime?.node?.req.url;
  const target = raw && raw.startsWith("/") ? raw : event.url.pathname + event.url.search;
  // Our public origin, not the Host we were reached by (a proxy may terminate TLS).
  return { method: event.req.method, target, url: app.baseUrl + target, headers: event.req.headers, body };
}

/** Reads a request body up to `max` bytes; 413 beyond (by Content-Length first, then counted). */
export async function readBodyLimited(event: H3Event, max: number): Promise<Buffer> {
  const declared = Number(event.req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > max) throw new ApiError(413, "Payload Too Large");
  const chunks: Buffer[] = [];
  let size = 0;
  const add = (c: Uint8Array) => {
    size += c.byteLength;
    if (size > max) throw new ApiError(413, "Payload Too Large");
    chunks.push(Buffer.from(c.buffer, c.byteOffset, c.byteLength));
  };
  const node = event.req.runtime?.node?.req;
  if (node && !node.readableEnded && !node.readableDidRead) {
    // Straight from the node stream: cheaper than the web stream wrapped around it. Not
    // `for await`, which destroys the socket when left early: a 413 must still be answered.
    await new Promise<void>((resolve, reject) => {
      const onData = (c: Buffer) => {
        try {
          add(c);
        } catch (e) {
          cleanup();
          node.resume(); // discard the rest
          reject(e);
        }
      };
      const onEnd = () => {
        cleanup();
        resolve();
      };
      const onError = (e: Error) => {
        cleanup();
        reject(new ApiError(400, `Could not read the request body: ${e.message}`));
      };
      const cleanup = () => {
        node.off("data", onData);
        node.off("end", onEnd);
        node.off("error", onError);
      };
      node.on("data", onData);
      node.on("end", onEnd);
      node.on("error", onError);
    });
  } else if (event.req.body) {
    const reader = event.req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      try {
        add(value);
      } catch (e) {
        await reader.cancel().catch(() => {});
        throw e;
      }
    }
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}

/**
 * Verifies the request's HTTP signature (cavage or RFC 9421). The key is looked up by key id
 * (stored, else fetched via resolve/accounts.ts), cached as a KeyObject; a failure with a
 * cached key refetches the actor once (key rotation). Throws ApiError: 400 malformed header,
 * 401 missing/invalid/expired signature, 403 signer's domain suspended by the admin, 503 the
 * key could not be fetched (peer unreachable: the sender should retry).
 * `body`: the raw POST body when the caller has already read it (size-limited).
 */
export async function verifyRequest(app: App, event: H3Event, body?: Buffer): Promise<VerifiedRequest> {
  if (body === undefined && event.req.method !== "GET" && event.req.method !== "HEAD") body = await readBodyLimited(event, MAX_SIGNED_BODY);
  const req = incomingRequest(app, event, body);

  let sig: ParsedSignature;
  try {
    sig = parseRequestSignature(req, app.now());
  } catch (e) {
    if (e instanceof SignatureError) throw new ApiError(e.status, e.message);
    throw e;
  }
  const keyId = sig.keyId;
  const cache = findRowCache<KeyEntry>(app, SIGNER_KEYS);
  syncVerifyCaches(app);
  let entry = cache?.get(keyId);
  if (entry && app.now() - entry.cachedAt > KEY_TTL_MS) entry = undefined;
  let fresh = false;
  if (!entry) {
    // Refused before anything is fetched from a suspended server.
    if (/^https?:\/\//i.test(keyId) && domainPolicy(app, keyId).suspended) throw new ApiError(403, "The server of this key is blocked");
    const lookedUpAt = app.now();
    entry = await lookupKey(app, keyId, false);
    if (!entry) throw new ApiError(401, `Unknown key ${keyId}`);
    cache?.set(keyId, entry);
    // A key the resolver fetched during this very lookup cannot be any fresher.
    fresh = entry.account.fetchedAt !== null && entry.account.fetchedAt >= lookedUpAt;
  }
  if (entry.blocked) throw new ApiError(403, "The server of this key is blocked");

  try {
    verifyRequestSignature(req, sig, entry.key);
  } catch (e) {
    if (!(e instanceof SignatureError)) throw e;
    // Maybe the key was rotated since we stored it: refetch the actor once.
    if (fresh || entry.account.domain === null || !mayRefresh(app, keyId)) throw new ApiError(401, e.message);
    const again = await lookupKey(app, keyId, true);
    if (!again || again.key.equals(entry.key)) throw new ApiError(401, e.message);
    try {
      verifyRequestSignature(req, sig, again.key);
    } catch (e2) {
      if (e2 instanceof SignatureError) throw new ApiError(401, e2.message);
      throw e2;
    }
    entry = again;
  }
  return { signer: entry.account, keyId, body };
}
