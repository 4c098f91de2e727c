import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import * as tar from "tar";
import { loadConfig } from "../../src/config/config.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { listBackups } from "../../src/ops/backup-archive.ts";
import { runScheduledBackup } from "../../src/ops/backup-schedule.ts";
import { startTestServer } from "../helpers/server.ts";
import { freePort, roost, serve, tempDir } from "./cli-helpers.ts";
import { postingLoad, queryDb, seedInstance } from "./ops-helpers.ts";

/** Checks a restored data dir the way the server would use it: every post of the backup reaches
 * the reader's home feed once the pending jobs ran, and the counters agree with the rows. */
async function assertConsistent(dataDir: string, posters: string[], reader: string): Promise<string[]> {
  const app = createApp(loadConfig(dataDir, { logLevel: "silent", jobsAutorun: false, backupSchedule: "off" }, {}));
  try {
    await app.jobs.drain();
    const db = app.db;
    assert.equal(db.pragma("integrity_check", { simple: true }), "ok");
    assert.deepEqual(db.pragma("foreign_key_check"), []);
    const posts = (db.prepare("SELECT id FROM statuses WHERE local = 1 ORDER BY id").pluck().all() as bigint[]).map(String);
    for (const p of posters) {
      const row = db.prepare("SELECT a.statuses_count AS counted, (SELECT count(*) FROM statuses s WHERE s.account_id = a.id) AS rows FROM accounts a WHERE username = ? AND domain IS NULL").get(p) as { counted: bigint; rows: bigint };
      assert.equal(row.counted, row.rows, `${p}: statuses_count matches the rows`);
    }
    const home = (db
      .prepare("SELECT status_id FROM home_feeds WHERE account_id = (SELECT id FROM accounts WHERE username = ? AND domain IS NULL)")
      .pluck()
      .all(reader) as bigint[]).map(String);
    const missing = posts.filter((id) => !home.includes(id));
    assert.deepEqual(missing, [], "every restored post reached the reader's home feed (its fan-out was done or still queued)");
    return posts;
  } finally {
    await closeApp(app);
  }
}

test("a backup taken by `roost backup create` under a posting load restores to a consistent instance", async (t) => {
  const dir = tempDir(t);
  const dataDir = join(dir, "data");
  const port = await freePort();
  const users = await seedInstance(dataDir, port, ["ann", "ben", "reader"], [["reader", "ann"], ["reader", "ben"]]);
  const server = await serve(["--data-dir", dataDir, "--port", String(port)], { ROOST_BACKUP_SCHEDULE: "off" });
  t.after(() => server.stop());

  const load = postingLoad(server.url, [users.ann.token, users.ben.token], { loops: 4, max: 1500 });
  await load.until(20);
  const startedAt = Date.now();
  const out = join(dir, "under-load.tar.gz");
  const made = await roost(["backup", "create", "--data-dir", dataDir, "--out", out]);
  const doneAt = Date.now();
  await load.until(load.acked.length + 10);
  await load.stop();
  assert.equal(made.code, 0, made.stderr);
  assert.equal(made.stdout, out + "\n");

  const [verify, restore] = await Promise.all([
    roost(["backup", "verify", out]),
    roost(["backup", "restore", out, "--data-dir", join(dir, "restored")]),
  ]);
  assert.equal(verify.code, 0, verify.stderr);
  assert.match(verify.stdout, /^ {2}integrity +ok \(integrity_check, foreign_key_check\)$/m);
  assert.equal(restore.code, 0, restore.stderr);

  const restored = await assertConsistent(join(dir, "restored"), ["ann", "ben"], "reader");
  const before = load.acked.filter((a) => a.ackedAt < startedAt).map((a) => a.id);
  const after = load.acked.filter((a) => a.sentAt > doneAt).map((a) => a.id);
  assert.deepEqual(before.filter((id) => !restored.includes(id)), [], "every post acknowledged before the backup began is in it");
  assert.deepEqual(after.filter((id) => restored.includes(id)), [], "no post sent after the backup ended is in it");
  assert.ok(restored.length >= 20, `${restored.length} posts restored`);
  const counts = new Map(verify.stdout.split("\n").map((l) => l.trim().split(/ {2,}/) as [string, string]));
  assert.equal(counts.get("local statuses"), String(restored.length), verify.stdout);
  assert.equal(counts.get("local accounts"), "3");
});

