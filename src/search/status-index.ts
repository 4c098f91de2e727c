// Writes the status index (migrations/0033_status_search.sql). Services call indexStatuses in
// the transaction of each change that alters a status's document: a post created or edited
// (local or remote), and a local account favouriting, bookmarking, boosting or voting in it
// (or taking that back). Deletions need no call: a trigger drops the entry with the row.
import { type DB, inTx, type Row, stmt, str, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { findAccountsByIds } from "../storage/accounts.ts";
import { findMediaByStatusIds } from "../storage/media-attachments.ts";
import { findPollsByIds } from "../storage/polls.ts";
import { deleteSetting, getSetting } from "../storage/settings.ts";
import { findStatusLinks } from "../storage/status-links.ts";
import { findStatusesByIds } from "../storage/statuses.ts";
import { type StatusDocument, statusDocument } from "./status-document.ts";

/** Settings key: the index still lacks the statuses that existed when it was created. */
export const PENDING_SETTING = "search.statuses_pending";

/** Job {afterId?}: indexes the statuses that predate the index (jobs/handlers/search-index.ts). */
export const REBUILD_JOB = "search.rebuild";
/**
 * Job {accountId, afterId?}: an author changed `indexable`; their public posts are indexed
 * again (search answers follow the flag at once: services/status-search.ts checks it).
 */
export const AUTHOR_JOB = "search.author";

/**
 * Local accounts with the statuses in their library besides their own posts (Mastodon's
 * searchable_by: local_mentioned, local_favorited, local_bookmarked, local_reblogged and the
 * poll's local_voters), one query for a batch.
 */
function libraryOf(db: DB, ids: string): Map<Id, Id[]> {
  const rows = stmt(
    db,
    `SELECT x.sid, x.aid FROM (
       SELECT m.status_id AS sid, m.account_id AS aid FROM json_each(@ids) j CROSS JOIN mentions m ON m.status_id = j.value WHERE m.silent = 0
       UNION SELECT f.status_id, f.account_id FROM json_each(@ids) j CROSS JOIN favourites f ON f.status_id = j.value
       UNION SELECT b.status_id, b.account_id FROM json_each(@ids) j CROSS JOIN bookmarks b ON b.status_id = j.value
       UNION SELECT r.reblog_of_id, r.account_id FROM json_each(@ids) j CROSS JOIN statuses r ON r.reblog_of_id = j.value
       UNION SELECT p.status_id, v.account_id FROM json_each(@ids) j CROSS JOIN polls p ON p.status_id = j.value
         JOIN poll_votes v ON v.poll_id = p.id
     ) x JOIN accounts a ON a.id = x.aid AND a.domain IS NULL`,
  ).all({ ids }) as Row[];
  const out = new Map<Id, Id[]>();
  for (const r of rows) {
    const sid = str(r.sid);
    const list = out.get(sid);
    if (list) list.push(str(r.aid));
    else out.set(sid, [str(r.aid)]);
  }
  return out;
}

/** The documents of a batch of statuses; null for those nobody may find (or gone). */
export function statusDocuments(db: DB, ids: Id[]): Map<Id, StatusDocument | null> {
  const out = new Map<Id, StatusDocument | null>();
  const statuses = findStatusesByIds(db, ids);
  const list = idListJson(statuses.keys());
  const authors = findAccountsByIds(db, [...new Set([...statuses.values()].map((s) => s.accountId))]);
  const media = findMediaByStatusIds(db, statuses.keys());
  const polls = findPollsByIds(db, [...statuses.values()].flatMap((s) => (s.pollId ? [s.pollId] : [])));
  const tags = findStatusLinks(db, statuses.keys()).tags;
  const library = list === "[]" ? new Map<Id, Id[]>() : libraryOf(db, list);
  for (const id of ids) {
    const status = statuses.get(id);
    const author = status && authors.get(status.accountId);
    if (!status || !author) {
      out.set(id, null);
      continue;
    }
    out.set(
      id,
      statusDocument({
        status,
        author,
        media: media.get(id) ?? [],
        pollOptions: status.pollId ? (polls.get(status.pollId)?.options ?? null) : null,
        tags: tags.get(id) ?? [],
        library: library.get(id) ?? [],
      }),
    );
  }
  return out;
}

function writeDocuments(db: DB, docs: Map<Id, StatusDocument | null>): number {
  let written = 0;
  for (const [id, doc] of docs) {
    if (doc) {
      stmt(db, "INSERT OR REPLACE INTO status_search (rowid, text, meta) VALUES (?, ?, ?)").run(BigInt(id), doc.text, doc.meta);
      written++;
    } else {
      stmt(db, "DELETE FROM status_search WHERE rowid = ?").run(BigInt(id));
    }
  }
  return written;
}

/**
 * Brings the index entries of these statuses up to date (in the caller's transaction, or in
 * one of its own): written again, or dropped when nobody may find a status any more.
 */
export function indexStatuses(db: DB, ids: Id[]): void {
  if (ids.length === 0) return;
  inTx(db, () => writeDocuments(db, statusDocuments(db, ids)));
}

/** Ids of live, non-boost statuses after `afterId` in id order (a rebuild's batches). */
function statusIdsAfter(db: DB, afterId: Id, limit: number, authorId?: Id): Id[] {
  const rows = authorId
    ? (stmt(
        db,
        `SELECT id FROM statuses WHERE account_id = @author AND id > @after AND visibility = 'public'
           AND reblog_of_id IS NULL AND deleted_at IS NULL ORDER BY id LIMIT @limit`,
      ).all({ author: BigInt(authorId), after: BigInt(afterId), limit }) as Row[])
    : (stmt(db, "SELECT id FROM statuses WHERE id > @after AND reblog_of_id IS NULL AND deleted_at IS NULL ORDER BY id LIMIT @limit").all({
        after: BigInt(afterId),
        limit,
      }) as Row[]);
  return rows.map((r) => str(r.id));
}

/**
 * One batch of a walk over the statuses in id order, from `afterId` ("0": the start), each
 * batch in its own transaction. Returns the last id done and the number of documents written,
 * or null when none was left. With `authorId`, only that author's public posts (an author who
 * changed `indexable`).
 */
export function indexBatch(db: DB, afterId: Id, limit: number, authorId?: Id): { lastId: Id; written: number; seen: number } | null {
  return inTx(db, () => {
    const ids = statusIdsAfter(db, afterId, limit, authorId);
    if (ids.length === 0) return null;
    return { lastId: ids[ids.length - 1], written: writeDocuments(db, statusDocuments(db, ids)), seen: ids.length };
  });
}

export function countIndexableStatuses(db: DB): number {
  return Number((stmt(db, "SELECT count(*) AS n FROM statuses WHERE reblog_of_id IS NULL AND deleted_at IS NULL").get() as Row).n);
}

/** Empties the status index (a rebuild starts with it). */
export function clearStatusIndex(db: DB): void {
  stmt(db, "INSERT INTO status_search (status_search) VALUES ('delete-all')").run();
}

/** Merges the index's segments into one (after a rebuild): fewer pages to read per query. */
export function optimizeStatusIndex(db: DB): void {
  stmt(db, "INSERT INTO status_search (status_search) VALUES ('optimize')").run();
}

export function isStatusIndexPending(db: DB): boolean {
  return getSetting(db, PENDING_SETTING) === true;
}

export function markStatusIndexBuilt(db: DB): void {
  deleteSetting(db, PENDING_SETTING);
}
