// Profile and follow backfill (issue 19 parts 2 and 3): a remote account's recent posts from
// its outbox, and its pinned posts from its featured collection, stored as backfill (no
// notification, fan-out, stream or delivery; ids from the publication time). The caller
// (jobs/handlers/account-backfill.ts) merges them into a follower's feeds when it is a follow.
//
// Outbox items come as Create activities (Mastodon, GoToSocial, Misskey, Akkoma), bare objects
// or ids. An embedded object is trusted only from its page's origin, else fetched from its own.
// Only items on the account's own host are considered: a post is attributed to an actor on its
// host (AP §12), so anything elsewhere cannot be the account's and is not fetched at all.
// Announce items (boosts) are skipped: each would need its original fetched from yet another
// server and stored as a boost, outside these bounds, and Mastodon's own outbox readers skip them.
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import type { Account } from "../storage/accounts.ts";
import { findStatusByLink } from "../storage/status-urls.ts";
import { deletePin, insertPin, isPinned, listPinnedStatusIds } from "../storage/status-pins.ts";
import type { Status } from "../storage/statuses.ts";
import { OutOfTime, politely } from "./backfill-hosts.ts";
import { collectionItems, type PageWalk } from "./collection-pages.ts";
import { domainPolicy } from "./domain-policy.ts";
import { fetchApObject } from "./fetch-object.ts";
import { hasType, hostOf, httpUrl, idOf, isObject, sameOrigin } from "./parse/common.ts";
import { isNoteLike } from "./parse/note.ts";
import { resolveStatusFromDocument } from "./resolve/statuses.ts";
import type { ApObject } from "./types.ts";
import { mapLimited } from "../lib/map-limited.ts";

export interface OutboxBackfillOptions {
  /** Outbox posts looked at (stored or new), newest first. */
  maxPosts: number;
  /** Also read the featured collection and record its posts as the account's pins. */
  pins: boolean;
  /** Called with 1 for each post stored (an AsyncRefresh's result_count). */
  onStored?: (n: number) => void;
}

/** Featured items read at most: Mastodon pins 5 at most; other servers a few more. */
const FEATURED_MAX = 20;

interface Run {
  app: App;
  account: Account;
  signal: AbortSignal;
  pages: number;
  /** Posts still to look at in the current collection. */
  posts: number;
  stored: number;
  onStored?: (n: number) => void;
}

const outOfTime = (r: Run) => r.signal.aborted;

function logSkip(r: Run, e: unknown, what: string, url: string): void {
  if (e instanceof OutOfTime) return;
  r.app.log.debug(`outbox backfill: ${what} not fetched`, { url, err: e instanceof Error ? e.message : String(e) });
}

async function fetchDoc(r: Run, url: string): Promise<ApObject | undefined> {
  if (outOfTime(r) || !httpUrl(url)) return undefined;
  try {
    return await politely(r.app, url, r.signal, () => fetchApObject(r.app, url, { signal: r.signal }));
  } catch (e) {
    logSkip(r, e, "page", url);
    return undefined;
  }
}

/** The run's view of a collection; `failed` tells whether a page could not be had. */
const pageWalk = (r: Run): PageWalk & { failed: boolean } => ({
  failed: false,
  get pages() {
    return r.pages;
  },
  set pages(n: number) {
    r.pages = n;
  },
  stop: () => outOfTime(r) || r.posts <= 0,
  async fetch(id) {
    const doc = await fetchDoc(r, id);
    if (!doc) this.failed = true;
    return doc;
  },
});

/**
 * What an item names: its uri, and the object itself when it came embedded from its own
 * origin. Announces, other activities and unusable items name nothing.
 */
function itemTarget(item: unknown, from: string): { uri: string; embedded?: ApObject } | undefined {
  if (typeof item === "string") return httpUrl(item) ? { uri: item } : undefined;
  if (!isObject(item)) return undefined;
  const object = hasType(item, "Create") ? item.object : isNoteLike(item) ? item : undefined;
  const uri = httpUrl(idOf(object));
  if (!uri) return undefined;
  const embedded = isObject(object) && isNoteLike(object) && sameOrigin(uri, from) ? object : undefined;
  return { uri, embedded };
}

