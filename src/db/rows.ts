import type Database from "better-sqlite3";
import type { DB, Row } from "./db.ts";

// Fast row reading for wide rows. better-sqlite3 builds a named row by interning every
// column name for every row, which on accounts (43 columns) or a page of statuses costs
// about as much as the query itself. These helpers run the statement in raw mode (value
// arrays) and turn each array into an object with a function compiled once per statement,
// an object literal that V8 builds almost for free. Keys come from SQLite's column names
// through JSON.stringify; a later duplicate name wins, as in better-sqlite3's own rows.

type Build<T> = (values: unknown[]) => T;

interface Compiled {
  statement: Database.Statement;
  width: number;
  flat: Build<Row>;
  /** Columns grouped by source table (joins of distinct tables); expressions under "". */
  byTable: Build<Record<string, Row>>;
}

const caches = new WeakMap<DB, Map<string, Compiled>>();

/** How many statements `db`'s fast-row cache holds (beside db.ts's stmt() cache). */
export function cachedRowStatementCount(db: DB): number {
  return caches.get(db)?.size ?? 0;
}

function literal(columns: { name: string; index: number }[]): string {
  return `{ ${columns.map((c) => `${JSON.stringify(c.name)}: v[${c.index}]`).join(", ")} }`;
}

function compile(statement: Database.Statement): Compiled {
  const columns = statement.columns().map((c, index) => ({ name: c.name, table: c.table ?? "", index }));
  const tables = [...new Set(columns.map((c) => c.table))];
  const grouped = tables.map((t) => `${JSON.stringify(t)}: ${literal(columns.filter((c) => c.table === t))}`);
  return {
    statement,
    width: columns.length,
    flat: new Function("v", `return ${literal(columns)};`) as Build<Row>,
    byTable: new Function("v", `return { ${grouped.join(", ")} };`) as Build<Record<string, Row>>,
  };
}

function compiled(db: DB, sql: string): Compiled {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  let c = cache.get(sql);
  if (!c) cache.set(sql, (c = compile(db.prepare(sql).raw(true))));
  return c;
}

/** The compiled functions, rebuilt if a schema change altered the width of a `SELECT *`. */
function checked(db: DB, sql: string, c: Compiled, first: unknown[] | undefined): Compiled {
  if (!first || first.length === c.width) return c;
  const fresh = compile(c.statement);
  caches.get(db)!.set(sql, fresh);
  return fresh;
}

/** `stmt(db, sql).all(...params)` with fast row objects. */
export function allRows(db: DB, sql: string, ...params: unknown[]): Row[] {
  const c = compiled(db, sql);
  const values = c.statement.all(...params) as unknown[][];
  return values.map(checked(db, sql, c, values[0]).flat);
}

/** `stmt(db, sql).get(...params)` with a fast row object. */
export function getRow(db: DB, sql: string, ...params: unknown[]): Row | undefined {
  const c = compiled(db, sql);
  const v = c.statement.get(...params) as unknown[] | undefined;
  return v && checked(db, sql, c, v).flat(v);
}

/** `allRows` for a join of distinct tables, each row split by table (see `getRowByTable`). */
export function allRowsByTable(db: DB, sql: string, ...params: unknown[]): Record<string, Row>[] {
  const c = compiled(db, sql);
  const values = c.statement.all(...params) as unknown[][];
  return values.map(checked(db, sql, c, values[0]).byTable);
}

/**
 * One row of a join of distinct tables, as one row object per table name (so `SELECT t.*,
 * u.*` keeps both `id` columns). A LEFT JOIN without a match gives a row of nulls.
 */
export function getRowByTable(db: DB, sql: string, ...params: unknown[]): Record<string, Row> | undefined {
  const c = compiled(db, sql);
  const v = c.statement.get(...params) as unknown[] | undefined;
  return v && checked(db, sql, c, v).byTable(v);
}
