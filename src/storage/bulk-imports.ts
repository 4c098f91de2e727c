import { type DB, type Row, stmt, str, num, numOrNull, bool } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export type ImportType = "following" | "blocking" | "muting" | "domain_blocking" | "bookmarks" | "lists";

export interface BulkImport {
  id: Id;
  accountId: Id;
  type: ImportType;
  overwrite: boolean;
  state: "in_progress" | "finished";
  originalFilename: string;
  totalItems: number;
  processedItems: number;
  importedItems: number;
  createdAt: number;
  finishedAt: number | null;
}

export interface BulkImportRow {
  id: Id;
  data: Record<string, unknown>;
  error: string | null;
}

function rowToImport(r: Row): BulkImport {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    type: r.type as ImportType,
    overwrite: bool(r.overwrite),
    state: r.state as BulkImport["state"],
    originalFilename: String(r.original_filename),
    totalItems: num(r.total_items),
    processedItems: num(r.processed_items),
    importedItems: num(r.imported_items),
    createdAt: num(r.created_at),
    finishedAt: numOrNull(r.finished_at),
  };
}

export function insertBulkImport(db: DB, i: BulkImport, rows: { id: Id; data: Record<string, unknown> }[]): void {
  stmt(
    db,
    `INSERT INTO bulk_imports (id, account_id, type, overwrite, state, original_filename, total_items, created_at)
     VALUES (@id, @accountId, @type, @overwrite, 'in_progress', @name, @total, @createdAt)`,
  ).run({ id: BigInt(i.id), accountId: BigInt(i.accountId), type: i.type, overwrite: i.overwrite ? 1 : 0, name: i.originalFilename, total: rows.length, createdAt: i.createdAt });
  const ins = stmt(db, "INSERT INTO bulk_import_rows (id, bulk_import_id, data) VALUES (?, ?, ?)");
  for (const r of rows) ins.run(BigInt(r.id), BigInt(i.id), JSON.stringify(r.data));
}

export function findBulkImport(db: DB, id: Id): BulkImport | undefined {
  const r = stmt(db, "SELECT * FROM bulk_imports WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToImport(r);
}

export function listBulkImports(db: DB, accountId: Id, limit: number): BulkImport[] {
  return (stmt(db, "SELECT * FROM bulk_imports WHERE account_id = ? ORDER BY id DESC LIMIT ?").all(BigInt(accountId), limit) as Row[]).map(rowToImport);
}

export function pendingImportRows(db: DB, importId: Id, limit: number): BulkImportRow[] {
  const rows = stmt(db, "SELECT id, data FROM bulk_import_rows WHERE bulk_import_id = ? AND processed = 0 ORDER BY id LIMIT ?").all(BigInt(importId), limit) as Row[];
  return rows.map((r) => ({ id: str(r.id), data: JSON.parse(String(r.data)) as Record<string, unknown>, error: null }));
}

/** Marks a row done (error null: imported) and moves the import's counters with it. */
export function finishImportRow(db: DB, importId: Id, rowId: Id, error: string | null): void {
  stmt(db, "UPDATE bulk_import_rows SET processed = 1, error = ? WHERE id = ?").run(error, BigInt(rowId));
  stmt(db, "UPDATE bulk_imports SET processed_items = processed_items + 1, imported_items = imported_items + ? WHERE id = ?").run(error ? 0 : 1, BigInt(importId));
}

export function markImportFinished(db: DB, importId: Id, now: number): void {
  stmt(db, "UPDATE bulk_imports SET state = 'finished', finished_at = ? WHERE id = ?").run(now, BigInt(importId));
}

/** The rows that failed, with their data, for the page's report. */
export function failedImportRows(db: DB, importId: Id, limit: number): BulkImportRow[] {
  const rows = stmt(db, "SELECT id, data, error FROM bulk_import_rows WHERE bulk_import_id = ? AND error IS NOT NULL ORDER BY id LIMIT ?").all(BigInt(importId), limit) as Row[];
  return rows.map((r) => ({ id: str(r.id), data: JSON.parse(String(r.data)) as Record<string, unknown>, error: String(r.error) }));
}

/** Every row's data (for overwrite: what the file keeps). */
export function importRowData(db: DB, importId: Id): Record<string, unknown>[] {
  return (stmt(db, "SELECT data FROM bulk_import_rows WHERE bulk_import_id = ? ORDER BY id").all(BigInt(importId)) as Row[]).map((r) => JSON.parse(String(r.data)));
}
