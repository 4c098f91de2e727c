import type { Command } from "commander";
import type { App } from "../src/app.ts";
import { type Config, loadConfig } from "../src/config/config.ts";
import { closeApp, createApp } from "../src/main.ts";
import { backupBeforeMigrating } from "../src/ops/backup-schedule.ts";
import { dataDirOf, requireInitialised, requireWritable } from "./context.ts";

/**
 * Runs a one-shot command against an initialised data dir. The app is created without the
 * HTTP server or the job runner and is always closed, so the process exits promptly.
 */
export async function withApp<T>(cmd: Command, fn: (app: App) => Promise<T> | T, overrides: Partial<Config> = {}): Promise<T> {
  const dataDir = dataDirOf(cmd);
  requireInitialised(dataDir);
  requireWritable(dataDir);
  // createApp migrates: an upgraded roost's first command backs the instance up first.
  const backup = await backupBeforeMigrating(dataDir);
  if (backup) process.stderr.write(`backed up to ${backup.path} before applying ${backup.pending.length} migration(s)\n`);
  const app = createApp(loadConfig(dataDir, { jobsAutorun: false, ...overrides }));
  try {
    return await fn(app);
  } finally {
    await closeApp(app);
  }
}
