// Remote accounts: finding, fetching and storing them (AP §3.2, discovery.md §1.2).
import type { App } from "../../app.ts";
import type { Id } from "../../lib/ids.ts";
import { inTx } from "../../db/db.ts";
import { type Account, type NewAccount, findAccountById, findAccountByHandle, findAccountByUri, insertAccount, updateAccount } from "../../storage/accounts.ts";
import { findAccountByPublicKeyId, findAccountByUrl, findSuspensionOrigin, setSuspension } from "../../storage/remote-accounts.ts";
import { domainPolicy, isSuspendedDomain } from "../domain-policy.ts";
import { fetchApObject } from "../fetch-object.ts";
import { FetchError } from "../net/safe-fetch.ts";
import { scheduleAccountCounts } from "./account-counts.ts";
import { scheduleFeaturedTagsSync } from "./featured-tags.ts";
import { type ActorKey, isActorDocument, listActorKeys, parseApActor, parseHandle, type ParsedActor, REMOTE_USERNAME_RE } from "../parse/actor.ts";
import { asArray, hostOf, httpUrl, idOf, isObject, sameOrigin, str } from "../parse/common.ts";
import { type ApObject, FederationError } from "../types.ts";
import { upsertRemoteEmojis } from "./emojis.ts";
import { webfinger } from "./webfinger-client.ts";

const DAY = 86_400_000;
/** A handle verified through WebFinger less than this long ago is not asked again (Mastodon: 1 day). */
const WEBFINGER_FRESH_MS = DAY;
/** After a failed key refetch, verification uses the stored key for this long (AP §10.2). */
const KEY_REFETCH_BACKOFF_MS = 5 * 60_000;

interface Handle {
  username: string;
  domain: string;
}

export interface UpsertOptions {
  /** The verified handle's username as WebFinger spelled it (default: the actor's claim). */
  username?: string;
  /** The handle was just verified through WebFinger (sets last_webfingered_at). */
  webfingered?: boolean;
  /** The resolved `movedTo` account; undefined: looked up among known accounts only. */
  movedToAccountId?: Id | null;
}

const sameHandle = (a: Handle, b: Handle) => a.username.toLowerCase() === b.username.toLowerCase() && a.domain.toLowerCase() === b.domain.toLowerCase();

/** The handle the actor claims: FEP-2c59 `webfinger`, else preferredUsername at the id's host. */
function claimedHandle(actor: ParsedActor): Handle | undefined {
  if (actor.webfinger) return parseHandle(actor.webfinger) ?? undefined;
  const host = hostOf(actor.uri);
  return host && REMOTE_USERNAME_RE.test(actor.username) ? { username: actor.username, domain: host } : undefined;
}

/**
 * Inserts or updates the account row of a remote actor (keyed by actor uri), including its
 * profile emojis. `domain` is the verified handle's domain (`host[:port]`). Synchronous: may
 * run inside a transaction. Returns the stored account.
 */
export function upsertRemoteAccount(app: App, actor: ParsedActor, domain: string, opts: UpsertOptions = {}): Account {
  const d = domain.toLowerCase();
  return inTx(app.db, () => {
    const now = app.now();
    const known = findAccountByUri(app.db, actor.uri);
    const claim = claimedHandle(actor);
    const username = opts.username ?? (claim && claim.domain === d ? claim.username : (known?.username ?? actor.username));
    // A verified handle belongs to this actor now; an older actor that held it lost it (the
    // peer re-created the account), and keeps a placeholder name until its next refresh.
    const holder = findAccountByHandle(app.db, username, d);
    if (holder && holder.id !== known?.id) updateAccount(app.db, holder.id, { username: `${holder.username}_${holder.id}`, updatedAt: now });

    let movedToAccountId = opts.movedToAccountId;
    if (movedToAccountId === undefined) {
      const target = actor.movedTo ? findAccountByUri(app.db, actor.movedTo) : undefined;
      movedToAccountId = target && target.uri !== actor.uri ? target.id : null;
    }
    const patch: Partial<Account> = {
      username,
      domain: d,
      displayName: actor.displayName,
      note: actor.note,
      fields: actor.fields.map((f) => ({ name: f.name, value: f.value, verified_at: null })),
      actorType: actor.type,
      locked: actor.locked,
      discoverable: actor.discoverable,
      indexable: actor.indexable,
      memorial: actor.memorial,
      movedToAccountId,
      alsoKnownAs: actor.alsoKnownAs,
      uri: actor.uri,
      url: actor.url,
      inboxUrl: actor.inbox,
      sharedInboxUrl: actor.sharedInbox,
      outboxUrl: actor.outbox,
      followersUrl: actor.followers,
      followingUrl: actor.following,
      featuredUrl: actor.featured,
      featuredTagsUrl: actor.featuredTags,
      publicKeyPem: actor.publicKeyPem,
      publicKeyId: actor.publicKeyId,
      avatarRemoteUrl: actor.avatarUrl,
      headerRemoteUrl: actor.headerUrl,
      fetchedAt: now,
      updatedAt: now,
    };
    if (opts.webfingered) patch.lastWebfingeredAt = now;
    // A local copy of an image that changed is of the old image.
    if (known && known.avatarRemoteUrl !== actor.avatarUrl) Object.assign(patch, { avatarFile: null, avatarContentType: null });
    if (known && known.headerRemoteUrl !== actor.headerUrl) Object.assign(patch, { headerFile: null, headerContentType: null });

    let id: Id;
    if (known) {
      id = known.id;
      updateAccount(app.db, id, patch);
      // The peer's own suspension (AP §3.2) comes and goes with its document; ours stays.
      if (actor.suspended && known.suspendedAt === null) setSuspension(app.db, id, now, "remote");
      else if (!actor.suspended && known.suspendedAt !== null && findSuspensionOrigin(app.db, id) === "remote") setSuspension(app.db, id, null, null);
    } else {
      id = app.ids.next();
      const row: NewAccount = { ...patch, id, username, uri: actor.uri, createdAt: actor.published ?? now, updatedAt: now };
      // New accounts of a domain the admin silenced start silenced (Mastodon's DomainBlock).
      if (domainPolicy(app, d).silenced) row.silencedAt = now;
      insertAccount(app.db, row);
      if (actor.suspended) setSuspension(app.db, id, now, "remote");
    }
    upsertRemoteEmojis(app, d, actor.emojis);
    return findAccountById(app.db, id)!;
  });
}

