import type { DB, Row } from "./db.ts";
import { num, stmt } from "./db.ts";

// Set-wise deletion of rows with everything that refers to them, for a connection that runs
// with `PRAGMA foreign_keys=OFF` (the storage prune in the CLI's own process). With foreign
// keys on, SQLite looks up every child table for every parent row it deletes (17 keys refer
// to statuses: deleting 100k remote statuses took 43 us of CPU a status that way, 32 us this
// way); here each child table is handled once per batch by one statement. The list of children comes from the schema at run time
// (pragma_foreign_key_list), so a table added later is covered without a change here. With
// foreign keys on it gives the same result (SQLite's own checks then find nothing to do).
//
// ON DELETE CASCADE rows go (and their own children, recursively), SET NULL columns are
// cleared, SET DEFAULT columns take their default, and NO ACTION / RESTRICT children make it
// throw as SQLite would. Triggers still fire row by row (FTS rows, counters, notifications).

interface ForeignKey {
  child: string;
  from: string;
  parent: string;
  to: string;
  onDelete: string;
  /** `to` is the parent's INTEGER PRIMARY KEY: the collected rowids are its values. */
  toIsRowid: boolean;
}

interface Graph {
  schemaVersion: number;
  childrenOf: Map<string, ForeignKey[]>;
  withoutRowid: Set<string>;
}

const graphs = new WeakMap<DB, Graph>();

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;
const setTable = (table: string) => `temp.${q(`cascade_${table}`)}`;

function isWithoutRowid(db: DB, table: string): boolean {
  return /\bWITHOUT\s+ROWID\b/i.test(String((db.prepare("SELECT sql FROM sqlite_schema WHERE name = ?").get(table) as Row | undefined)?.sql ?? ""));
}

function rowidAlias(db: DB, table: string): string | null {
  const pk = db.prepare("SELECT name, upper(type) AS type FROM pragma_table_info(?) WHERE pk > 0").all(table) as Row[];
  return pk.length === 1 && pk[0].type === "INTEGER" && !isWithoutRowid(db, table) ? String(pk[0].name) : null;
}

function primaryKeyColumn(db: DB, table: string): string {
  const pk = db.prepare("SELECT name FROM pragma_table_info(?) WHERE pk > 0").all(table) as Row[];
  if (pk.length !== 1) throw new Error(`cascade delete: ${table} has no single-column primary key`);
  return String(pk[0].name);
}

/** Every single-column foreign key of the main schema, by parent table (cached per schema version). */
function graph(db: DB): Graph {
  const schemaVersion = num(db.pragma("schema_version", { simple: true }));
  const cached = graphs.get(db);
  if (cached && cached.schemaVersion === schemaVersion) return cached;
  const rows = db
    .prepare(
      `SELECT t.name AS child, f.id AS fk, f.seq AS seq, f."from" AS "from", f."table" AS parent, f."to" AS "to", f.on_delete AS onDelete
       FROM sqlite_schema t, pragma_foreign_key_list(t.name) f
       WHERE t.type = 'table' AND t.name NOT LIKE 'sqlite_%'
       ORDER BY t.name, f.id, f.seq`,
    )
    .all() as Row[];
  const childrenOf = new Map<string, ForeignKey[]>();
  for (const r of rows) {
    if (num(r.seq) > 0) throw new Error(`cascade delete: ${String(r.child)} has a composite foreign key to ${String(r.parent)}`);
    const parent = String(r.parent);
    const to = r.to === null ? primaryKeyColumn(db, parent) : String(r.to);
    const fk: ForeignKey = { child: String(r.child), from: String(r.from), parent, to, onDelete: String(r.onDelete).toUpperCase(), toIsRowid: rowidAlias(db, parent) === to };
    const list = childrenOf.get(parent) ?? [];
    list.push(fk);
    childrenOf.set(parent, list);
  }
  const withoutRowid = new Set([...childrenOf.keys()].filter((t) => isWithoutRowid(db, t)));
  const g = { schemaVersion, childrenOf, withoutRowid };
  graphs.set(db, g);
  return g;
}

/** Tables others refer to: the rows of theirs that go are collected by rowid, so that the children's statements can name them. */
function withChildren(g: Graph, table: string): boolean {
  return (g.childrenOf.get(table)?.length ?? 0) > 0;
}

function ensureSetTable(db: DB, table: string): void {
  db.exec(`CREATE TEMP TABLE IF NOT EXISTS ${q(`cascade_${table}`)} (rid INTEGER PRIMARY KEY, gen INTEGER NOT NULL)`);
}

/** `parent`'s rows in the deletion set, as the values of the column `to`. */
const parentKeys = (fk: ForeignKey) =>
  fk.toIsRowid ? `SELECT rid FROM ${setTable(fk.parent)}` : `SELECT p.${q(fk.to)} FROM main.${q(fk.parent)} p WHERE p.rowid IN (SELECT rid FROM ${setTable(fk.parent)})`;
const parentKeysOfGen = (fk: ForeignKey) =>
  fk.toIsRowid
    ? `SELECT rid FROM ${setTable(fk.parent)} WHERE gen = @gen`
    : `SELECT p.${q(fk.to)} FROM main.${q(fk.parent)} p WHERE p.rowid IN (SELECT rid FROM ${setTable(fk.parent)} WHERE gen = @gen)`;

