import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { dropCacheEntries } from "../services/remote-media-prune.ts";
import { type CacheEntry, listEntriesOfAccount, listEntriesOfStatuses, listEntriesOldestFirst } from "../storage/remote-media-cache.ts";

// The storage budget's first resort: local copies of remote media (attachments, avatars,
// headers) from the remote media cache (services/remote-media-prune.ts keeps that cache within
// its own byte budget; this module decides what goes for the storage budget). Evicting a copy
// leaves the entity pointing at the origin's URL, so nothing the API shows disappears.

export interface Evicted {
  /** Copies that went. */
  items: number;
  files: number;
  bytes: number;
}

export const noneEvicted = (): Evicted => ({ items: 0, files: 0, bytes: 0 });

const BATCH = 200;

async function evict(app: App, entries: CacheEntry[], out: Evicted, dryRun: boolean): Promise<void> {
  if (!dryRun) await dropCacheEntries(app, entries);
  for (const e of entries) {
    out.items++;
    out.files += e.files.length;
    out.bytes += e.bytes;
  }
}

/**
 * Evicts copies made before `before` (ms), oldest first, until `enough(bytesFreedSoFar)` says
 * so (never, without it).
 */
export async function evictRemoteAttachments(app: App, opts: { before: number; dryRun: boolean; enough?: (freed: number) => boolean }): Promise<Evicted> {
  const out = noneEvicted();
  let after: CacheEntry | null = null;
  for (;;) {
    const batch = listEntriesOldestFirst(app.db, after, BATCH);
    const chosen: CacheEntry[] = [];
    let done = batch.length < BATCH;
    let freed = out.bytes;
    for (const e of batch) {
      if (e.cachedAt >= opts.before || opts.enough?.(freed)) {
        done = true;
        break;
      }
      chosen.push(e);
      freed += e.bytes;
    }
    await evict(app, chosen, out, opts.dryRun);
    if (done || batch.length === 0) return out;
    after = batch[batch.length - 1];
    await new Promise((r) => setImmediate(r)); // requests in between
  }
}

/** Evicts the copies of these statuses' attachments (before the statuses themselves go). */
export async function evictStatusesMedia(app: App, statusIds: Id[], dryRun: boolean): Promise<Evicted> {
  const out = noneEvicted();
  await evict(app, listEntriesOfStatuses(app.db, statusIds), out, dryRun);
  return out;
}

/** Evicts a remote account's cached avatar and header. */
export async function evictAccountImages(app: App, accountId: Id, dryRun: boolean): Promise<Evicted> {
  const out = noneEvicted();
  await evict(app, listEntriesOfAccount(app.db, accountId), out, dryRun);
  return out;
}

export function addEvicted(into: Evicted, e: Evicted): void {
  into.items += e.items;
  into.files += e.files;
  into.bytes += e.bytes;
}
