import type Database from "better-sqlite3";
import type { DB } from "./db.ts";

// Exact invalidation for in-memory caches of rows and their renderings.
// - Writes through this connection reach the listeners synchronously, from TEMP triggers
//   (per connection, not part of the schema) that call `roost_row_changed(channel, key)`.
//   INSERT, UPDATE and DELETE are all watched, cascades and REPLACE deletions included.
// - A commit by another connection (a `roost` command in another process) is noticed by
//   `syncOtherWriters`, through PRAGMA data_version; then every listener hears "all".
// - Rows read inside a write transaction may still be rolled back: `mayFillCaches` is false
//   there, and caches are only filled from rows read outside one or inside `readTx`.

/** `key`: the changed row's key column value (as a string); null: anything may have changed. */
export type RowListener = (key: string | null) => void;

interface Watch {
  /** Listeners by channel, `table.keyColumn` or `table.*`. */
  channels: Map<string, Set<RowListener>>;
  dataVersion: number | null;
  version: Database.Statement;
  /** Synced during the current synchronous run (cleared by a microtask). */
  synced: boolean;
}

const watches = new WeakMap<DB, Watch>();
const readOnlyTx = new WeakSet<DB>();

function watchOf(db: DB): Watch {
  let w = watches.get(db);
  if (!w) {
    const channels = new Map<string, Set<RowListener>>();
    db.function("roost_row_changed", { safeIntegers: true }, (channel: unknown, key: unknown) => {
      const k = key === null || key === undefined ? null : String(key);
      for (const l of channels.get(String(channel)) ?? []) l(k);
      return null;
    });
    const version = db.prepare("PRAGMA data_version").pluck().safeIntegers(false);
    watches.set(db, (w = { channels, dataVersion: null, version, synced: false }));
  }
  return w;
}

/**
 * Calls `listener` whenever a row of `table` changes, with the value of its `keyColumn`
 * (old and new values on UPDATE when they differ); `keyColumn` null: the listener always
 * hears null. Call after migrations (the triggers name the table).
 */
export function onRowChange(db: DB, table: string, keyColumn: string | null, listener: RowListener): void {
  if (!/^[a-z_]+$/.test(table) || (keyColumn !== null && !/^[a-z_]+$/.test(keyColumn))) throw new Error(`bad watch ${table}.${keyColumn}`);
  const w = watchOf(db);
  const channel = `${table}.${keyColumn ?? "*"}`;
  let set = w.channels.get(channel);
  if (!set) {
    w.channels.set(channel, (set = new Set()));
    const name = `roost_watch_${table}_${keyColumn ?? "all"}`;
    const call = (row: "OLD" | "NEW") => `SELECT roost_row_changed('${channel}', ${keyColumn ? `${row}.${keyColumn}` : "NULL"});`;
    const moved = keyColumn ? ` SELECT roost_row_changed('${channel}', NEW.${keyColumn}) WHERE NEW.${keyColumn} IS NOT OLD.${keyColumn};` : "";
    db.exec(`
      CREATE TEMP TRIGGER IF NOT EXISTS ${name}_insert AFTER INSERT ON main.${table} BEGIN ${call("NEW")} END;
      CREATE TEMP TRIGGER IF NOT EXISTS ${name}_update AFTER UPDATE ON main.${table} BEGIN ${call("OLD")}${moved} END;
      CREATE TEMP TRIGGER IF NOT EXISTS ${name}_delete AFTER DELETE ON main.${table} BEGIN ${call("OLD")} END;`);
  }
  set.add(listener);
}

/**
 * Tells every listener "all" if another connection committed since the last check. One
 * PRAGMA: nearly free inside a transaction, but a WAL read lock of its own outside one, so
 * there it runs once per synchronous run (the caches a request consults in one go then agree
 * with the database as it was at that check).
 */
export function syncOtherWriters(db: DB): void {
  const w = watchOf(db);
  if (w.synced && !db.inTransaction) return;
  if (!w.synced) {
    w.synced = true;
    queueMicrotask(() => (w.synced = false));
  }
  const v = w.version.get() as number;
  if (w.dataVersion === v) return;
  w.dataVersion = v;
  for (const set of w.channels.values()) for (const l of set) l(null);
}

/** Marks the transaction `readTx` opened as read-only (see `mayFillCaches`). */
export function markReadOnlyTx(db: DB, on: boolean): void {
  if (on) readOnlyTx.add(db);
  else readOnlyTx.delete(db);
}

/** False inside a write transaction: what it reads may still be rolled back. */
export function mayFillCaches(db: DB): boolean {
  return !db.inTransaction || readOnlyTx.has(db);
}
