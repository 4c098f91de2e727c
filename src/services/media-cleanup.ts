import { basename } from "node:path";
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { removeStaged, pendingUploadPath, sweepStaging } from "../media/staging.ts";
import { mediaStore } from "../media/store.ts";
import { deleteMediaRow, deleteStatusUploads, findMediaById, listExpiredUploads } from "../storage/media-uploads.ts";
import { isProcessing, mediaFiles } from "./media-processing.ts";

// Removing uploads and their files: a status deleted with `delete_media`, and uploads no status
// holds a day after they were made (never posted, or their status was deleted: Mastodon keeps
// those for a redraft about as long).

const DAY = 86_400_000;
const BATCH = 100;

/**
 * Inside the status deletion's transaction: removes the status's uploads and queues the
 * removal of their files (the `media.remove_files` job commits with the deletion).
 */
export function deleteStatusMedia(app: App, statusId: Id): void {
  const gone = deleteStatusUploads(app.db, statusId);
  const files = gone.flatMap(mediaFiles);
  if (files.length) app.jobs.enqueue("media.remove_files", { files });
}

/** The `media.remove_files` job. */
export async function removeStoredMediaFiles(app: App, files: string[]): Promise<void> {
  await mediaStore(app).remove(files);
}

/**
 * The periodic clean-up: uploads unattached for a day go with their files, and the staging
 * area loses what interrupted requests left. Returns how many uploads were removed.
 */
export async function removeExpiredUploads(app: App): Promise<number> {
  const before = app.now() - DAY;
  let removed = 0;
  for (;;) {
    const batch = listExpiredUploads(app.db, before, BATCH).filter((m) => !isProcessing(app, m.id));
    if (batch.length === 0) break;
    tx(app.db, () => {
      for (const m of batch) deleteMediaRow(app.db, m.id);
    });
    await mediaStore(app).remove(batch.flatMap(mediaFiles));
    await removeStaged(batch.map((m) => pendingUploadPath(app, m.id)));
    removed += batch.length;
    if (batch.length < BATCH) break;
  }
  // A queued upload's file waits in the staging area for its job: keep those.
  await sweepStaging(app, before, (name) => keepsStaged(app, name));
  if (removed) app.log.info("removed unattached media", { count: removed });
  return removed;
}

/** `<id>-upload` of a still queued upload, and anything of an upload being processed now. */
function keepsStaged(app: App, name: string): boolean {
  const m = /^(\d+)-/.exec(basename(name));
  if (!m) return false;
  if (isProcessing(app, m[1])) return true;
  return name.endsWith("-upload") && findMediaById(app.db, m[1])?.state === "queued";
}
