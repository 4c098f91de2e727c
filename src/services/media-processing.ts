import { existsSync } from "node:fs";
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { randomToken } from "../lib/crypto.ts";
import { ensureStagingDir, pendingUploadPath, processingOutputPrefix, removeStaged } from "../media/staging.ts";
import { mediaStore } from "../media/store.ts";
import { type UploadKind, uploadTypeOf } from "../media/upload-types.ts";
import type { MediaAttachment, MediaMeta, MediaType } from "../storage/media-attachments.ts";
import { completeUpload, failUpload, findMediaById } from "../storage/media-uploads.ts";
import type { MediaImageResult, StagedImage, ThumbnailResult } from "../workers/media-tasks.ts";

// Turning a queued upload into stored files. The request that received the file starts it
// (and waits, up to a point); the `media.process` job, enqueued with the upload, awaits the same
// run or, after a crash or for asynchronous kinds, does the work itself. One run per upload at
// a time (the in-flight map), and a run writes only while the row is still queued, so two runs
// can never both store files for it.

/** What a processing step made: the stored original, its preview, and the entity's details. */
export interface ProcessedFiles {
  type: MediaType;
  original: StagedImage;
  small: StagedImage | null;
  blurhash: string | null;
  meta: MediaMeta;
}

/** A processing step per kind of upload; video and audio add theirs (ffmpeg, in the job). */
type Processor = (app: App, input: string, outputPrefix: string) => Promise<ProcessedFiles | { error: string }>;

const PROCESSORS: Record<UploadKind, Processor> = {
  async image(app, input, outputPrefix) {
    const r = await app.pool.run<MediaImageResult>("processMediaImage", { input, outputPrefix });
    if (!r.ok) return { error: r.error };
    // Animated GIFs stay `image` (an animated GIF file). Mastodon turns them into `gifv`, a
    // silent MP4, which needs ffmpeg: that comes with video processing.
    return {
      type: "image",
      original: r.original,
      small: r.small,
      blurhash: r.blurhash,
      meta: { original: { width: r.original.width, height: r.original.height }, small: { width: r.small.width, height: r.small.height } },
    };
  },
};

export type ProcessOutcome =
  | { kind: "done"; media: MediaAttachment }
  /** The upload was refused while processing: `error` is for the client. */
  | { kind: "refused"; error: string }
  /** No row (deleted meanwhile). */
  | { kind: "gone" };

const INFLIGHT = "media:inflight";
function inflight(app: App): Map<Id, Promise<ProcessOutcome>> {
  let m = app.cache.get(INFLIGHT) as Map<Id, Promise<ProcessOutcome>> | undefined;
  if (!m) app.cache.set(INFLIGHT, (m = new Map()));
  return m;
}

/** True while this process works on the upload (the staging sweep leaves its files alone). */
export function isProcessing(app: App, id: Id): boolean {
  return inflight(app).has(id);
}

/**
 * Processes a queued upload, or joins the run already going for it. Registers the run before
 * its first await, so a caller that just queued the upload and calls this at once owns it.
 * Throws on failures that are not the file's fault (the job retries those).
 */
export function processPendingMedia(app: App, id: Id): Promise<ProcessOutcome> {
  const runs = inflight(app);
  const running = runs.get(id);
  if (running) return running;
  const run = processOnce(app, id).finally(() => runs.delete(id));
  runs.set(id, run);
  return run;
}

/** Public names of an upload's files: a random folder, so no URL can be guessed from an id. */
function storedNames(original: StagedImage, small: StagedImage | null): { file: string; small: string | null } {
  const ext = (p: string) => p.slice(p.lastIndexOf(".") + 1);
  const folder = `media_attachments/${randomToken(12)}`;
  return { file: `${folder}/original.${ext(original.path)}`, small: small ? `${folder}/small.${ext(small.path)}` : null };
}

async function processOnce(app: App, id: Id): Promise<ProcessOutcome> {
  const row = findMediaById(app.db, id);
  if (!row) return { kind: "gone" };
  if (row.state !== "queued") return row.state === "complete" ? { kind: "done", media: row } : { kind: "refused", error: PROCESSING_ERROR };
  const input = pendingUploadPath(app, id);
  const kind = row.contentType ? uploadTypeOf(row.contentType)?.kind : undefined;
  if (!kind || !existsSync(input)) {
    failUpload(app.db, id, app.now());
    return { kind: "refused", error: PROCESSING_ERROR };
  }
  await ensureStagingDir(app);
  const made = await PROCESSORS[kind](app, input, processingOutputPrefix(app, id));
  if ("error" in made) {
    failUpload(app.db, id, app.now());
    await removeStaged([input]);
    return { kind: "refused", error: made.error };
  }
  const store = mediaStore(app);
  const names = storedNames(made.original, made.small);
  try {
    await store.putFile(names.file, made.original.path, made.original.contentType);
    if (made.small && names.small) await store.putFile(names.small, made.small.path, made.small.contentType);
  } catch (err) {
    await store.remove([names.file, names.small]);
    await removeStaged([made.original.path, made.small?.path]);
    throw err;
  }
  const stored = tx(app.db, () => {
    // Focus may have been set (PUT /api/v1/media/:id) while the files were being made.
    const current = findMediaById(app.db, id);
    if (!current) return false;
    return completeUpload(app.db, id, {
      type: made.type,
      file: names.file,
      smallFile: names.small,
      contentType: made.original.contentType,
      fileSize: made.original.size,
      blurhash: made.blurhash,
      meta: { ...made.meta, ...(current.meta.focus ? { focus: current.meta.focus } : {}) },
      at: app.now(),
    });
  });
  await removeStaged([input]);
  if (!stored) {
    await store.remove([names.file, names.small]);
    const now = findMediaById(app.db, id);
    return now ? { kind: "done", media: now } : { kind: "gone" };
  }
  return { kind: "done", media: findMediaById(app.db, id)! };
}

/** Gives a queued upload up (its last processing attempt failed): GET answers 422 from now on. */
export async function giveUpMedia(app: App, id: Id): Promise<void> {
  failUpload(app.db, id, app.now());
  await removeStaged([pendingUploadPath(app, id)]);
}

/** Mastodon's answer for an upload whose processing failed (GET/PUT /api/v1/media/:id: 422). */
export const PROCESSING_ERROR = "Error processing thumbnail for uploaded media";

export interface StoredThumbnail {
  file: string;
  blurhash: string;
}

/**
 * A custom preview (`thumbnail`): resized in the pool and stored. Refused input is a 422 with
 * the message the worker gave.
 */
export async function storeThumbnail(app: App, mediaId: Id, staged: string): Promise<StoredThumbnail | { error: string }> {
  await ensureStagingDir(app);
  const r = await app.pool.run<ThumbnailResult>("processMediaThumbnail", { input: staged, outputPrefix: processingOutputPrefix(app, mediaId) });
  if (!r.ok) return { error: r.error };
  const file = `media_attachments/${randomToken(12)}/thumbnail.jpg`;
  try {
    await mediaStore(app).putFile(file, r.thumbnail.path, r.thumbnail.contentType);
  } catch (err) {
    await removeStaged([r.thumbnail.path]);
    throw err;
  }
  return { file, blurhash: r.blurhash };
}

/** Every stored file of an attachment. */
export function mediaFiles(m: MediaAttachment): string[] {
  return [m.file, m.smallFile, m.thumbnailFile].filter((f): f is string => f !== null);
}
