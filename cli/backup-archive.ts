import Database from "better-sqlite3";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import * as tar from "tar";
import { configPath, isInitialised } from "../src/config/config.ts";
import { databasePath, mediaPath } from "../src/services/init.ts";
import { CliError } from "./errors.ts";

/**
 * Backups are one .tar.gz holding roost-backup.json (a manifest), roost.db (an online
 * snapshot), config.json (the instance secret and VAPID keys live there) and media/.
 */
const MANIFEST = "roost-backup.json";
const FORMAT = "roost-backup";
const ENTRY_RE = /^(roost-backup\.json|roost\.db|config\.json|media(\/.*)?)$/;

interface Manifest {
  format: string;
  version: number;
  createdAt: string;
  schemaVersion: number;
}

/** roost-YYYYMMDD-HHMMSS (UTC). */
export function defaultBackupName(at: Date): string {
  const d = at.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `roost-${d}.tar.gz`;
}

/**
 * Consistent online snapshot: SQLite's backup API copies the database page by page while the
 * server keeps running; media files are added after it, so a file deleted in between may be
 * missing from the archive but a row never points to a file that was not there yet.
 */
export async function createBackup(dataDir: string, out: string | undefined, now = new Date()): Promise<string> {
  const target = resolve(out ?? join(dataDir, "backups", defaultBackupName(now)));
  if (existsSync(target)) throw new CliError(`${target} already exists`);
  mkdirSync(dirname(target), { recursive: true });
  mkdirSync(join(dataDir, "backups"), { recursive: true });
  // Staged inside the data dir so tar can add it relative to the same cwd as media/.
  const stage = mkdtempSync(join(dataDir, "backups", ".snapshot-"));
  const partial = `${target}.partial`;
  try {
    const snapshot = join(stage, "roost.db");
    const live = new Database(databasePath(dataDir), { fileMustExist: true });
    try {
      live.pragma("busy_timeout = 5000");
      await live.backup(snapshot);
    } finally {
      live.close();
    }
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
    const manifest: Manifest = { format: FORMAT, version: 1, createdAt: now.toISOString(), schemaVersion };
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

function isEmptyDir(dir: string): boolean {
  return !existsSync(dir) || (statSync(dir).isDirectory() && readdirSync(dir).length === 0);
}

/** Unpacks a backup into an empty or non-initialised data dir; the config file goes in last. */
export async function restoreBackup(dataDir: string, file: string): Promise<void> {
  const archive = resolve(file);
  if (!existsSync(archive)) throw new CliError(`no such file: ${archive}`);
  if (isInitialised(dataDir) || existsSync(databasePath(dataDir)) || !isEmptyDir(mediaPath(dataDir))) {
    throw new CliError(`${dataDir} already holds an instance: restore only into an empty or non-initialised data dir`);
  }
  mkdirSync(dataDir, { recursive: true });
  const stage = mkdtempSync(join(dataDir, ".restore-"));
  try {
    try {
      await tar.x({ file: archive, cwd: stage, strict: true, filter: (p) => ENTRY_RE.test(p.replace(/\/$/, "")) });
    } catch (e) {
      throw new CliError(`${archive} is not a readable roost backup (${(e as Error).message})`);
    }
    let manifest: Partial<Manifest> = {};
    try {
      manifest = JSON.parse(readFileSync(join(stage, MANIFEST), "utf8"));
    } catch {
      // reported below
    }
    if (manifest.format !== FORMAT) throw new CliError(`${archive} is not a roost backup (no ${MANIFEST})`);
    for (const f of ["roost.db", "config.json"]) {
      if (!existsSync(join(stage, f))) throw new CliError(`${archive} is incomplete: ${f} is missing`);
    }
    const db = new Database(join(stage, "roost.db"), { fileMustExist: true });
    try {
      const check = db.pragma("quick_check", { simple: true });
      if (check !== "ok") throw new CliError(`the database in ${archive} is damaged: ${String(check)}`);
    } finally {
      db.close();
    }
    renameSync(join(stage, "roost.db"), databasePath(dataDir));
    const media = mediaPath(dataDir);
    if (existsSync(join(stage, "media"))) {
      rmSync(media, { recursive: true, force: true }); // empty, checked above
      renameSync(join(stage, "media"), media);
    } else {
      mkdirSync(media, { recursive: true });
    }
    renameSync(join(stage, "config.json"), configPath(dataDir));
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
