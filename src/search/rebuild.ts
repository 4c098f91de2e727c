// `roost search reindex`: both indexes rebuilt from the tables. The status index is emptied
// first and refilled in batches (each its own transaction), so a running server keeps serving
// and indexing new posts meanwhile; its searches see the refilled part only until the end.
import { type DB, stmt, tx } from "../db/db.ts";
import { clearStatusIndex, countIndexableStatuses, indexBatch, markStatusIndexBuilt, optimizeStatusIndex } from "./status-index.ts";

const BATCH = 1000;

export interface RebuildResult {
  /** Statuses read (live, not boosts). */
  statuses: number;
  /** Statuses someone may find, now in the index. */
  indexed: number;
  accounts: number;
}

/** Rebuilds the account name index from `accounts` (one transaction). */
export function rebuildAccountIndex(db: DB): number {
  return tx(db, () => {
    stmt(db, "INSERT INTO account_search (account_search) VALUES ('delete-all')").run();
    return stmt(db, "INSERT INTO account_search (rowid, username, display_name) SELECT id, username, display_name FROM accounts").run().changes;
  });
}

/** Rebuilds both indexes; `onProgress` hears (statuses done, statuses in all) after each batch. */
export async function rebuildSearchIndexes(db: DB, onProgress?: (done: number, total: number) => void): Promise<RebuildResult> {
  const accounts = rebuildAccountIndex(db);
  const total = countIndexableStatuses(db);
  clearStatusIndex(db);
  onProgress?.(0, total);
  let cursor = "0";
  let statuses = 0;
  let indexed = 0;
  for (;;) {
    const b = indexBatch(db, cursor, BATCH);
    if (!b) break;
    cursor = b.lastId;
    statuses += b.seen;
    indexed += b.written;
    onProgress?.(Math.min(statuses, total), total);
    // Signals (Ctrl-C) and the progress output get their turn between batches.
    await new Promise((r) => setImmediate(r));
  }
  optimizeStatusIndex(db);
  markStatusIndexBuilt(db);
  onProgress?.(total, total);
  return { statuses, indexed, accounts };
}