/** The account's post named by an item: stored, or fetched (from its own origin) and stored. */
async function postOf(r: Run, item: unknown, from: string): Promise<Status | undefined> {
  const target = itemTarget(item, from);
  if (!target || r.posts <= 0 || hostOf(target.uri) !== hostOf(r.account.uri)) return undefined;
  const known = findStatusByLink(r.app.db, target.uri, { remoteOnly: true });
  if (known) {
    if (known.accountId !== r.account.id) return undefined;
    r.posts--;
    return known;
  }
  r.posts--;
  try {
    const doc =
      target.embedded ??
      (await politely(r.app, target.uri, r.signal, () => fetchApObject(r.app, target.uri, { exactId: false, signal: r.signal })));
    if (!doc) return undefined;
    // Found through another URL: the canonical id may be stored already.
    const had = typeof doc.id === "string" && !!findStatusByLink(r.app.db, doc.id, { remoteOnly: true });
    const status = await resolveStatusFromDocument(r.app, doc, { backfill: true, signal: r.signal });
    if (!status || status.accountId !== r.account.id) return undefined;
    if (!had) {
      r.stored++;
      r.onStored?.(1);
    }
    return status;
  } catch (e) {
    logSkip(r, e, "post", target.uri);
    return undefined;
  }
}

async function walkOutbox(r: Run, maxPosts: number): Promise<void> {
  const url = r.account.outboxUrl;
  if (!url) return;
  r.posts = maxPosts;
  const outbox = await fetchDoc(r, url);
  if (!outbox) return;
  // A batch of items at a time, several at once (the host still sees at most
  // backfillHostConcurrency requests): an outbox of bare ids would otherwise go one by one.
  let batch: { item: unknown; from: string }[] = [];
  for await (const entry of collectionItems(pageWalk(r), outbox, outbox.id as string)) {
    batch.push(entry);
    if (batch.length >= ITEMS_AT_ONCE * 2) {
      await mapLimited(batch, ITEMS_AT_ONCE, (e) => postOf(r, e.item, e.from));
      batch = [];
    }
  }
  await mapLimited(batch, ITEMS_AT_ONCE, (e) => postOf(r, e.item, e.from));
}

const ITEMS_AT_ONCE = 4;

/**
 * The featured collection's posts become the account's pins, newest pin first as listed; pins
 * no longer listed are removed. Only after the whole collection was read: a walk cut short
 * (out of time, a page that failed) changes nothing it did not see.
 */
async function syncPins(r: Run): Promise<void> {
  const url = r.account.featuredUrl;
  if (!url) return;
  const featured = await fetchDoc(r, url);
  if (!featured) return;
  r.posts = FEATURED_MAX;
  const pinned: Status[] = [];
  const walk = pageWalk(r);
  for await (const { item, from } of collectionItems(walk, featured, featured.id as string)) {
    const status = await postOf(r, item, from);
    if (status && !status.reblogOfId && status.visibility !== "direct") pinned.push(status);
  }
  const complete = !walk.failed && !outOfTime(r) && r.posts > 0;
  const { app, account } = r;
  tx(app.db, () => {
    const keep = new Set(pinned.map((s) => s.id));
    if (complete) for (const id of listPinnedStatusIds(app.db, account.id, 1000)) if (!keep.has(id)) deletePin(app.db, account.id, id);
    for (const s of [...pinned].reverse()) {
      if (isPinned(app.db, account.id, s.id)) continue;
      insertPin(app.db, { id: app.ids.next(), accountId: account.id, statusId: s.id, createdAt: app.now() });
    }
  });
}

/**
 * Backfills a remote account: its outbox's newest `maxPosts` posts and, with `pins`, its
 * featured collection. Nothing is asked of a suspended account or domain. Bounded by
 * outboxBackfillMaxPages and `signal` (the job's time limit). Returns the posts stored.
 */
export async function backfillAccountPosts(app: App, account: Account, signal: AbortSignal, opts: OutboxBackfillOptions): Promise<number> {
  if (account.domain === null || account.suspendedAt !== null || domainPolicy(app, account.domain).suspended) return 0;
  const r: Run = { app, account, signal, pages: app.config.outboxBackfillMaxPages, posts: 0, stored: 0, onStored: opts.onStored };
  await walkOutbox(r, opts.maxPosts);
  if (opts.pins) {
    r.pages = app.config.outboxBackfillMaxPages;
    await syncPins(r);
  }
  return r.stored;
}