/**
 * The handle loop-back check of discovery.md §1.2 step 4: WebFinger the handle the actor
 * claims; its `self` must be the actor. A subject naming another handle (split domain) is
 * asked once more and must answer with itself and the same actor. Undefined: not verified.
 */
async function verifyHandle(app: App, actor: ParsedActor): Promise<Handle | undefined> {
  const claim = claimedHandle(actor);
  if (!claim) return undefined;
  const first = await webfinger(app, claim.username, claim.domain);
  const subject = first && parseHandle(first.subject);
  if (!first || !subject) return undefined;
  if (sameHandle(subject, claim)) return first.actorUri === actor.uri ? subject : undefined;
  const second = await webfinger(app, subject.username, subject.domain);
  const again = second && parseHandle(second.subject);
  if (!second || !again || !sameHandle(again, subject) || second.actorUri !== actor.uri) return undefined;
  return subject;
}

/** Our own uris and profile URLs (`/users/alice`, `/@alice`) → the local account, no network. */
function findLocalAccount(app: App, uri: string): Account | undefined {
  const byUri = findAccountByUri(app.db, uri) ?? findAccountByUrl(app.db, uri);
  if (byUri) return byUri.domain === null ? byUri : undefined;
  const m = /^\/@([^/@]+)$/.exec(new URL(uri).pathname);
  return m ? findAccountByHandle(app.db, decodeURIComponent(m[1]), null) : undefined;
}

interface Resolved {
  account: Account;
  /** Every key the actor document listed (only the first with a PEM is stored on the row). */
  keys: ActorKey[];
}

const storedKeys = (a: Account): ActorKey[] => (a.publicKeyId ? [{ id: a.publicKeyId, pem: a.publicKeyPem }] : []);
const isPermanent = (e: unknown) => e instanceof FederationError && e.permanent;

interface ResolveOptions {
  refresh?: boolean;
  /** Resolve a `movedTo` target too (false for that target itself: no chains of redirects). */
  followMoved: boolean;
  /** The actor document, already fetched from its own id. */
  doc?: ApObject;
  /**
   * Resolving a signature's key: like Mastodon's key-only fetch, an actor whose handle does not
   * verify is still stored, under preferredUsername@host of its id and not marked webfingered
   * (so the handle is checked again before anyone looks it up by handle).
   */
  forKey?: boolean;
}

async function resolveActor(app: App, uri: string, opts: ResolveOptions): Promise<Resolved | undefined> {
  if (!httpUrl(uri)) return undefined;
  if (sameOrigin(uri, app.baseUrl)) {
    const local = findLocalAccount(app, uri);
    return local && { account: local, keys: storedKeys(local) };
  }
  const known = findAccountByUri(app.db, uri);
  if (known && !opts.refresh && !opts.doc) return { account: known, keys: storedKeys(known) };
  // Nothing is fetched from a suspended domain; what we stored stays as it was.
  if (isSuspendedDomain(app, uri)) return known && { account: known, keys: storedKeys(known) };
  if (opts.doc) return storeActor(app, uri, opts.doc, known, opts);

  // Concurrent resolutions of one actor (a burst of mentions, inbox jobs) share one fetch.
  const inflight = inflightOf(app);
  const key = `${opts.followMoved ? "m" : "-"}${opts.forKey ? "k" : "-"} ${uri}`;
  const running = inflight.get(key);
  if (running) return running;
  const p = (async () => {
    const doc = await fetchApObject(app, uri);
    return doc ? storeActor(app, uri, doc, known, opts) : undefined;
  })().finally(() => inflight.delete(key));
  inflight.set(key, p);
  return p;
}

