import type { App } from "../app.ts";
import { withForeignKeysOff } from "../db/cascade-delete.ts";
import { tx } from "../db/db.ts";
import { type Id, idAt } from "../lib/ids.ts";
import {
  databaseUse,
  deleteRemoteStatusRows,
  incrementalVacuum,
  retireRemoteAccount,
  untouchedRemoteAccounts,
  untouchedRemoteStatuses,
} from "../storage/storage-prune.ts";
import { directoryUsage } from "./disk-usage.ts";
import { addEvicted, type Evicted, evictAccountImages, evictRemoteAttachments, evictStatusesMedia, noneEvicted } from "./remote-media-prune.ts";

// The storage budget (issue 14 part 2). Remote content nobody here touched is a cache of the
// network: past `remoteContentRetentionDays` it goes, and while the instance is over
// `storageBudgetBytes` more of it goes, oldest first, in this order: copies of remote media,
// remote posts, then the profiles of remote accounts nobody here deals with (their rows and
// keys stay). Nothing local is ever pruned. Each batch is its own short transaction, and the
// loop yields between batches, so a running server keeps serving.

const DAY = 86_400_000;
/** What arrived in the last day is never pruned for the budget (people are reading it). */
const BUDGET_FLOOR_MS = DAY;
const BATCH = 100;
/**
 * Remote posts go 2,000 to a transaction: a commit (an fsync under synchronous=FULL) per 100 was
 * most of the time of a large prune, and 2,000 took about 150 us a row against 240 us at 500
 * (500k statuses, loaded machine); a batch holds the write lock a few hundred milliseconds,
 * which readers never wait for in WAL mode. See bench/scenarios/prune.ts.
 */
const STATUS_BATCH = 2_000;
/**
 * `roost prune` (its own process) rests this long between batches of remote posts: the
 * server's writers, polling for the write lock in their busy handler, get a gap to take it
 * (a yield alone leaves none), and its readers a moment of the CPU.
 */
const OWN_CONNECTION_PAUSE_MS = 10;
/** Pages returned to the file system per transaction of the final incremental vacuum. */
const VACUUM_PAGES = 1_000;

export const STORAGE_PRUNE_JOB = "storage.prune";

export interface StorageUse {
  /** Pages in use in the database (free pages are reused before the file grows). */
  databaseBytes: number;
  mediaBytes: number;
  totalBytes: number;
}

export function storageUse(app: App): StorageUse {
  const databaseBytes = databaseUse(app.db).liveBytes;
  const mediaBytes = directoryUsage(app.mediaDir).bytes;
  return { databaseBytes, mediaBytes, totalBytes: databaseBytes + mediaBytes };
}

export interface PruneProgress {
  phase: "media" | "statuses" | "accounts";
  done: number;
}

export interface PruneReport {
  dryRun: boolean;
  budgetBytes: number | null;
  retentionDays: number;
  before: StorageUse;
  /** Measured after the run; for a dry run, estimated. */
  after: StorageUse;
  media: Evicted;
  statuses: { count: number; estimatedBytes: number };
  accounts: { count: number };
  /** Set when the budget could not be met by pruning what may be pruned. */
  warning: string | null;
}

export interface PruneOptions {
  dryRun?: boolean;
  onProgress?: (p: PruneProgress) => void;
  /**
   * The connection is this process's own (`roost prune`, never the live server's): each batch
   * of remote posts runs with foreign keys off, its children deleted explicitly and set-wise
   * (storage/storage-prune.ts): about a quarter less CPU a status (deleting 100k: 32 against
   * 43 us; the rest is the status row itself, its nine indexes and its triggers).
   */
  ownConnection?: boolean;
}

