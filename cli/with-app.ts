import type { Command } from "commander";
import type { App } from "../src/app.ts";
import { type Config, loadConfig } from "../src/config/config.ts";
import { closeApp, createApp } from "../src/main.ts";
import { dataDirOf, requireInitialised } from "./context.ts";

/**
 * Runs a one-shot command against an initialised data dir. The app is created without the
 * HTTP server or the job runner and is always closed, so the process exits promptly.
 */
export async function withApp<T>(cmd: Command, fn: (app: App) => Promise<T> | T, overrides: Partial<Config> = {}): Promise<T> {
  const dataDir = dataDirOf(cmd);
  requireInitialised(dataDir);
  const app = createApp(loadConfig(dataDir, { jobsAutorun: false, ...overrides }));
  try {
    return await fn(app);
  } finally {
    await closeApp(app);
  }
}
