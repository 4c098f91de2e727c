import Database from "better-sqlite3";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "../db/migrate.ts";
import { databasePath, mediaPath } from "../services/init.ts";
import { type BackupManifest, BackupError, restoreBackup } from "./backup-archive.ts";
import { directoryUsage } from "./disk-usage.ts";

// `roost backup verify FILE`: proves a backup restores. It is restored into a temporary data
// dir exactly as `roost backup restore` would, then checked there: SQLite's full integrity
// check, foreign keys, the migrations up to this roost's schema, row counts, and the media
// files the rows name.

export interface BackupVerification {
  file: string;
  manifest: BackupManifest;
  /** Migrations this roost would apply when serving the restored instance. */
  migrationsApplied: string[];
  rows: Record<string, number>;
  media: { files: number; bytes: number; missing: number; missingExamples: string[] };
}

/** What the row counts report: the operator recognises their instance in these. */
const COUNTS: [string, string][] = [
  ["local accounts", "SELECT count(*) FROM accounts WHERE domain IS NULL"],
  ["remote accounts", "SELECT count(*) FROM accounts WHERE domain IS NOT NULL"],
  ["users", "SELECT count(*) FROM users"],
  ["local statuses", "SELECT count(*) FROM statuses WHERE local = 1"],
  ["remote statuses", "SELECT count(*) FROM statuses WHERE local = 0"],
  ["follows", "SELECT count(*) FROM follows"],
  ["favourites", "SELECT count(*) FROM favourites"],
  ["media attachments", "SELECT count(*) FROM media_attachments"],
  ["notifications", "SELECT count(*) FROM notifications"],
  ["pending jobs", "SELECT count(*) FROM jobs"],
];

/** Files under media/ that rows point to (attachments, thumbnails, avatars, headers). */
const MEDIA_REFERENCES = `
  SELECT file AS f FROM media_attachments WHERE file IS NOT NULL AND remote_url IS NULL
  UNION ALL SELECT thumbnail_file FROM media_attachments WHERE thumbnail_file IS NOT NULL AND remote_url IS NULL
  UNION ALL SELECT avatar_file FROM accounts WHERE avatar_file IS NOT NULL AND domain IS NULL
  UNION ALL SELECT header_file FROM accounts WHERE header_file IS NOT NULL AND domain IS NULL`;

export async function verifyBackup(file: string, tmpRoot: string): Promise<BackupVerification> {
  const work = mkdtempSync(join(tmpRoot, "roost-verify-"));
  try {
    const dataDir = join(work, "data");
    const manifest = await restoreBackup(dataDir, file, "full");
    const db = new Database(databasePath(dataDir), { fileMustExist: true });
    try {
      db.pragma("foreign_keys = ON");
      const fk = db.pragma("foreign_key_check") as { table: string; rowid: number; parent: string }[];
      if (fk.length > 0) {
        const first = fk[0];
        throw new BackupError(`the database in ${file} is inconsistent: ${fk.length} row(s) point to missing rows (first: ${first.table} row ${first.rowid} → ${first.parent})`);
      }
      let migrationsApplied: string[];
      try {
        migrationsApplied = migrate(db);
      } catch (e) {
        throw new BackupError(`the database in ${file} cannot be brought up to this roost's schema: ${(e as Error).message}`);
      }
      const rows: Record<string, number> = {};
      for (const [name, sql] of COUNTS) rows[name] = Number(db.prepare(sql).pluck().get());
      const media = mediaPath(dataDir);
      const missingExamples: string[] = [];
      let missing = 0;
      for (const rel of db.prepare(MEDIA_REFERENCES).pluck().iterate() as IterableIterator<string>) {
        if (existsSync(join(media, rel))) continue;
        missing++;
        if (missingExamples.length < 5) missingExamples.push(rel);
      }
      const usage = directoryUsage(media);
      return { file, manifest, migrationsApplied, rows, media: { files: usage.files, bytes: usage.bytes, missing, missingExamples } };
    } finally {
      db.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
