import type { App } from "../../app.ts";
import type { Id } from "../../lib/ids.ts";
import type { JobInfo } from "../jobs.ts";
import { giveUpMedia, processPendingMedia } from "../../services/media-processing.ts";
import { MEDIA_PROCESS_ATTEMPTS } from "../../services/media-uploads.ts";
import { removeExpiredUploads, removeStoredMediaFiles } from "../../services/media-cleanup.ts";

/**
 * `media.process`, enqueued with every upload: joins the run the request started, or processes
 * the upload itself (after a crash, or when the request did not wait). A refused file is
 * recorded on the row (failed); other errors throw, and the job is retried.
 */
export async function handleMediaProcess(app: App, payload: { mediaId: Id }, job: JobInfo): Promise<void> {
  const id = String(payload.mediaId);
  let outcome;
  try {
    outcome = await processPendingMedia(app, id);
  } catch (err) {
    // The last attempt: the upload is failed rather than left queued (206) for a day.
    if (job.attempts >= MEDIA_PROCESS_ATTEMPTS) await giveUpMedia(app, id);
    throw err;
  }
  if (outcome.kind === "refused") app.log.info("media upload refused while processing", { mediaId: id, error: outcome.error });
}

/** `media.remove_files`: files of uploads whose rows are gone (a status deleted with its media). */
export async function handleMediaRemoveFiles(app: App, payload: { files: string[] }): Promise<void> {
  await removeStoredMediaFiles(app, Array.isArray(payload.files) ? payload.files.filter((f) => typeof f === "string") : []);
}

/** Periodic: uploads no status took within a day, and leftovers in the staging area. */
export async function cleanupMedia(app: App): Promise<void> {
  await removeExpiredUploads(app);
}