test("scheduled backups: the server's own connection under a posting load, the periodic task, and keep N", async (t) => {
  const s = await startTestServer({ config: { backupSchedule: "every 1h, keep 2" } });
  t.after(() => s.close());
  const [ann, reader] = [await s.user("ann"), await s.user("reader")];
  await s.api(reader, "POST", `/api/v1/accounts/${ann.id}/follow`);

  // The periodic task (backup.create) runs with the other jobs: the first drain takes one.
  await s.drainJobs();
  const first = listBackups(s.dataDir);
  assert.deepEqual(first.map((b) => b.kind), ["scheduled"]);
  assert.match(first[0].path, /\/backups\/roost-\d{8}-\d{6}-scheduled\.tar\.gz$/);

  // In the server's event loop, between posts: the copy follows the writes made meanwhile.
  const load = postingLoad(s.url, [ann.token], { loops: 3, max: 300 });
  await load.until(10);
  // (Named an hour and two hours on: names have a one-second resolution.)
  const during = await runScheduledBackup(s.app, 2, new Date(Date.now() + 3600_000));
  await load.until(load.acked.length + 5);
  await load.stop();
  await runScheduledBackup(s.app, 2, new Date(Date.now() + 7200_000));
  const kept = listBackups(s.dataDir);
  assert.equal(kept.length, 2, "keep 2: the oldest scheduled backup was removed");
  assert.ok(!existsSync(first[0].path));
  assert.ok(kept.some((b) => b.path === during));

  const dir = tempDir(t);
  const r = await roost(["backup", "restore", during, "--data-dir", join(dir, "restored")]);
  assert.equal(r.code, 0, r.stderr);
  const posts = await assertConsistent(join(dir, "restored"), ["ann"], "reader");
  assert.ok(posts.length >= 10, `${posts.length} posts restored`);
});

test("roost backup verify refuses damaged, foreign, truncated and too-new archives with the reason", async (t) => {
  const dir = tempDir(t);
  const dataDir = join(dir, "data");
  await seedInstance(dataDir, 3000, ["ann"]);
  const good = join(dir, "good.tar.gz");
  const made = await roost(["backup", "create", "--data-dir", dataDir, "--out", good]);
  assert.equal(made.code, 0, made.stderr);

  const truncated = join(dir, "truncated.tar.gz");
  copyFileSync(good, truncated);
  truncateSync(truncated, Math.floor(statSync(good).size / 2));
  const garbage = join(dir, "garbage.tar.gz");
  writeFileSync(garbage, "this is not a backup at all\n");

  // Repacked archives: one without the manifest, one whose database has a page of garbage,
  // one that claims a schema from the future.
  const unpacked = join(dir, "unpacked");
  mkdirSync(unpacked);
  await tar.x({ file: good, cwd: unpacked });
  const pack = async (name: string, files: string[]) => {
    const file = join(dir, name);
    await tar.c({ gzip: true, file, cwd: unpacked }, files);
    return file;
  };
  const noManifest = await pack("no-manifest.tar.gz", ["roost.db", "config.json"]);
  const manifest = JSON.parse(readFileSync(join(unpacked, "roost-backup.json"), "utf8"));
  writeFileSync(join(unpacked, "roost-backup.json"), JSON.stringify({ ...manifest, schemaVersion: 9999 }));
  const future = await pack("future.tar.gz", ["roost-backup.json", "roost.db", "config.json"]);
  writeFileSync(join(unpacked, "roost-backup.json"), JSON.stringify(manifest));
  const db = join(unpacked, "roost.db");
  const pageSize = 4096;
  const fd = openSync(db, "r+");
  // Page 3 onwards hold tables and indexes; page 5 is overwritten with a pattern.
  writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, 4 * pageSize);
  closeSync(fd);
  const damaged = await pack("damaged.tar.gz", ["roost-backup.json", "roost.db", "config.json"]);

  const files = { good, truncated, garbage, noManifest, future, damaged };
  const results = Object.fromEntries(
    await Promise.all(Object.entries(files).map(async ([k, f]) => [k, await roost(["backup", "verify", f, "--tmp-dir", dir])] as const)),
  );
  assert.equal(results.good.code, 0, results.good.stderr);
  assert.match(results.good.stdout, /^verified: the backup restores$/m);
  assert.match(results.good.stdout, /^ {2}local accounts +1$/m);
  const refused = (k: keyof typeof files, re: RegExp) => {
    const r = results[k];
    assert.equal(r.code, 1, `${k}: ${r.stdout}`);
    assert.equal(r.stdout, "");
    assert.equal(r.stderr.split("\n").length, 2, `${k}: one line: ${r.stderr}`);
    assert.match(r.stderr, re, k);
  };
  refused("truncated", new RegExp(`^error: ${truncated} is not a readable roost backup \\(.+\\)\\n$`));
  refused("garbage", new RegExp(`^error: ${garbage} is not a readable roost backup \\(.+\\)\\n$`));
  refused("noManifest", new RegExp(`^error: ${noManifest} is not a roost backup \\(no roost-backup\\.json\\)\\n$`));
  refused("future", /^error: .*future\.tar\.gz was made by a newer roost \(schema 9999; this roost knows up to \d+\): upgrade roost first\n$/);
  refused("damaged", new RegExp(`^error: the database in ${damaged} is damaged: .+\\n$`));
  assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith("roost-verify-")), [], "the temporary restores are removed");
});
