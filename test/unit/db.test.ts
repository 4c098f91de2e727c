import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, PAGE_CACHE_KIB } from "../../src/db/db.ts";
import { loadMigrations, migrate } from "../../src/db/migrate.ts";

// Storage foundations: the pragmas every connection gets, and migrations applied in order,
// each in its own transaction, recorded once.

function tempDb(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), "roost-db-"));
  const db = openDatabase(join(dir, "roost.db"));
  t.after(() => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return db;
}

test("a database opens with WAL, synchronous=FULL, foreign keys, a busy timeout and 64-bit safe integers", (t) => {
  const db = tempDb(t);
  assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
  assert.equal(db.pragma("synchronous", { simple: true }), 2n); // FULL
  assert.equal(db.pragma("foreign_keys", { simple: true }), 1n);
  assert.equal(db.pragma("busy_timeout", { simple: true }), 5000n);
  assert.equal((db.prepare("SELECT 9223372036854775807 AS big").get() as { big: bigint }).big, 9223372036854775807n);
});

test("the page cache is capped at PAGE_CACHE_KIB, not better-sqlite3's 16 MiB", (t) => {
  const db = tempDb(t);
  // Negative: a size in KiB. better-sqlite3 compiles in -16000, which a soak saw fill page by page.
  assert.equal(db.pragma("cache_size", { simple: true }), -BigInt(PAGE_CACHE_KIB));
  assert.ok(PAGE_CACHE_KIB <= 4096);
});

test("migrations are applied in order, recorded, and not applied twice", (t) => {
  const db = tempDb(t);
  const all = loadMigrations();
  assert.ok(all.length >= 5);
  assert.deepEqual(all.map((m) => m.version), [...all.map((m) => m.version)].sort((a, b) => a - b));
  const applied = migrate(db);
  assert.deepEqual(applied, all.map((m) => `${String(m.version).padStart(4, "0")}_${m.name}`));
  const rows = db.prepare("SELECT version, name FROM schema_migrations ORDER BY version").all() as { version: bigint; name: string }[];
  assert.deepEqual(rows.map((r) => Number(r.version)), all.map((m) => m.version));
  assert.deepEqual(migrate(db), [], "a second run applies nothing");
});

test("a failing migration rolls back entirely and stops the later ones", (t) => {
  const db = tempDb(t);
  const steps = [
    { version: 1, name: "one", sql: "CREATE TABLE a (x INTEGER);" },
    { version: 2, name: "broken", sql: "CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);" },
    { version: 3, name: "three", sql: "CREATE TABLE c (x INTEGER);" },
  ];
  assert.throws(() => migrate(db, steps), /no such table: nowhere/);
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  assert.ok(tables.includes("a"));
  assert.ok(!tables.includes("b"), "the half-applied migration left nothing behind");
  assert.ok(!tables.includes("c"));
  const versions = (db.prepare("SELECT version FROM schema_migrations").all() as { version: bigint }[]).map((r) => Number(r.version));
  assert.deepEqual(versions, [1]);
  // Fixed, it applies from where it stopped.
  steps[1].sql = "CREATE TABLE b (x INTEGER);";
  assert.deepEqual(migrate(db, steps), ["0002_broken", "0003_three"]);
});

test("follows know whether their follower is remote (set by a trigger on insert)", (t) => {
  const db = tempDb(t);
  migrate(db);
  const account = (id: number, domain: string | null) =>
    db.prepare("INSERT INTO accounts (id, username, domain, uri, created_at, updated_at) VALUES (?, ?, ?, ?, 0, 0)").run(id, `u${id}`, domain, `https://x/${id}`);
  account(1, null);
  account(2, null);
  account(3, "remote.example");
  const follow = (id: number, from: number, to: number) =>
    db.prepare("INSERT INTO follows (id, account_id, target_account_id, uri, created_at, updated_at) VALUES (?, ?, ?, ?, 0, 0)").run(id, from, to, `u${id}`);
  follow(10, 2, 1);
  follow(11, 3, 1);
  const remote = (db.prepare("SELECT id, remote FROM follows ORDER BY id").all() as { id: bigint; remote: bigint }[]).map((r) => [Number(r.id), Number(r.remote)]);
  assert.deepEqual(remote, [
    [10, 0],
    [11, 1],
  ]);
});
