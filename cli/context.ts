import type { Command } from "commander";
import { resolve } from "node:path";
import { defaultDataDir, isInitialised } from "../src/config/config.ts";
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

/** Reads all of standard input (for --password-stdin). */
export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write("reading from standard input (end with Ctrl-D)\n");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}
