import { type DB, type Row, stmt, str, num, numOrNull } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type Status, rowToStatus } from "./statuses.ts";

export interface AccountArchive {
  id: Id;
  accountId: Id;
  file: string | null;
  size: number | null;
  createdAt: number;
  finishedAt: number | null;
}

function rowToArchive(r: Row): AccountArchive {
  return { id: str(r.id), accountId: str(r.account_id), file: (r.file as string | null) ?? null, size: numOrNull(r.size), createdAt: num(r.created_at), finishedAt: numOrNull(r.finished_at) };
}

export function insertAccountArchive(db: DB, a: { id: Id; accountId: Id; createdAt: number }): void {
  stmt(db, "INSERT INTO account_archives (id, account_id, created_at) VALUES (?, ?, ?)").run(BigInt(a.id), BigInt(a.accountId), a.createdAt);
}

export function findAccountArchive(db: DB, id: Id): AccountArchive | undefined {
  const r = stmt(db, "SELECT * FROM account_archives WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToArchive(r);
}

export function listAccountArchives(db: DB, accountId: Id): AccountArchive[] {
  return (stmt(db, "SELECT * FROM account_archives WHERE account_id = ? ORDER BY id DESC LIMIT 10").all(BigInt(accountId)) as Row[]).map(rowToArchive);
}

export function markArchiveWritten(db: DB, id: Id, file: string, size: number, now: number): void {
  stmt(db, "UPDATE account_archives SET file = ?, size = ?, finished_at = ? WHERE id = ?").run(file, size, now, BigInt(id));
}

export function listArchivesCreatedBefore(db: DB, before: number): AccountArchive[] {
  return (stmt(db, "SELECT * FROM account_archives WHERE created_at < ? ORDER BY id LIMIT 500").all(before) as Row[]).map(rowToArchive);
}

export function deleteAccountArchive(db: DB, id: Id): void {
  stmt(db, "DELETE FROM account_archives WHERE id = ?").run(BigInt(id));
}

/** The account's posts and boosts (not deleted), oldest first, by keyset on id. */
export function pageOwnStatuses(db: DB, accountId: Id, afterId: Id, limit: number): Status[] {
  return (
    stmt(db, "SELECT * FROM statuses WHERE account_id = ? AND id > ? AND deleted_at IS NULL ORDER BY id LIMIT ?").all(BigInt(accountId), BigInt(afterId), limit) as Row[]
  ).map(rowToStatus);
}

export function iterateFavouritedUris(db: DB, accountId: Id): IterableIterator<Row> {
  return stmt(
    db,
    "SELECT s.uri AS uri FROM favourites f JOIN statuses s ON s.id = f.status_id WHERE f.account_id = ? AND s.deleted_at IS NULL ORDER BY f.id",
  ).iterate(BigInt(accountId)) as IterableIterator<Row>;
}

/** The stored files of the account's attached media (originals). */
export function listOwnMediaFiles(db: DB, accountId: Id): string[] {
  return (
    stmt(db, "SELECT file FROM media_attachments WHERE account_id = ? AND status_id IS NOT NULL AND file IS NOT NULL ORDER BY id").all(BigInt(accountId)) as Row[]
  ).map((r) => String(r.file));
}
