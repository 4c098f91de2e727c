import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { dropPendingSince, pendingMark, runAfterCommit } from "./after-commit.ts";
import { markReadOnlyTx } from "./row-changes.ts";

export type DB = Database.Database;
export type Row = Record<string, unknown>;

/**
 * SQLite's page cache per connection, in KiB. better-sqlite3 builds SQLite with 16 MiB
 * (SQLITE_DEFAULT_CACHE_SIZE=-16000), malloc'd page by page as queries touch new pages and
 * never given back: on a growing database the server's RSS crept up ~1 MB a minute under the
 * soak's load until those 16 MiB were full (bench/scenarios/soak.ts). The kernel's file cache
 * holds the database anyway, so a miss costs a pread of a cached page, not a disk read; 4 MiB
 * keep the hot pages (recent statuses, feed and job indexes) of a small instance.
 */
export const PAGE_CACHE_KIB = 4096;

/**
 * Opens the database with roost's pragmas. Integers come back as BigInt (defaultSafeIntegers):
 * 64-bit ids must never pass through a JS number. Row mappers convert ids with `str()` and
 * counts/timestamps with `num()`.
 */
export function openDatabase(file: string): DB {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("busy_timeout = 5000");
  // A new database returns the pages pruning frees to the file system (PRAGMA
  // incremental_vacuum, ops/storage-prune.ts); an existing one keeps its mode (only VACUUM
  // changes it) and reuses free pages before it grows.
  db.pragma("auto_vacuum = INCREMENTAL");
  db.pragma("journal_mode = WAL");
  // An acknowledged write survives a power cut. The server moves this fsync off its event
  // loop (db/commit-sync.ts: NORMAL plus a shared fdatasync before each write's answer).
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  // The IN-list and sort b-trees of page queries stay in memory, never in temp files.
  db.pragma("temp_store = MEMORY");
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  db.defaultSafeIntegers(true);
  return db;
}

const caches = new WeakMap<DB, Map<string, Database.Statement>>();

/**
 * Rows this connection has inserted, updated or deleted since it opened (SQLite's
 * total_changes()): compared before and after some work, it tells whether that work wrote.
 */
export function totalChanges(db: DB): bigint {
  return (stmt(db, "SELECT total_changes() AS n").get() as { n: bigint }).n;
}

/** Prepares `sql` once per database and caches the statement. */
export function stmt(db: DB, sql: string): Database.Statement {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  let s = cache.get(sql);
  if (!s) cache.set(sql, (s = db.prepare(sql)));
  return s;
}

/** How many prepared statements `db`'s cache holds (each keeps native memory in SQLite). */
export function cachedStatementCount(db: DB): number {
  return caches.get(db)?.size ?? 0;
}

/**
 * Runs `fn` in an IMMEDIATE transaction (a savepoint when one is open). Synchronous: never
 * await inside. Work queued with afterCommit() runs once the outermost transaction commits
 * and is dropped with whatever rolls back.
 */
export function tx<T>(db: DB, fn: () => T): T {
  const outermost = !db.inTransaction;
  const mark = pendingMark(db);
  let out: T;
  try {
    out = db.transaction(fn).immediate();
  } catch (e) {
    dropPendingSince(db, mark);
    throw e;
  }
  if (outermost) runAfterCommit(db);
  return out;
}

/** Runs `fn` in a savepoint of the open transaction: a throw rolls back `fn`'s writes (and after-commit work) only. */
export function savepoint<T>(db: DB, fn: () => T): T {
  const mark = pendingMark(db);
  try {
    return db.transaction(fn)();
  } catch (e) {
    dropPendingSince(db, mark);
    throw e;
  }
}

/** Runs `fn` in a transaction, or directly when the caller already holds one. */
export function inTx<T>(db: DB, fn: () => T): T {
  return db.inTransaction ? fn() : tx(db, fn);
}

/**
 * Runs the reads of `fn` in one deferred transaction: one WAL snapshot, so a page's queries
 * agree with each other, and one read lock. In autocommit mode every statement takes and
 * drops the WAL read lock (fcntl system calls), which costs more than a primary-key lookup.
 * Read-only and synchronous: never write or await inside. Inside a transaction it just runs.
 */
export function readTx<T>(db: DB, fn: () => T): T {
  if (db.inTransaction) return fn();
  stmt(db, "BEGIN DEFERRED").run();
  markReadOnlyTx(db, true);
  let ok = false;
  try {
    const out = fn();
    ok = true;
    return out;
  } finally {
    markReadOnlyTx(db, false);
    if (db.inTransaction) stmt(db, ok ? "COMMIT" : "ROLLBACK").run();
  }
}

/** Id column value → decimal string. */
export function str(v: unknown): string {
  return typeof v === "bigint" ? v.toString() : String(v);
}
export function strOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : str(v);
}
/** Count / timestamp column → number. */
export function num(v: unknown): number {
  return typeof v === "bigint" ? Number(v) : (v as number);
}
export function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : num(v);
}
export function bool(v: unknown): boolean {
  return v === 1n || v === 1 || v === true;
}
/** Parses a JSON text column, falling back when it is null or corrupt. */
export function json<T>(v: unknown, fallback: T): T {
  if (typeof v !== "string") return fallback;
  try {
    return JSON.parse(v) as T;
  } catch {
    return fallback;
  }
}

/**
 * A JSON array of integer ids for `IN (SELECT value FROM json_each(?))`: one cached statement
 * serves any number of ids. Ids are validated digits, so they are written as JSON numbers,
 * which SQLite reads back as exact 64-bit integers.
 */
export function idListJson(ids: Iterable<string>): string {
  const out: string[] = [];
  for (const id of ids) if (/^[0-9]{1,19}$/.test(id)) out.push(id);
  return "[" + out.join(",") + "]";
}
