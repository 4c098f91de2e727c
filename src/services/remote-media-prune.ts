import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { mediaStore } from "../media/store.ts";
import {
  type CacheEntry,
  cacheTotals,
  dropCacheEntry,
  listEntriesOldestFirst,
  listOrphanEntries,
  listUnusedEntriesBefore,
} from "../storage/remote-media-cache.ts";

// Pruning the remote media cache (issue 10 part 6): `roost media prune`, the periodic budget
// job, and the storage budget (which calls pruneRemoteMedia with the bytes it wants back).
// A pruned copy is forgotten first (the entity shows remote_url again, in one transaction per
// batch), then its files are removed: a crash in between leaves unreferenced files, never an
// entity pointing at a missing file. A later copy is made by the caching jobs, e.g. when the
// account or the status is fetched again.

export interface PruneOptions {
  /** Copies made longer ago than this (ms) that no local account interacted with go. */
  olderThan?: number;
  /** Then the oldest copies go, interactions or not, until the cache holds at most this. */
  maxBytes?: number;
  /** Count what would go, change nothing. */
  dryRun?: boolean;
}

export interface PruneResult {
  /** Copies removed (or that would be). */
  entries: number;
  /** Their bytes. */
  bytes: number;
  /** Of those, copies nothing showed any more (a deleted status, a changed avatar). */
  orphans: number;
  /** What the cache holds afterwards (or would). */
  remainingBytes: number;
}

const BATCH = 500;

/**
 * Frees remote-cache space: copies nothing shows any more, then those older than `olderThan`
 * that nobody here interacted with (a local reply, favourite, boost or bookmark of the status;
 * a local follower of the account), then the oldest until at most `maxBytes` remain.
 */
export async function pruneRemoteMedia(app: App, opts: PruneOptions = {}): Promise<PruneResult> {
  const chosen = new Map<string, CacheEntry>();
  const key = (e: CacheEntry) => `${e.kind}:${e.ownerId}`;
  const total = cacheTotals(app.db).bytes;
  let freed = 0;
  let orphans = 0;
  const take = (list: CacheEntry[]) => {
    for (const e of list) {
      if (chosen.has(key(e))) continue;
      chosen.set(key(e), e);
      freed += e.bytes;
    }
  };

  // Orphans, then old copies nobody uses: each page is dropped before the next is read (a dry
  // run reads each list whole instead: LIMIT -1 is SQLite's "no limit").
  const cutoff = opts.olderThan === undefined ? undefined : app.now() - opts.olderThan;
  const phases: { list: (limit: number) => CacheEntry[]; orphan: boolean }[] = [{ list: (limit) => listOrphanEntries(app.db, limit), orphan: true }];
  if (cutoff !== undefined) phases.push({ list: (limit) => listUnusedEntriesBefore(app.db, cutoff, limit), orphan: false });
  for (const phase of phases) {
    for (;;) {
      const page = phase.list(opts.dryRun ? -1 : BATCH).filter((e) => !chosen.has(key(e)));
      take(page);
      if (phase.orphan) orphans += page.length;
      if (!opts.dryRun) await dropCacheEntries(app, page);
      if (opts.dryRun || page.length < BATCH) break;
    }
  }

  if (opts.maxBytes !== undefined && total - freed > opts.maxBytes) {
    let after: Parameters<typeof listEntriesOldestFirst>[1] = null;
    const pending: CacheEntry[] = [];
    outer: for (;;) {
      const page = listEntriesOldestFirst(app.db, after, BATCH);
      if (page.length === 0) break;
      for (const e of page) {
        after = { cachedAt: e.cachedAt, ownerId: e.ownerId, kind: e.kind };
        if (chosen.has(key(e))) continue;
        if (total - freed <= opts.maxBytes) break outer;
        chosen.set(key(e), e);
        freed += e.bytes;
        pending.push(e);
      }
    }
    if (!opts.dryRun) await dropCacheEntries(app, pending);
  }
  return { entries: chosen.size, bytes: freed, orphans, remainingBytes: total - freed };
}

/**
 * Forgets copies (batched transactions), then removes their files: a crash in between leaks
 * files, never breaks rows. Also the storage budget's (ops/remote-media-prune.ts).
 */
export async function dropCacheEntries(app: App, entries: CacheEntry[]): Promise<void> {
  for (let i = 0; i < entries.length; i += BATCH) {
    const batch = entries.slice(i, i + BATCH);
    tx(app.db, () => {
      for (const e of batch) dropCacheEntry(app.db, e);
    });
    await mediaStore(app).remove(batch.flatMap((e) => e.files));
  }
}
