import { rename } from "node:fs/promises";
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { ApiError, notFound, unprocessable } from "../errors.ts";
import { type Id, parseId } from "../lib/ids.ts";
import { megabytes } from "../lib/sizes.ts";
import { ensureStagingDir, pendingUploadPath, removeStaged } from "../media/staging.ts";
import { ffmpegTools } from "../media/ffmpeg.ts";
import { mediaStore } from "../media/store.ts";
import { readFileHead, sniffUploadType } from "../media/upload-types.ts";
import type { Account } from "../storage/accounts.ts";
import type { MediaAttachment, MediaMeta } from "../storage/media-attachments.ts";
import { deleteMediaRow, findMediaById, insertUpload, updateUploadDetails } from "../storage/media-uploads.ts";
import { mediaFiles, PROCESSING_ERROR, processPendingMedia, storeThumbnail, type StoredThumbnail } from "./media-processing.ts";

// POST /api/v1/media and /api/v2/media, GET/PUT/DELETE /api/v1/media/:id (Mastodon's
// Api::V1::MediaController and Api::V2::MediaController).

/** Runs of `media.process` before an upload is given up (failed). */
export const MEDIA_PROCESS_ATTEMPTS = 3;

/** Mastodon's MediaAttachment::MAX_DESCRIPTION_LENGTH. */
export const MAX_DESCRIPTION_CHARS = 1500;

/** A file the HTTP layer wrote to the staging area; the service moves it when it keeps it. */
export interface StagedFile {
  path: string;
  size: number;
}

export interface MediaUploadInput {
  file?: StagedFile;
  thumbnail?: StagedFile;
  description?: string;
  focus?: string;
}

/** Alt text as stored: blank is none; longer than 1,500 characters is refused. */
export function checkDescription(raw: string | undefined): string | null | undefined {
  if (raw === undefined) return undefined;
  if ([...raw].length > MAX_DESCRIPTION_CHARS) {
    throw unprocessable(`Validation failed: Description is too long (maximum is ${MAX_DESCRIPTION_CHARS} characters)`);
  }
  return raw.trim() === "" ? null : raw;
}

/**
 * `focus=x,y` (-1..1 each, y up), read as leniently as Mastodon (String#to_f: junk is 0);
 * out-of-range values are clamped. Blank is "not given".
 */
export function parseFocus(raw: string | undefined): { x: number; y: number } | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const [x, y] = raw.split(",").map((part) => {
    const n = Number.parseFloat(part ?? "");
    return Number.isFinite(n) ? Math.min(1, Math.max(-1, n)) : 0;
  });
  return { x: x ?? 0, y: y ?? 0 };
}

async function thumbnailFor(app: App, mediaId: Id, staged: StagedFile): Promise<StoredThumbnail> {
  if (staged.size === 0) throw unprocessable("Validation failed: Thumbnail can't be blank");
  if (staged.size > app.config.maxImageBytes) {
    throw unprocessable(`Validation failed: Thumbnail file size must be less than ${megabytes(app.config.maxImageBytes)}`);
  }
  const type = sniffUploadType(await readFileHead(staged.path));
  if (type?.kind !== "image") throw unprocessable("Validation failed: Thumbnail content type is invalid");
  const stored = await storeThumbnail(app, mediaId, staged.path);
  if ("error" in stored) throw unprocessable(stored.error);
  return stored;
}

/** Resolves `p`, or undefined once `ms` have passed (`p` goes on). */
function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  if (!Number.isFinite(ms)) return p;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Takes an upload: checks it (type from its bytes, size, alt text), queues it with its
 * `media.process` job, and processes it in the pool. Waits up to `waitMs` (Infinity for
 * POST /api/v1/media); `ready` is false when processing goes on after the answer (202).
 */
