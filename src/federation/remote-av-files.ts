import type { App } from "../app.ts";
import { ffmpegTools } from "../media/ffmpeg.ts";
import { ensureStagingDir, newStagedPath, removeStaged } from "../media/staging.ts";
import { readFileHead, sniffUploadType, type UploadType } from "../media/upload-types.ts";
import type { MediaAttachment, MediaMeta, MediaType } from "../storage/media-attachments.ts";
import type { StagedImage } from "../workers/media-tasks.ts";
import { FetchError, safeFetch } from "./net/safe-fetch.ts";

// The file of a remote video, gifv or audio attachment, copied for the remote media cache
// (federation/remote-media-cache.ts): fetched by the safe fetch straight to the staging area
// (up to maxRemoteMediaBytes, 99 MB as Mastodon's remote limit: never held in memory), its kind
// checked from its bytes, then processed exactly as an upload of it would be (metadata
// dropped, remuxed or transcoded to what browsers play, a poster frame as preview), by the
// processor the job passes in (services/media-av.ts processAvUpload: federation modules other
// than the inbox call no services).

/** What processing an upload makes (services/media-processing.ts ProcessedFiles). */
export interface ProcessedAv {
  type: MediaType;
  original: StagedImage;
  small: StagedImage | null;
  blurhash: string | null;
  meta: MediaMeta;
}

export type AvProcessor = (app: App, input: string, outputPrefix: string, type: UploadType) => Promise<ProcessedAv | { error: string }>;

/** Fetching 99 MB from a slow peer takes longer than a document's 30 s. */
const FETCH_TIMEOUT_MS = 180_000;

const AV_TYPES: ReadonlySet<MediaType> = new Set(["video", "gifv", "audio"]);

/** Whether this attachment's own file is copied (not only its preview). */
export function copiesAvFile(app: App, m: MediaAttachment, processor: AvProcessor | undefined): processor is AvProcessor {
  return processor !== undefined && m.remoteUrl !== null && AV_TYPES.has(m.type) && ffmpegTools(app) !== undefined;
}

/**
 * Fetches and processes the attachment's file; the staged result, or undefined (logged) when it
 * cannot be had: unreachable, refused, over the limit, not video or audio by its bytes, or
 * refused by processing (longer than maxVideoSeconds, undecodable...).
 */
export async function fetchRemoteAvFile(app: App, m: MediaAttachment, processor: AvProcessor): Promise<ProcessedAv | undefined> {
  await ensureStagingDir(app);
  const input = newStagedPath(app);
  try {
    let status: number;
    try {
      const res = await safeFetch(app, m.remoteUrl!, {
        maxBytes: app.config.maxRemoteMediaBytes,
        timeoutMs: FETCH_TIMEOUT_MS,
        headers: { accept: "video/*, audio/*" },
        saveTo: input,
      });
      status = res.status;
    } catch (err) {
      if (err instanceof FetchError) return undefined; // logged by safeFetch
      throw err;
    }
    const type = status === 200 ? sniffUploadType(await readFileHead(input)) : undefined;
    if (type?.kind !== "video" && type?.kind !== "audio") {
      app.log.info("remote media file not cached", { url: m.remoteUrl, status, type: type?.contentType ?? null });
      return undefined;
    }
    const made = await processor(app, input, `${input}-`, type);
    if ("error" in made) {
      app.log.info("remote media file not cached", { url: m.remoteUrl, reason: made.error });
      return undefined;
    }
    return made;
  } finally {
    await removeStaged([input]);
  }
}
