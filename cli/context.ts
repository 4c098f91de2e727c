import type { Command } from "commander";
import { accessSync, constants, existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { defaultDataDir, isInitialised } from "../src/config/config.ts";
import { databasePath } from "../src/services/init.ts";
import { CliError } from "./errors.ts";

// Light on purpose: command modules load the app (src/main.ts, ~300 ms through tsx) only
// inside their actions, so `init`, `migrate`, `backup` and `--help` start fast.

/** Options every command accepts (declared once on the program). */
export interface GlobalOptions {
  dataDir?: string;
  verbose?: boolean;
}

export function globalOptions(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals() as GlobalOptions;
}

/** --data-dir, else $ROOST_DATA_DIR, else ./data; always absolute. */
export function dataDirOf(cmd: Command): string {
  const dir = globalOptions(cmd).dataDir;
  return dir ? resolve(dir) : defaultDataDir();
}

export function requireInitialised(dataDir: string): void {
  if (!isInitialised(dataDir)) {
    throw new CliError(`${dataDir} is not initialised (run: roost init --data-dir ${dataDir} --domain HOST)`);
  }
}

/**
 * Commands that write (the database, media, backups) check the data dir first, so a read-only
 * mount or a wrong owner is one clear line instead of SQLite's "attempt to write a readonly
 * database" halfway through. A dir that does not exist yet is judged by its nearest parent.
 */
export function requireWritable(dataDir: string): void {
  let dir = dataDir;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  const db = databasePath(dataDir);
  for (const p of [dir, db, `${db}-wal`, `${db}-shm`]) {
    if (p !== dir && !existsSync(p)) continue;
    try {
      accessSync(p, constants.W_OK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const who = process.getuid ? ` by this user (uid ${process.getuid()})` : "";
      const why = code === "EROFS" ? "is on a read-only file system" : `is not writable${who}`;
      throw new CliError(`${p} ${why}: roost writes its database, media and backups in the data dir ${dataDir}`);
    }
  }
}

/** Reads all of standard input (for --password-stdin). */
export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write("reading from standard input (end with Ctrl-D)\n");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}
