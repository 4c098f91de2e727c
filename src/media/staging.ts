import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { App } from "../app.ts";
import { randomToken } from "../lib/crypto.ts";

// The staging area: uploads as they arrive and the worker pool's output before it is stored.
// It lives in the data dir but outside media/, so nothing in it is ever served.

export function stagingDir(app: App): string {
  return join(app.config.dataDir, "tmp", "media");
}

/** Makes the staging folder (once per process is enough; mkdir -p is cheap). */
export async function ensureStagingDir(app: App): Promise<string> {
  const dir = stagingDir(app);
  await mkdir(dir, { recursive: true });
  return dir;
}

/** A fresh path for an arriving upload. */
export function newStagedPath(app: App): string {
  return join(stagingDir(app), `upload-${randomToken(12)}`);
}

/** Where a queued media attachment's upload waits until it is processed. */
export function pendingUploadPath(app: App, mediaId: string): string {
  return join(stagingDir(app), `${mediaId}-upload`);
}

/** The prefix of the worker's output files for a media attachment (`<prefix>original.jpg` ...). */
export function processingOutputPrefix(app: App, mediaId: string): string {
  return join(stagingDir(app), `${mediaId}-`);
}

export async function removeStaged(paths: (string | undefined)[]): Promise<void> {
  await Promise.all(paths.map((p) => (p ? rm(p, { force: true }).catch(() => {}) : undefined)));
}

/**
 * Removes staged files older than `before` (ms): what an interrupted request or a crash left.
 * Files of queued attachments are kept (`keep`): their processing job still needs them.
 */
export async function sweepStaging(app: App, before: number, keep: (name: string) => boolean): Promise<number> {
  let names: string[];
  try {
    names = await readdir(stagingDir(app));
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (keep(name)) continue;
    const full = join(stagingDir(app), name);
    const info = await stat(full).catch(() => undefined);
    if (info && info.mtimeMs < before) {
      await rm(full, { force: true, recursive: true }).catch(() => {});
      removed++;
    }
  }
  return removed;
}
