import { type DB, type Row, stmt, str, num, numOrNull, bool } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export type PostImportState = "queued" | "in_progress" | "finished" | "failed";

export interface PostImport {
  id: Id;
  accountId: Id;
  file: string | null;
  originalFilename: string;
  deliver: boolean;
  state: PostImportState;
  error: string | null;
  totalItems: number;
  processedItems: number;
  importedItems: number;
  boostsSkipped: number;
  otherSkipped: number;
  createdAt: number;
  finishedAt: number | null;
}

export interface PostImportItem {
  id: Id;
  published: number;
  sourceUri: string;
  data: Record<string, unknown>;
  statusId: Id | null;
  note: string | null;
}

function rowToImport(r: Row): PostImport {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    file: (r.file as string | null) ?? null,
    originalFilename: String(r.original_filename),
    deliver: bool(r.deliver),
    state: r.state as PostImportState,
    error: (r.error as string | null) ?? null,
    totalItems: num(r.total_items),
    processedItems: num(r.processed_items),
    importedItems: num(r.imported_items),
    boostsSkipped: num(r.boosts_skipped),
    otherSkipped: num(r.other_skipped),
    createdAt: num(r.created_at),
    finishedAt: numOrNull(r.finished_at),
  };
}

function rowToItem(r: Row): PostImportItem {
  return {
    id: str(r.id),
    published: num(r.published),
    sourceUri: String(r.source_uri),
    data: JSON.parse(String(r.data)) as Record<string, unknown>,
    statusId: r.status_id === null || r.status_id === undefined ? null : str(r.status_id),
    note: (r.note as string | null) ?? null,
  };
}

export function insertPostImport(db: DB, i: { id: Id; accountId: Id; file: string; originalFilename: string; deliver: boolean; createdAt: number }): void {
  stmt(
    db,
    `INSERT INTO post_imports (id, account_id, file, original_filename, deliver, created_at)
     VALUES (@id, @accountId, @file, @name, @deliver, @createdAt)`,
  ).run({ id: BigInt(i.id), accountId: BigInt(i.accountId), file: i.file, name: i.originalFilename, deliver: i.deliver ? 1 : 0, createdAt: i.createdAt });
}

export function findPostImport(db: DB, id: Id): PostImport | undefined {
  const r = stmt(db, "SELECT * FROM post_imports WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToImport(r);
}

export function listPostImports(db: DB, accountId: Id, limit: number): PostImport[] {
  return (stmt(db, "SELECT * FROM post_imports WHERE account_id = ? ORDER BY id DESC LIMIT ?").all(BigInt(accountId), limit) as Row[]).map(rowToImport);
}

/** The archive's listing is stored: the import moves on to the posts. */
export function startPostImportItems(
  db: DB,
  importId: Id,
  items: { id: Id; published: number; sourceUri: string; data: string }[],
  skipped: { boosts: number; other: number },
): void {
  const ins = stmt(db, "INSERT INTO post_import_items (id, post_import_id, published, source_uri, data) VALUES (?, ?, ?, ?, ?)");
  for (const it of items) ins.run(BigInt(it.id), BigInt(importId), it.published, it.sourceUri, it.data);
  stmt(db, "UPDATE post_imports SET state = 'in_progress', total_items = ?, boosts_skipped = ?, other_skipped = ? WHERE id = ?").run(
    items.length,
    skipped.boosts,
    skipped.other,
    BigInt(importId),
  );
}

/** The next posts to import, oldest first (parents before their replies). */
export function pendingPostImportItems(db: DB, importId: Id, limit: number): PostImportItem[] {
  const rows = stmt(db, "SELECT * FROM post_import_items WHERE post_import_id = ? AND processed = 0 ORDER BY published, id LIMIT ?").all(BigInt(importId), limit) as Row[];
  return rows.map(rowToItem);
}

/** Marks an item done (statusId null: skipped) and moves the counters with it. */
export function finishPostImportItem(db: DB, importId: Id, itemId: Id, statusId: Id | null, note: string | null): void {
  stmt(db, "UPDATE post_import_items SET processed = 1, status_id = ?, note = ? WHERE id = ?").run(statusId === null ? null : BigInt(statusId), note, BigInt(itemId));
  stmt(db, "UPDATE post_imports SET processed_items = processed_items + 1, imported_items = imported_items + ? WHERE id = ?").run(statusId === null ? 0 : 1, BigInt(importId));
}

export function finishPostImport(db: DB, importId: Id, now: number, error: string | null = null): void {
  stmt(db, "UPDATE post_imports SET state = ?, error = ?, file = NULL, finished_at = ? WHERE id = ?").run(error ? "failed" : "finished", error, now, BigInt(importId));
}

/** The items with a note (skipped, or imported in part), for the page's report. */
export function notedPostImportItems(db: DB, importId: Id, limit: number): PostImportItem[] {
  const rows = stmt(db, "SELECT * FROM post_import_items WHERE post_import_id = ? AND note IS NOT NULL ORDER BY published, id LIMIT ?").all(BigInt(importId), limit) as Row[];
  return rows.map(rowToItem);
}

export function countNotedPostImportItems(db: DB, importId: Id): number {
  return num((stmt(db, "SELECT count(*) AS n FROM post_import_items WHERE post_import_id = ? AND note IS NOT NULL").get(BigInt(importId)) as Row).n);
}

export function findImportedStatusId(db: DB, accountId: Id, sourceUri: string): Id | undefined {
  const r = stmt(db, "SELECT status_id FROM imported_statuses WHERE account_id = ? AND source_uri = ?").get(BigInt(accountId), sourceUri) as Row | undefined;
  return r ? str(r.status_id) : undefined;
}

export function insertImportedStatus(db: DB, accountId: Id, sourceUri: string, statusId: Id): void {
  stmt(db, "INSERT OR IGNORE INTO imported_statuses (account_id, source_uri, status_id) VALUES (?, ?, ?)").run(BigInt(accountId), sourceUri, BigInt(statusId));
}
