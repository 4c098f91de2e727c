import { deleteCascading } from "../db/cascade-delete.ts";
import { type DB, type Row, idListJson, num, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { deleteRemoteStatusesMedia } from "./media-attachments.ts";

// SQL of the storage budget (ops/storage-prune.ts): which remote content nobody here touched,
// oldest first, and its removal. Pruning is eviction from a cache of the network, not a
// deletion on it: the posts still exist at their origin, so no counter is adjusted (the
// author's statuses_count, a parent's replies_count stay what the network says).

/**
 * A remote status stays while anyone here favourited, boosted, bookmarked, pinned, replied
 * to, voted in, filtered, reported or was mentioned in or notified about it, while it is a
 * boost of or a reply to something of ours, or while a boost of it newer than `before` exists
 * (a followed account's recent boost shows it in home feeds).
 */
const UNTOUCHED = `
  s.local = 0
  AND NOT EXISTS (SELECT 1 FROM favourites f JOIN accounts a ON a.id = f.account_id WHERE f.status_id = s.id AND a.domain IS NULL)
  AND NOT EXISTS (SELECT 1 FROM bookmarks b WHERE b.status_id = s.id)
  AND NOT EXISTS (SELECT 1 FROM status_pins p WHERE p.status_id = s.id)
  AND NOT EXISTS (SELECT 1 FROM statuses r WHERE r.reblog_of_id = s.id AND (r.local = 1 OR r.id >= @before))
  AND NOT EXISTS (SELECT 1 FROM statuses r WHERE r.in_reply_to_id = s.id AND r.local = 1)
  AND NOT EXISTS (SELECT 1 FROM statuses o WHERE o.id = s.reblog_of_id AND o.local = 1)
  AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = s.in_reply_to_account_id AND a.domain IS NULL)
  AND NOT EXISTS (SELECT 1 FROM mentions m JOIN accounts a ON a.id = m.account_id WHERE m.status_id = s.id AND a.domain IS NULL)
  AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.status_id = s.id)
  AND NOT EXISTS (SELECT 1 FROM polls pl JOIN poll_votes v ON v.poll_id = pl.id JOIN accounts a ON a.id = v.account_id
                  WHERE pl.status_id = s.id AND a.domain IS NULL)
  AND NOT EXISTS (SELECT 1 FROM filter_statuses fs WHERE fs.status_id = s.id)
  AND NOT EXISTS (SELECT 1 FROM reports rp, json_each(rp.status_ids) j WHERE j.value = CAST(s.id AS TEXT))`;

export interface PruneCandidate {
  id: Id;
  /** Rough bytes the row and its index entries take (for --dry-run's estimate). */
  estimatedBytes: number;
}

/** Untouched remote statuses with `after` < id < `before`, oldest first. */
export function untouchedRemoteStatuses(db: DB, after: Id, before: Id, limit: number): PruneCandidate[] {
  const rows = stmt(
    db,
    `SELECT s.id, 400 + length(s.content) + length(s.spoiler_text) + length(s.uri) + coalesce(length(s.url), 0) AS est
     FROM statuses s WHERE s.id > @after AND s.id < @before AND ${UNTOUCHED}
     ORDER BY s.id LIMIT @limit`,
  ).all({ after: BigInt(after), before: BigInt(before), limit }) as Row[];
  return rows.map((r) => ({ id: str(r.id), estimatedBytes: num(r.est) }));
}

/**
 * Removes remote statuses (the caller's transaction) with their media rows (cached files were
 * evicted first) and every row that refers to them: boosts, mentions, tags, edits, polls and
 * their votes, feed rows go; references that are kept (a conversation's last status) are
 * cleared. The children go set-wise, a statement per table for the batch, found in the schema
 * (db/cascade-delete.ts): with foreign keys off (the CLI's own connection) that is all the
 * work; with them on, SQLite's per-row checks then find nothing. Returns the statuses removed.
 */
export function deleteRemoteStatusRows(db: DB, ids: Id[]): number {
  deleteRemoteStatusesMedia(db, ids);
  return deleteCascading(db, "statuses", "SELECT id FROM statuses WHERE local = 0 AND id IN (SELECT value FROM json_each(@ids))", { ids: idListJson(ids) });
}

/**
 * Remote accounts nobody here follows, is followed by, asked to follow, blocks, mutes, lists,
 * endorses, noted, mentioned, was notified by or reported, with no status stored, and whose
 * profile is still refreshed (fetched_at set): created before `before`, oldest first.
 */
export function untouchedRemoteAccounts(db: DB, after: Id, before: number, limit: number): Id[] {
  const rows = stmt(
    db,
    `SELECT a.id FROM accounts a
     WHERE a.id > @after AND a.domain IS NOT NULL AND a.suspended_at IS NULL AND a.fetched_at IS NOT NULL AND a.created_at < @before
       AND NOT EXISTS (SELECT 1 FROM statuses s WHERE s.account_id = a.id)
       AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.account_id = a.id)
       AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.target_account_id = a.id)
       AND NOT EXISTS (SELECT 1 FROM follow_requests f WHERE f.account_id = a.id)
       AND NOT EXISTS (SELECT 1 FROM follow_requests f WHERE f.target_account_id = a.id)
       AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.target_account_id = a.id)
       AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.target_account_id = a.id)
       AND NOT EXISTS (SELECT 1 FROM list_accounts l WHERE l.account_id = a.id)
       AND NOT EXISTS (SELECT 1 FROM account_pins p WHERE p.target_account_id = a.id)
       AND NOT EXISTS (SELECT 1 FROM account_notes n WHERE n.target_account_id = a.id)
       AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.account_id = a.id)
       AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.from_account_id = a.id)
       AND NOT EXISTS (SELECT 1 FROM reports r WHERE r.target_account_id = a.id)
     ORDER BY a.id LIMIT @limit`,
  ).all({ after: BigInt(after), before, limit }) as Row[];
  return rows.map((r) => str(r.id));
}

/**
 * Stops the daily profile refresh of an account nobody here cares about (the row, its key and
 * its handle stay: signatures still verify; resolving it again refreshes it).
 */
export function retireRemoteAccount(db: DB, id: Id): void {
  stmt(db, "UPDATE accounts SET fetched_at = NULL WHERE id = ? AND domain IS NOT NULL").run(BigInt(id));
}

export interface DatabaseUse {
  /** Bytes of pages in use: the file less its free pages (SQLite reuses those first). */
  liveBytes: number;
  freeBytes: number;
  incrementalVacuum: boolean;
}

export function databaseUse(db: DB): DatabaseUse {
  const pageSize = num(db.pragma("page_size", { simple: true }));
  const pages = num(db.pragma("page_count", { simple: true }));
  const free = num(db.pragma("freelist_count", { simple: true }));
  return { liveBytes: (pages - free) * pageSize, freeBytes: free * pageSize, incrementalVacuum: num(db.pragma("auto_vacuum", { simple: true })) === 2 };
}

/** Returns up to `pages` free pages to the file system (auto_vacuum=INCREMENTAL databases only). */
export function incrementalVacuum(db: DB, pages: number): void {
  db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
}
