import Database from "better-sqlite3";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import * as tar from "tar";
import { configPath, isInitialised } from "../config/config.ts";
import type { DB } from "../db/db.ts";
import { loadMigrations } from "../db/migrate.ts";
import { databasePath, mediaPath } from "../services/init.ts";
import { ROOST_VERSION } from "../version.ts";

/**
 * Backups are one .tar.gz holding roost-backup.json (a manifest), roost.db (an online
 * snapshot), config.json (the instance secret and VAPID keys live there) and media/.
 */
const MANIFEST = "roost-backup.json";
const FORMAT = "roost-backup";
const ENTRY_RE = /^(roost-backup\.json|roost\.db|config\.json|media(\/.*)?)$/;

/** A backup that cannot be made, read or restored; the message is the whole story. */
export class BackupError extends Error {
  override name = "BackupError";
}

export interface BackupManifest {
  format: string;
  version: number;
  createdAt: string;
  schemaVersion: number;
  /** The roost that made it (absent in backups of roost 0.1.0 before the executable). */
  roostVersion?: string;
  kind?: BackupKind;
}

/** Who made a backup: the operator, the schedule (backupSchedule) or serve/migrate before a migration. */
export type BackupKind = "manual" | "scheduled" | "before-migration";

export const backupsDir = (dataDir: string) => join(dataDir, "backups");

/** roost-YYYYMMDD-HHMMSS[-suffix].tar.gz (UTC); the suffix tells scheduled and pre-migration backups apart. */
export function defaultBackupName(at: Date, suffix?: string): string {
  const d = at.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `roost-${d}${suffix ? `-${suffix}` : ""}.tar.gz`;
}

const NAME_RE = /^roost-(\d{8})-(\d{6})(?:-(scheduled|before-(\d{4})))?\.tar\.gz$/;

export interface BackupFile {
  path: string;
  kind: BackupKind;
  /** From the name (UTC), in ms. */
  createdAt: number;
  bytes: number;
}

/** The archives in DATA_DIR/backups made under the default names, newest first. */
export function listBackups(dataDir: string): BackupFile[] {
  const dir = backupsDir(dataDir);
  if (!existsSync(dir)) return [];
  const out: BackupFile[] = [];
  for (const name of readdirSync(dir)) {
    const m = NAME_RE.exec(name);
    if (!m) continue;
    const [d, t] = [m[1], m[2]];
    const createdAt = Date.UTC(+d.slice(0, 4), +d.slice(4, 6) - 1, +d.slice(6, 8), +t.slice(0, 2), +t.slice(2, 4), +t.slice(4, 6));
    const kind: BackupKind = m[3] === "scheduled" ? "scheduled" : m[3] ? "before-migration" : "manual";
    out.push({ path: join(dir, name), kind, createdAt, bytes: statSync(join(dir, name)).size });
  }
  return out.sort((a, b) => b.createdAt - a.createdAt || (a.path < b.path ? 1 : -1));
}

const pidAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Staging dirs and partial archives of backups whose process died (a kill, a power cut). */
function removeLeftovers(dir: string): void {
  for (const name of readdirSync(dir)) {
    const m = /^\.snapshot-(\d+)-|\.(\d+)\.partial$/.exec(name);
    if (m && !pidAlive(Number(m[1] ?? m[2]))) rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/**
 * Copies the live database. Through the server's own connection (`db`) the copy goes in small
 * steps between requests, and the server's writes meanwhile are carried into it. From another
 * process, a write by the server would restart a stepwise copy (forever, under steady load), so
 * the copy is made in one step inside one read transaction; WAL keeps the server writing.
 */
async function snapshotDatabase(dataDir: string, target: string, db: DB | undefined): Promise<void> {
  if (db) {
    await db.backup(target, { progress: () => 256 });
    return;
  }
  const live = new Database(databasePath(dataDir), { fileMustExist: true });
  try {
    live.pragma("busy_timeout = 5000");
    await live.backup(target, { progress: () => 0x7fffffff });
  } finally {
    live.close();
  }
}

export interface CreateBackupOptions {
  /** Archive path (default: DATA_DIR/backups/<defaultBackupName>). */
  out?: string;
  now?: Date;
  kind?: BackupKind;
  /** The running server's connection, when the server itself makes the backup. */
  db?: DB;
}

/**
 * Consistent online snapshot: the database is copied first (one consistent state), media
 * files are added after it, so a file deleted in between may be missing from the archive but a
 * row never points to a file that was not there yet.
 */
export async function createBackup(dataDir: string, opts: CreateBackupOptions = {}): Promise<string> {
  const now = opts.now ?? new Date();
  const kind = opts.kind ?? "manual";
  const suffix = kind === "scheduled" ? "scheduled" : undefined;
  const target = resolve(opts.out ?? join(backupsDir(dataDir), defaultBackupName(now, suffix)));
  if (existsSync(target)) throw new BackupError(`${target} already exists`);
  mkdirSync(dirname(target), { recursive: true });
  mkdirSync(backupsDir(dataDir), { recursive: true });
  removeLeftovers(backupsDir(dataDir));
  // Staged inside the data dir so tar can add it relative to the same cwd as media/.
  const stage = mkdtempSync(join(backupsDir(dataDir), `.snapshot-${process.pid}-`));
  const partial = `${target}.${process.pid}.partial`;
  try {
    const snapshot = join(stage, "roost.db");
    await snapshotDatabase(dataDir, snapshot, opts.db);
    const snap = new Database(snapshot);
    let schemaVersion: number;
    try {
      // A self-contained file: no -wal beside it in the archive.
      snap.pragma("journal_mode = DELETE");
      const row = snap.prepare("SELECT max(version) AS v FROM schema_migrations").get() as { v: number | null };
      schemaVersion = row.v ?? 0;
    } finally {
      snap.close();
    }
    const manifest: BackupManifest = { format: FORMAT, version: 1, createdAt: now.toISOString(), schemaVersion, roostVersion: ROOST_VERSION, kind };
    writeFileSync(join(stage, MANIFEST), JSON.stringify(manifest, null, 2) + "\n");

    const stageRel = relative(dataDir, stage).split("\\").join("/");
    const entries = [`${stageRel}/${MANIFEST}`, `${stageRel}/roost.db`, "config.json"];
    if (existsSync(mediaPath(dataDir))) entries.push("media");
    await tar.c(
      {
        gzip: true,
        file: partial,
        cwd: dataDir,
        portable: true,
        strict: true,
        onWriteEntry: (e) => {
          if (e.path.startsWith(stageRel + "/")) e.path = e.path.slice(stageRel.length + 1);
        },
      },
      entries,
    );
    // The archive holds the instance secret and private keys.
    chmodSync(partial, 0o600);
    renameSync(partial, target);
    return target;
  } finally {
    rmSync(stage, { recursive: true, force: true });
    rmSync(partial, { force: true });
  }
}

/** Newest schema version this roost knows. */
export const latestSchemaVersion = () => Math.max(0, ...loadMigrations().map((m) => m.version));

/**
 * Unpacks an archive into `stage` and checks it: a roost backup, complete, its database intact
 * (`quick` checks the pages and index order cheaply; `full` is integrity_check) and not from a
 * newer roost. Throws BackupError naming what is wrong.
 */
export async function unpackBackup(file: string, stage: string, check: "quick" | "full"): Promise<BackupManifest> {
  const archive = resolve(file);
  if (!existsSync(archive)) throw new BackupError(`no such file: ${archive}`);
  try {
    await tar.x({ file: archive, cwd: stage, strict: true, filter: (p) => ENTRY_RE.test(p.replace(/\/$/, "")) });
  } catch (e) {
    throw new BackupError(`${archive} is not a readable roost backup (${(e as Error).message})`);
  }
  let manifest: Partial<BackupManifest> = {};
  try {
    manifest = JSON.parse(readFileSync(join(stage, MANIFEST), "utf8"));
  } catch {
    // reported below
  }
  if (manifest.format !== FORMAT) throw new BackupError(`${archive} is not a roost backup (no ${MANIFEST})`);
  for (const f of ["roost.db", "config.json"]) {
    if (!existsSync(join(stage, f))) throw new BackupError(`${archive} is incomplete: ${f} is missing`);
  }
  const latest = latestSchemaVersion();
  if (typeof manifest.schemaVersion === "number" && manifest.schemaVersion > latest) {
    throw new BackupError(`${archive} was made by a newer roost (schema ${manifest.schemaVersion}; this roost knows up to ${latest}): upgrade roost first`);
  }
  let problem: string | undefined;
  try {
    const db = new Database(join(stage, "roost.db"), { fileMustExist: true });
    try {
      const rows = db.pragma(check === "full" ? "integrity_check(20)" : "quick_check(20)", { simple: false }) as Record<string, string>[];
      const lines = rows.map((r) => Object.values(r)[0]);
      if (lines.length !== 1 || lines[0] !== "ok") problem = lines.join("; ");
    } finally {
      db.close();
    }
  } catch (e) {
    problem = (e as Error).message;
  }
  if (problem) throw new BackupError(`the database in ${archive} is damaged: ${problem}`);
  return manifest as BackupManifest;
}

function isEmptyDir(dir: string): boolean {
  return !existsSync(dir) || (statSync(dir).isDirectory() && readdirSync(dir).length === 0);
}

/** Unpacks a backup into an empty or non-initialised data dir; the config file goes in last. */
export async function restoreBackup(dataDir: string, file: string, check: "quick" | "full" = "quick"): Promise<BackupManifest> {
  if (isInitialised(dataDir) || existsSync(databasePath(dataDir)) || !isEmptyDir(mediaPath(dataDir))) {
    throw new BackupError(`${dataDir} already holds an instance: restore only into an empty or non-initialised data dir`);
  }
  mkdirSync(dataDir, { recursive: true });
  const stage = mkdtempSync(join(dataDir, ".restore-"));
  try {
    const manifest = await unpackBackup(file, stage, check);
    renameSync(join(stage, "roost.db"), databasePath(dataDir));
    const media = mediaPath(dataDir);
    if (existsSync(join(stage, "media"))) {
      rmSync(media, { recursive: true, force: true }); // empty, checked above
      renameSync(join(stage, "media"), media);
    } else {
      mkdirSync(media, { recursive: true });
    }
    renameSync(join(stage, "config.json"), configPath(dataDir));
    return manifest;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