export async function pruneStorage(app: App, opts: PruneOptions = {}): Promise<PruneReport> {
  const dryRun = opts.dryRun === true;
  const now = app.now();
  const budget = app.config.storageBudgetBytes > 0 ? app.config.storageBudgetBytes : null;
  const retentionDays = app.config.remoteContentRetentionDays;
  const retentionCutoff = retentionDays > 0 ? now - retentionDays * DAY : null;
  const before = storageUse(app);
  const use = { ...before };
  const report: PruneReport = { dryRun, budgetBytes: budget, retentionDays, before, after: use, media: noneEvicted(), statuses: { count: 0, estimatedBytes: 0 }, accounts: { count: 0 }, warning: null };
  const over = () => budget !== null && use.totalBytes > budget;
  const progress = (phase: PruneProgress["phase"], done: number) => opts.onProgress?.({ phase, done });
  const mediaFreed = (bytes: number) => {
    use.mediaBytes -= bytes;
    use.totalBytes -= bytes;
  };

  // 1. Copies of remote media: past retention, then oldest first while over budget.
  const media = async (cutoff: number, untilUnder: boolean) => {
    const start = report.media.bytes;
    const e = await evictRemoteAttachments(app, { before: cutoff, dryRun, enough: untilUnder ? (freed) => use.totalBytes - freed <= budget! : undefined });
    addEvicted(report.media, e);
    mediaFreed(report.media.bytes - start);
    progress("media", report.media.items);
  };
  if (retentionCutoff !== null) await media(retentionCutoff, false);
  if (over()) await media(now - BUDGET_FLOOR_MS, true);

  // 2. Remote posts nobody here touched.
  const statuses = async (cutoff: number, untilUnder: boolean) => {
    const beforeId: Id = idAt(cutoff);
    let after: Id = "0";
    for (;;) {
      if (untilUnder && !over()) return;
      const batch = untouchedRemoteStatuses(app.db, after, beforeId, STATUS_BATCH);
      if (batch.length === 0) return;
      let ids = batch.map((c) => c.id);
      if (untilUnder) {
        // As many as the estimate says the budget needs; a real run measures, then goes on.
        let need = use.totalBytes - budget!;
        ids = [];
        for (const c of batch) {
          if (need <= 0) break;
          ids.push(c.id);
          need -= c.estimatedBytes;
        }
      }
      after = ids[ids.length - 1];
      const estimated = batch.slice(0, ids.length).reduce((n, c) => n + c.estimatedBytes, 0);
      const m = await evictStatusesMedia(app, ids, dryRun);
      addEvicted(report.media, m);
      mediaFreed(m.bytes);
      if (dryRun) {
        report.statuses.count += ids.length;
        use.databaseBytes -= estimated;
        use.totalBytes -= estimated;
      } else {
        const remove = () => tx(app.db, () => deleteRemoteStatusRows(app.db, ids));
        report.statuses.count += opts.ownConnection ? withForeignKeysOff(app.db, remove) : remove();
        const db = databaseUse(app.db).liveBytes;
        use.totalBytes += db - use.databaseBytes;
        use.databaseBytes = db;
      }
      report.statuses.estimatedBytes += estimated;
      progress("statuses", report.statuses.count);
      if (opts.ownConnection && !dryRun) await new Promise((r) => setTimeout(r, OWN_CONNECTION_PAUSE_MS));
      else await new Promise((r) => setImmediate(r)); // requests in between
    }
  };
  if (retentionCutoff !== null) await statuses(retentionCutoff, false);
  if (over()) await statuses(now - BUDGET_FLOOR_MS, true);

  // 3. Remote accounts nobody here deals with and no post of which is left: cached images go,
  // the daily profile refresh stops; the row, handle and keys stay.
  const accountCutoff = over() ? now - BUDGET_FLOOR_MS : retentionCutoff;
  if (accountCutoff !== null) {
    let after: Id = "0";
    for (;;) {
      const batch = untouchedRemoteAccounts(app.db, after, accountCutoff, BATCH);
      if (batch.length === 0) break;
      after = batch[batch.length - 1];
      for (const id of batch) {
        const m = await evictAccountImages(app, id, dryRun);
        addEvicted(report.media, m);
        mediaFreed(m.bytes);
      }
      // One commit for the batch, not one per account.
      if (!dryRun) tx(app.db, () => batch.forEach((id) => retireRemoteAccount(app.db, id)));
      report.accounts.count += batch.length;
      progress("accounts", report.accounts.count);
      await new Promise((r) => setImmediate(r));
    }
  }

  if (!dryRun) {
    // In steps: one transaction for all the freed pages would hold the write lock, and grow
    // the WAL by as much, for as long as it takes.
    if (databaseUse(app.db).incrementalVacuum) {
      for (let free = databaseUse(app.db).freeBytes; free > 0; ) {
        incrementalVacuum(app.db, VACUUM_PAGES);
        const left = databaseUse(app.db).freeBytes;
        if (left >= free) break;
        free = left;
        await new Promise((r) => setImmediate(r));
      }
    }
    report.after = storageUse(app);
  }
  if (budget !== null && report.after.totalBytes > budget) {
    report.warning =
      `storage is ${report.after.totalBytes} bytes, over the ${budget}-byte budget, with nothing more that may be pruned: ` +
      "local content and what people here interacted with are kept; raise storageBudgetBytes";
  }
  return report;
}

/** The periodic task: hourly while a budget or a retention is set. */
export function registerStoragePrune(app: App): void {
  if (app.config.storageBudgetBytes <= 0 && app.config.remoteContentRetentionDays <= 0) return;
  app.jobs.every(STORAGE_PRUNE_JOB, 3_600_000, async (a) => {
    const started = Date.now();
    const r = await pruneStorage(a);
    if (r.warning) a.log.warn("storage budget", { warning: r.warning });
    if (r.statuses.count || r.media.items || r.accounts.count) {
      a.log.info("storage pruned", { statuses: r.statuses.count, media: r.media.items, accounts: r.accounts.count, freedBytes: r.before.totalBytes - r.after.totalBytes, ms: Date.now() - started });
    }
  });
}
