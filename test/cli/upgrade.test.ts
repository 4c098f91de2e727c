import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { configPath } from "../../src/config/config.ts";
import { openDatabase } from "../../src/db/db.ts";
import { loadMigrations, migrate } from "../../src/db/migrate.ts";
import { databasePath, initDataDir, mediaPath } from "../../src/services/init.ts";
import { freePort, roost, serve, tempDir } from "./cli-helpers.ts";
import { queryDb } from "./ops-helpers.ts";

/** A data dir as the previous roost left it: every migration but the newest applied. */
function previousVersionDataDir(dir: string, name: string): { dataDir: string; last: string } {
  const template = join(dir, `${name}-template`);
  initDataDir(template, { domain: "upgrade.example", protocol: "http" });
  const dataDir = join(dir, name);
  mkdirSync(mediaPath(dataDir), { recursive: true });
  copyFileSync(configPath(template), configPath(dataDir));
  const all = loadMigrations();
  const db = openDatabase(databasePath(dataDir));
  try {
    migrate(db, all.slice(0, -1));
  } finally {
    db.close();
  }
  const last = all[all.length - 1];
  return { dataDir, last: `${String(last.version).padStart(4, "0")}_${last.name}` };
}

test("migrate and serve back an existing instance up before applying migrations; the backup restores to the old schema", async (t) => {
  const dir = tempDir(t);
  const a = previousVersionDataDir(dir, "a");
  const b = previousVersionDataDir(dir, "b");
  const version = a.last.slice(0, 4);

  const m = await roost(["migrate", "--data-dir", a.dataDir]);
  assert.equal(m.code, 0, m.stderr);
  const [archive] = readdirSync(join(a.dataDir, "backups"));
  assert.match(archive, new RegExp(`^roost-\\d{8}-\\d{6}-before-${version}\\.tar\\.gz$`));
  const path = join(a.dataDir, "backups", archive);
  assert.equal(m.stderr, `backed up to ${path} before applying 1 migration(s)\napplied ${a.last}\n`);

  // The backup holds the instance as it was: restoring it here migrates it again.
  const v = await roost(["backup", "verify", path, "--json"]);
  assert.equal(v.code, 0, v.stderr);
  const report = JSON.parse(v.stdout);
  assert.equal(report.manifest.kind, "before-migration");
  assert.equal(report.manifest.schemaVersion, loadMigrations().at(-2)!.version);
  assert.deepEqual(report.migrationsApplied, [a.last]);

  // serve does the same before it listens; an up-to-date instance takes no backup.
  const server = await serve(["--data-dir", b.dataDir, "--port", String(await freePort())], { ROOST_BACKUP_SCHEDULE: "off", ROOST_LOG_LEVEL: "info" });
  t.after(() => server.stop());
  assert.deepEqual(readdirSync(join(b.dataDir, "backups")).map((n) => n.replace(/\d{8}-\d{6}/, "D-T")), [`roost-D-T-before-${version}.tar.gz`]);
  assert.match(server.stderr(), /"msg":"backed up before migrating"/);
  assert.equal(queryDb(b.dataDir, (db) => db.prepare("SELECT max(version) FROM schema_migrations").pluck().get()), BigInt(Number(version)));
  assert.deepEqual([await server.stop(), server.exitSignal()], [0, null]);
  const again = await roost(["migrate", "--data-dir", b.dataDir]);
  assert.deepEqual([again.code, again.stderr], [0, "database is up to date\n"]);
  assert.equal(readdirSync(join(b.dataDir, "backups")).length, 1);
});
