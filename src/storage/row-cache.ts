import type { App } from "../app.ts";
import { mayFillCaches, onRowChange, syncOtherWriters } from "../db/row-changes.ts";

/**
 * A bounded in-memory map whose entries are dropped as soon as the rows they were built from
 * change (see row-changes.ts), so it never serves anything stale. Kept in `app.cache`.
 */
export class RowCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(
    private readonly app: App,
    private readonly max: number,
  ) {}

  /**
   * Drops entries when `table` changes: the entry named by the changed row's `keyColumn`, or
   * every entry when `keyColumn` is null.
   */
  watch(table: string, keyColumn: string | null): this {
    onRowChange(this.app.db, table, keyColumn, (key) => {
      if (key === null) this.entries.clear();
      else this.entries.delete(key);
    });
    return this;
  }

  /** Notices commits by other processes (which empty every cache); once per request or page. */
  sync(): void {
    syncOtherWriters(this.app.db);
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Ignored inside a write transaction, whose rows may still be rolled back. */
  set(key: string, value: V): void {
    if (!mayFillCaches(this.app.db)) return;
    if (this.entries.size >= this.max && !this.entries.has(key)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }
}

/**
 * The most characters of text an entry may carry. Remote posts and profiles can be large (a
 * signed body is up to 1 MB); those are read and rendered every time, so that a peer cannot
 * fill memory through the caches.
 */
export const MAX_CACHED_CHARS = 64 * 1024;

/** A cache's definition: its name in `app.cache`, size and `[table, keyColumn]` watches. */
export interface RowCacheSpec {
  name: string;
  max: number;
  watches: [string, string | null][];
}

/**
 * Makes the cache and installs its triggers. Call once the schema is migrated and outside
 * any transaction (main.ts's startServer and the federation routes do, before any request):
 * a trigger created inside a transaction that rolls back would be gone while the cache went
 * on trusting it.
 */
export function installRowCache(app: App, spec: RowCacheSpec): void {
  if (app.db.inTransaction) throw new Error(`row cache ${spec.name}: install outside transactions`);
  const key = `rows:${spec.name}`;
  if (app.cache.has(key)) return;
  const c = new RowCache<unknown>(app, spec.max);
  for (const [table, column] of spec.watches) c.watch(table, column);
  app.cache.set(key, c);
}

/** The installed cache, or undefined (callers then read the database every time). */
export function findRowCache<V>(app: App, spec: RowCacheSpec): RowCache<V> | undefined {
  return app.cache.get(`rows:${spec.name}`) as RowCache<V> | undefined;
}

/** Freezes a cached value and everything in it: requests share it, so nobody may change it. */
export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}
