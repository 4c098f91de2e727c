import { readdirSync, readFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { type DB, tx } from "./db.ts";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

// build.mjs replaces this with the migration files embedded in the bundle.
declare const __ROOST_MIGRATIONS__: Migration[] | undefined;

const FILE_RE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export function loadMigrations(): Migration[] {
  if (typeof __ROOST_MIGRATIONS__ !== "undefined") return __ROOST_MIGRATIONS__;
  const dir = fileURLToPath(new URL("../../migrations/", import.meta.url));
  if (!existsSync(dir)) throw new Error(`migrations directory not found: ${dir}`);
  return readdirSync(dir)
    .map((f) => FILE_RE.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: Number(m[1]), name: m[2], sql: readFileSync(join(dir, m[0]), "utf8") }))
    .sort((a, b) => a.version - b.version);
}

export function appliedVersions(db: DB): Set<number> {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const rows = db.prepare("SELECT version FROM schema_migrations").all() as { version: bigint }[];
  return new Set(rows.map((r) => Number(r.version)));
}

/** Applies pending migrations, each in its own transaction. Returns the names applied. */
export function migrate(db: DB, migrations = loadMigrations()): string[] {
  const done = appliedVersions(db);
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.version)) continue;
    tx(db, () => {
      db.exec(m.sql);
      db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
        m.version,
        m.name,
        Date.now(),
      );
    });
    applied.push(`${String(m.version).padStart(4, "0")}_${m.name}`);
  }
  return applied;
}