/**
 * Deletes the rows of `table` whose rowids `selectRowids` returns (one column; SQL taking the
 * named `params`) with every row that refers to them, set-wise, in the caller's transaction.
 * Returns how many rows of `table` went (those selected, and those of the same table that
 * referred to them by a CASCADE key, like the boosts of a status).
 */
export function deleteCascading(db: DB, table: string, selectRowids: string, params: Record<string, unknown>): number {
  if (!db.inTransaction) throw new Error("deleteCascading runs in the caller's transaction");
  const g = graph(db);
  // 1. The rowids of every table with children of its own that loses rows, generation by
  // generation (a self-reference, a boost of a boost, is followed until nothing new turns up).
  if (g.withoutRowid.has(table)) throw new Error(`cascade delete: ${table} has no rowid`);
  const collected: string[] = [table];
  ensureSetTable(db, table);
  stmt(db, `INSERT OR IGNORE INTO ${setTable(table)} (rid, gen) SELECT *, 0 FROM (${selectRowids})`).run(params);
  let frontier = [table];
  for (let gen = 0; frontier.length > 0; gen++) {
    const next = new Set<string>();
    for (const parent of frontier) {
      for (const fk of g.childrenOf.get(parent) ?? []) {
        if (fk.onDelete !== "CASCADE" || !withChildren(g, fk.child)) continue;
        if (!collected.includes(fk.child)) {
          if (g.withoutRowid.has(fk.child)) throw new Error(`cascade delete: ${fk.child} is referred to but has no rowid`);
          collected.push(fk.child);
          ensureSetTable(db, fk.child);
        }
        const added = stmt(
          db,
          `INSERT OR IGNORE INTO ${setTable(fk.child)} (rid, gen)
           SELECT c.rowid, @gen + 1 FROM main.${q(fk.child)} c WHERE c.${q(fk.from)} IN (${parentKeysOfGen(fk)})`,
        ).run({ gen }).changes;
        if (added > 0) next.add(fk.child);
      }
    }
    frontier = [...next];
  }
  // 2. Children without children of their own: one statement per foreign key, while the
  // parents are still there to name them.
  for (const parent of collected) {
    for (const fk of g.childrenOf.get(parent) ?? []) {
      const notGoing = collected.includes(fk.child) ? ` AND rowid NOT IN (SELECT rid FROM ${setTable(fk.child)})` : "";
      const where = `${q(fk.from)} IN (${parentKeys(fk)})${notGoing}`;
      switch (fk.onDelete) {
        case "CASCADE":
          if (!collected.includes(fk.child)) stmt(db, `DELETE FROM main.${q(fk.child)} WHERE ${where}`).run();
          break;
        case "SET NULL":
          stmt(db, `UPDATE main.${q(fk.child)} SET ${q(fk.from)} = NULL WHERE ${where}`).run();
          break;
        case "SET DEFAULT":
          stmt(db, `UPDATE main.${q(fk.child)} SET ${q(fk.from)} = ${columnDefault(db, fk.child, fk.from)} WHERE ${where}`).run();
          break;
        default: // NO ACTION, RESTRICT: SQLite would refuse the delete
          if (stmt(db, `SELECT 1 FROM main.${q(fk.child)} WHERE ${where} LIMIT 1`).get() !== undefined) {
            throw new Error(`FOREIGN KEY constraint failed: ${fk.child}.${fk.from} refers to a ${fk.parent} row being deleted`);
          }
      }
    }
  }
  // 3. The collected rows, children before parents (the order SQLite's cascade and BEFORE
  // DELETE triggers see).
  // Counted from the set: with foreign keys on, SQLite's cascade may take a row (a boost)
  // before the statement reaches it, and `changes` leaves those out.
  const deleted = num((stmt(db, `SELECT count(*) AS n FROM main.${q(table)} WHERE rowid IN (SELECT rid FROM ${setTable(table)})`).get() as Row).n);
  for (const t of [...collected].reverse()) stmt(db, `DELETE FROM main.${q(t)} WHERE rowid IN (SELECT rid FROM ${setTable(t)})`).run();
  for (const t of collected) stmt(db, `DELETE FROM ${setTable(t)}`).run();
  return deleted;
}

function columnDefault(db: DB, table: string, column: string): string {
  const r = db.prepare("SELECT dflt_value FROM pragma_table_info(?) WHERE name = ?").get(table, column) as Row | undefined;
  return r?.dflt_value == null ? "NULL" : String(r.dflt_value);
}

/**
 * Runs `fn` (which opens its own transaction) with this connection's foreign key enforcement
 * off, and on again after. Only for a connection no one else shares (the CLI's): the pragma is
 * a no-op inside a transaction, so it is refused there.
 */
export function withForeignKeysOff<T>(db: DB, fn: () => T): T {
  if (db.inTransaction) throw new Error("foreign_keys cannot change inside a transaction");
  db.pragma("foreign_keys = OFF");
  try {
    return fn();
  } finally {
    db.pragma("foreign_keys = ON");
  }
}