function inflightOf(app: App): Map<string, Promise<Resolved | undefined>> {
  let m = app.cache.get("federation:resolving-actors") as Map<string, Promise<Resolved | undefined>> | undefined;
  if (!m) app.cache.set("federation:resolving-actors", (m = new Map()));
  return m;
}

/** The handle of an actor whose own claim did not verify, unless somebody else holds it. */
function unverifiedHandle(app: App, actor: ParsedActor): Handle | undefined {
  const host = hostOf(actor.uri);
  if (!host) return undefined;
  // An instance actor is named after its host, which may carry a port (`127.0.0.1:3000`, as
  // roost's own is): no valid username, so it is kept as `127.0.0.1_3000` — it only signs.
  const username = REMOTE_USERNAME_RE.test(actor.username)
    ? actor.username
    : actor.username.toLowerCase() === host
      ? host.replace(/:/g, "_")
      : undefined;
  if (!username) return undefined;
  const holder = findAccountByHandle(app.db, username, host);
  return holder && holder.uri !== actor.uri ? undefined : { username, domain: host };
}

/** Checks a fetched actor document, verifies its handle and stores it. */
async function storeActor(app: App, uri: string, doc: ApObject, known: Account | undefined, opts: ResolveOptions): Promise<Resolved | undefined> {
  if (!isActorDocument(doc)) return undefined;
  let actor: ParsedActor;
  try {
    actor = parseApActor(doc);
  } catch (e) {
    if (isPermanent(e)) return undefined;
    throw e;
  }
  if (actor.uri !== uri) return undefined;

  let handle: Handle | undefined;
  let webfingered = false;
  const claim = claimedHandle(actor);
  const fresh = known?.lastWebfingeredAt != null && app.now() - known.lastWebfingeredAt < WEBFINGER_FRESH_MS;
  if (known && known.domain && fresh && claim && sameHandle(claim, { username: known.username, domain: known.domain })) {
    handle = { username: known.username, domain: known.domain };
  } else {
    try {
      handle = await verifyHandle(app, actor);
      webfingered = handle !== undefined;
    } catch (e) {
      // A known account keeps its verified handle while WebFinger is unreachable.
      if (!known && !opts.forKey) throw e;
    }
    // Unverifiable: a new actor is not created (except for a key); a known one keeps its handle.
    if (!handle && known?.domain) handle = { username: known.username, domain: known.domain };
    if (!handle && opts.forKey) handle = unverifiedHandle(app, actor);
  }
  if (!handle) return undefined;

  let movedToAccountId: Id | null | undefined;
  if (opts.followMoved && actor.movedTo) {
    try {
      movedToAccountId = (await resolveActor(app, actor.movedTo, { followMoved: false }))?.account.id ?? null;
    } catch {
      movedToAccountId = undefined; // unreachable target: only a known one is linked
    }
  }
  const account = upsertRemoteAccount(app, actor, handle.domain, { username: handle.username, webfingered, movedToAccountId });
  scheduleAccountCounts(app, account);
  scheduleFeaturedTagsSync(app, account);
  return { account, keys: listActorKeys(doc) };
}

/**
 * The account of an actor uri: stored, else fetched (signed GET), its handle verified through
 * WebFinger, and stored. `refresh` refetches a known remote account. Undefined when the actor
 * does not exist or is not usable; throws FetchError/FederationError on transient failures.
 * Local uris resolve to local accounts without a fetch.
 */
export async function resolveAccountByUri(app: App, uri: string, opts: { refresh?: boolean } = {}): Promise<Account | undefined> {
  try {
    return (await resolveActor(app, uri, { refresh: opts.refresh, followMoved: true }))?.account;
  } catch (e) {
    if (isPermanent(e)) return undefined;
    throw e;
  }
}

/**
 * The account of an actor document fetched from its own id (a search URL that turned out to be
 * an actor): checked, its handle verified, stored. Undefined when unusable.
 */
export async function resolveAccountFromDocument(app: App, doc: ApObject): Promise<Account | undefined> {
  if (typeof doc.id !== "string") return undefined;
  try {
    return (await resolveActor(app, doc.id, { doc, followMoved: true }))?.account;
  } catch (e) {
    if (isPermanent(e)) return undefined;
    throw e;
  }
}

