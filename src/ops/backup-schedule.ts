import Database from "better-sqlite3";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../app.ts";
import { parseBackupSchedule } from "../config/backup-schedule.ts";
import { loadMigrations } from "../db/migrate.ts";
import { databasePath } from "../services/init.ts";
import { backupsDir, createBackup, defaultBackupName, listBackups } from "./backup-archive.ts";

// Backups the server takes by itself: on the operator's schedule (backupSchedule), and before
// `serve` or `migrate` changes the schema of an existing instance.

export const BACKUP_JOB = "backup.create";

/** Registers the scheduled backup as a periodic task when backupSchedule is not "off". */
export function registerBackupSchedule(app: App): void {
  const schedule = parseBackupSchedule(app.config.backupSchedule);
  if (!schedule) return;
  app.jobs.every(BACKUP_JOB, schedule.everyMs, async (a) => {
    await runScheduledBackup(a, schedule.keep);
  });
}

/**
 * One scheduled backup, then the oldest scheduled ones beyond `keep` are removed. Made through
 * the server's own connection, in small steps between requests (see createBackup).
 */
export async function runScheduledBackup(app: App, keep: number, now = new Date(app.now())): Promise<string> {
  const started = Date.now();
  const path = await createBackup(app.config.dataDir, { kind: "scheduled", db: app.db, now });
  const removed = pruneScheduledBackups(app.config.dataDir, keep);
  app.log.info("backup created", { path, ms: Date.now() - started, removed: removed.length });
  return path;
}

/** Removes scheduled backups beyond the newest `keep`; manual and pre-migration ones stay. */
export function pruneScheduledBackups(dataDir: string, keep: number): string[] {
  const old = listBackups(dataDir).filter((b) => b.kind === "scheduled").slice(keep);
  for (const b of old) rmSync(b.path, { force: true });
  return old.map((b) => b.path);
}

/** Migrations not yet applied to an existing database (none for a missing or empty one). */
export function pendingMigrations(dataDir: string): string[] {
  const file = databasePath(dataDir);
  if (!existsSync(file)) return [];
  const db = new Database(file, { fileMustExist: true, readonly: true });
  try {
    db.pragma("busy_timeout = 5000");
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get()) return [];
    const done = new Set((db.prepare("SELECT version FROM schema_migrations").pluck().all() as number[]).map(Number));
    if (done.size === 0) return [];
    return loadMigrations()
      .filter((m) => !done.has(m.version))
      .map((m) => `${String(m.version).padStart(4, "0")}_${m.name}`);
  } finally {
    db.close();
  }
}

/**
 * Before migrations change an existing instance: a full backup named after the first pending
 * migration (roost-…-before-NNNN.tar.gz), kept until the operator removes it. Returns
 * undefined when nothing is pending.
 */
export async function backupBeforeMigrating(dataDir: string, now = new Date()): Promise<{ path: string; pending: string[] } | undefined> {
  const pending = pendingMigrations(dataDir);
  if (pending.length === 0) return undefined;
  const out = join(backupsDir(dataDir), defaultBackupName(now, `before-${pending[0].slice(0, 4)}`));
  const path = await createBackup(dataDir, { kind: "before-migration", out, now });
  return { path, pending };
}
