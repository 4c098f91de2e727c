// A copy of a bench instance's data dir for a second server: `roost serve` refuses a data dir
// another serve runs on (its admin socket, src/ops/admin-socket.ts), so a cold start is timed
// on a copy while the bench's own server keeps the original.
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import Database from "better-sqlite3";
import { databasePath } from "../../src/services/init.ts";
import { adminSocketPath } from "../../src/ops/admin-socket.ts";

/**
 * Copies `dataDir` into a new temp dir (returned as `{ work, dataDir }`; the caller removes
 * `work`): the database through SQLite's backup API (consistent while a server writes to it;
 * its -wal and -shm files are not copied), every other file as it is (config, keys, media),
 * the admin socket left out.
 */
export async function copyDataDir(dataDir: string): Promise<{ work: string; dataDir: string }> {
  const work = mkdtempSync(join(tmpdir(), "roost-copy-"));
  const copy = join(work, basename(dataDir));
  const db = databasePath(dataDir);
  const socket = adminSocketPath(dataDir);
  cpSync(dataDir, copy, { recursive: true, filter: (src) => !src.startsWith(db) && src !== socket });
  const source = new Database(db, { readonly: true, fileMustExist: true });
  try {
    await source.backup(databasePath(copy));
  } finally {
    source.close();
  }
  return { work, dataDir: copy };
}