/**
 * `user@domain` → account: a known one, else WebFinger + actor fetch. `domain` null or ours
 * means a local account (no network). Undefined when it does not exist.
 */
export async function resolveAccountByHandle(app: App, username: string, domain: string | null): Promise<Account | undefined> {
  if (username === "") return undefined;
  if (domain === null || domain === "" || domain.toLowerCase() === app.config.domain.toLowerCase()) {
    return findAccountByHandle(app.db, username, null);
  }
  const d = domain.toLowerCase();
  const known = findAccountByHandle(app.db, username, d);
  const fresh = known?.lastWebfingeredAt != null && app.now() - known.lastWebfingeredAt < WEBFINGER_FRESH_MS;
  if (known && (fresh || known.suspendedAt !== null)) return known;
  if (isSuspendedDomain(app, d)) return known;
  try {
    const found = await webfinger(app, username, d);
    if (!found) return undefined;
    return (await resolveActor(app, found.actorUri, { refresh: true, followMoved: true }))?.account;
  } catch (e) {
    if (known) return known; // stale but ours: better than nothing while the peer is unreachable
    if (isPermanent(e)) return undefined;
    throw e;
  }
}

function keyRefetchFailures(app: App): Map<string, number> {
  let m = app.cache.get("federation:key-refetch-failures") as Map<string, number> | undefined;
  if (!m) app.cache.set("federation:key-refetch-failures", (m = new Map()));
  return m;
}

/** The embedded `publicKey` entry of `doc` with this id, whatever its owner says. */
function embeddedKey(doc: ApObject, keyId: string): ApObject | undefined {
  return asArray(doc.publicKey).find((k): k is ApObject => isObject(k) && k.id === keyId);
}

async function fetchKey(app: App, keyId: string): Promise<{ account: Account; publicKeyPem: string } | undefined> {
  // Mastodon's `#main-key` fragment names a part of the actor; GoToSocial's `…/main-key` path
  // serves a stub actor whose id is the actor's: fetching by the canonical id handles both.
  const doc = await fetchApObject(app, keyId, { exactId: false });
  if (!doc) return undefined;
  if (isActorDocument(doc)) {
    const listed = listActorKeys(doc).find((k) => k.id === keyId && k.pem);
    if (listed) {
      const r = await resolveActor(app, doc.id as string, { doc, followMoved: true, forKey: true });
      return r && { account: r.account, publicKeyPem: listed.pem! };
    }
  }
  // A key document (or a stub that names another owner): the owner must list the key (AP §10.2).
  const entry = embeddedKey(doc, keyId);
  const owner = idOf(doc.owner) ?? idOf(doc.controller) ?? idOf(entry?.owner);
  if (!owner || owner === doc.id) return undefined;
  const r = await resolveActor(app, owner, { refresh: true, followMoved: true, forKey: true });
  const listed = r?.keys.find((k) => k.id === keyId);
  const pem = listed?.pem ?? str(doc.publicKeyPem) ?? str(entry?.publicKeyPem);
  return r && listed && pem ? { account: r.account, publicKeyPem: pem } : undefined;
}

/**
 * The account and public key behind an HTTP-signature key id: a stored key id, else the key id
 * URL is fetched (actor with that key, or a key document whose owner lists it, AP §10.2).
 * `refresh` refetches even when stored (verification failed with the stored key).
 */
export async function resolveAccountByKeyId(
  app: App,
  keyId: string,
  opts: { refresh?: boolean } = {},
): Promise<{ account: Account; publicKeyPem: string } | undefined> {
  // Legacy `acct:user@domain` key ids name an account, whose stored key is meant.
  if (keyId.startsWith("acct:")) {
    const h = parseHandle(keyId);
    const account = h ? await resolveAccountByHandle(app, h.username, h.domain) : undefined;
    return account?.publicKeyPem ? { account, publicKeyPem: account.publicKeyPem } : undefined;
  }
  if (!httpUrl(keyId)) return undefined;
  const stored = findAccountByPublicKeyId(app.db, keyId);
  const usable = stored?.publicKeyPem ? { account: stored, publicKeyPem: stored.publicKeyPem } : undefined;
  if (usable && (!opts.refresh || stored!.domain === null)) return usable;
  if (sameOrigin(keyId, app.baseUrl) || isSuspendedDomain(app, keyId)) return usable;
  const failures = keyRefetchFailures(app);
  const failedAt = failures.get(keyId);
  if (usable && failedAt !== undefined && app.now() - failedAt < KEY_REFETCH_BACKOFF_MS) return usable;
  try {
    const found = await fetchKey(app, keyId);
    failures.delete(keyId);
    return found;
  } catch (e) {
    if (e instanceof FetchError) {
      if (failures.size > 10_000) failures.clear();
      failures.set(keyId, app.now());
    }
    if (isPermanent(e)) return undefined;
    throw e;
  }
}