export async function uploadMedia(
  app: App,
  account: Account,
  input: MediaUploadInput,
  opts: { waitMs: number },
): Promise<{ media: MediaAttachment; ready: boolean }> {
  const description = checkDescription(input.description) ?? null;
  const focus = parseFocus(input.focus);
  const staged = input.file;
  if (!staged || staged.size === 0) throw unprocessable("Validation failed: File can't be blank");
  const type = sniffUploadType(await readFileHead(staged.path));
  // Video and audio need ffmpeg (media/ffmpeg.ts); without it the instance lists image types only.
  if (!type || (type.kind !== "image" && !ffmpegTools(app))) throw unprocessable("Validation failed: File content type is invalid");
  if (type.kind === "image" && staged.size > app.config.maxImageBytes) {
    throw unprocessable(`Validation failed: File file size must be less than ${megabytes(app.config.maxImageBytes)}`);
  }

  const id = app.ids.next();
  const thumbnail = input.thumbnail ? await thumbnailFor(app, id, input.thumbnail) : undefined;
  await ensureStagingDir(app);
  await rename(staged.path, pendingUploadPath(app, id));
  const meta: MediaMeta = focus ? { focus } : {};
  tx(app.db, () => {
    insertUpload(app.db, {
      id,
      accountId: account.id,
      type: type.kind,
      contentType: type.contentType,
      fileSize: staged.size,
      description,
      meta,
      thumbnailFile: thumbnail?.file ?? null,
      blurhash: thumbnail?.blurhash ?? null,
      createdAt: app.now(),
    });
    // Crash safety and asynchronous processing: the job joins the run started below, or does it.
    // Few attempts: a file that kills the image process would take its other tasks along.
    app.jobs.enqueue("media.process", { mediaId: id }, { maxAttempts: MEDIA_PROCESS_ATTEMPTS });
  });
  // Video and audio are left to the job at once on v2 (Mastodon's delay_processing: 202, then
  // GET /api/v1/media/:id answers 206 until done); v1 waits for them too.
  const waitMs = type.kind === "image" ? opts.waitMs : Number.isFinite(opts.waitMs) ? 0 : opts.waitMs;
  if (waitMs <= 0) return { media: findMediaById(app.db, id)!, ready: false };

  const run = processPendingMedia(app, id);
  let outcome;
  try {
    outcome = await within(run, waitMs);
  } catch (err) {
    // Not the file's fault (the pool went away...): the job tries again.
    app.log.warn("media processing failed", { mediaId: id, err: err instanceof Error ? err.message : String(err) });
    throw new ApiError(500, PROCESSING_ERROR);
  }
  if (outcome === undefined) {
    run.catch(() => {}); // the job reports it
    return { media: findMediaById(app.db, id)!, ready: false };
  }
  if (outcome.kind === "done") return { media: outcome.media, ready: true };
  // Refused while processing (undecodable, too many pixels): nothing of it is kept.
  const row = findMediaById(app.db, id);
  if (row) deleteMediaRow(app.db, id);
  await mediaStore(app).remove(row ? mediaFiles(row) : [thumbnail?.file]);
  if (outcome.kind === "gone") throw notFound();
  throw unprocessable(outcome.error);
}

/**
 * GET and PUT /api/v1/media/:id: the caller's own upload while no status holds it (Mastodon
 * finds it among `media_attachments.where(status_id: nil)`), else 404; failed processing is 422.
 */
export function requireOwnUnattachedMedia(app: App, accountId: Id, rawId: unknown): MediaAttachment {
  const id = parseId(rawId);
  const m = id ? findMediaById(app.db, id) : undefined;
  if (!m || m.accountId !== accountId || m.statusId !== null || m.remoteUrl !== null) throw notFound();
  if (m.state === "failed") throw unprocessable(PROCESSING_ERROR);
  return m;
}

/**
 * PUT /api/v1/media/:id: alt text, focus and custom preview of an unattached upload (the seed:
 * the description may change only until the upload is attached).
 */
export async function updateUpload(app: App, media: MediaAttachment, input: Omit<MediaUploadInput, "file">): Promise<MediaAttachment> {
  const description = checkDescription(input.description);
  const focus = parseFocus(input.focus);
  const thumbnail = input.thumbnail ? await thumbnailFor(app, media.id, input.thumbnail) : undefined;
  const replaced = tx(app.db, () => {
    const current = findMediaById(app.db, media.id);
    if (!current || current.statusId !== null) return undefined;
    updateUploadDetails(app.db, media.id, {
      description: description === undefined ? current.description : description,
      meta: focus ? { ...current.meta, focus } : current.meta,
      thumbnailFile: thumbnail?.file ?? current.thumbnailFile,
      blurhash: thumbnail?.blurhash ?? current.blurhash,
      at: app.now(),
    });
    return current;
  });
  if (!replaced) {
    // Attached (or deleted) while the thumbnail was being made.
    await mediaStore(app).remove([thumbnail?.file]);
    throw notFound();
  }
  if (thumbnail && replaced.thumbnailFile) await mediaStore(app).remove([replaced.thumbnailFile]);
  return findMediaById(app.db, media.id)!;
}

/** DELETE /api/v1/media/:id: the caller's upload and its files, unless a status uses it. */
export async function deleteUpload(app: App, accountId: Id, rawId: unknown): Promise<void> {
  const id = parseId(rawId);
  const m = id ? findMediaById(app.db, id) : undefined;
  if (!m || m.accountId !== accountId || m.remoteUrl !== null) throw notFound();
  if (m.statusId !== null) throw unprocessable("Media attachment is currently used by a status");
  deleteMediaRow(app.db, m.id);
  await mediaStore(app).remove(mediaFiles(m));
  await removeStaged([pendingUploadPath(app, m.id)]);
}
