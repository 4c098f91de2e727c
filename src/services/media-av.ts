import { stat } from "node:fs/promises";
import type { App } from "../app.ts";
import {
  audioCommand,
  posterArgs,
  remuxVideoArgs,
  transcodeVideoArgs,
  videoLimitError,
  webPlayable,
} from "../media/av-commands.ts";
import { ffmpegTools, MediaToolError, runMediaTool, withMediaToolSlot } from "../media/ffmpeg.ts";
import { type MediaProbe, probeMedia } from "../media/probe.ts";
import { removeStaged } from "../media/staging.ts";
import type { UploadType } from "../media/upload-types.ts";
import type { MediaAvOriginal } from "../storage/media-attachments.ts";
import type { StagedImage, ThumbnailResult } from "../workers/media-tasks.ts";
import type { ProcessedFiles } from "./media-processing.ts";

// Video, gifv and audio uploads (issue 10 part 3), run from the `media.process` job: ffprobe
// decides what the file is, ffmpeg makes the stored file in a child process (web-playable
// video is only remuxed; the rest is transcoded to H.264/AAC MP4, one transcode at a time per
// server), and the poster frame goes through the image worker like a custom thumbnail (`small`
// and blurhash). As Mastodon's Paperclip::Transcoder: a video without sound is `gifv`.

/** Mastodon's message for a file it cannot read (Paperclip's, as for images). */
const UNVERIFIED = "File type of uploaded media could not be verified";

/** Time a probe or a poster may take; a transcode gets more (transcodeTimeoutMs). */
const QUICK_MS = 60_000;

/** A transcode's time budget: four times real time plus a minute (two slow cores), at most an hour. */
function transcodeTimeoutMs(duration: number | null, maxSeconds: number): number {
  return Math.min(3_600_000, 60_000 + 4_000 * Math.min(duration ?? maxSeconds, maxSeconds));
}

/** The stored file's details for `meta.original` (Mastodon's video_metadata of the stored file). */
function avOriginal(p: MediaProbe): MediaAvOriginal {
  const o: MediaAvOriginal = {};
  if (p.video) Object.assign(o, { width: p.video.width, height: p.video.height });
  if (p.video?.frameRate) o.frameRate = p.video.frameRate;
  if (p.duration !== null) o.duration = p.duration;
  if (p.bitrate !== null) o.bitrate = Math.round(p.bitrate);
  return o;
}

async function staged(path: string, contentType: string, p: MediaProbe | undefined): Promise<StagedImage> {
  const { size } = await stat(path);
  return { path, contentType, width: p?.video?.width ?? 0, height: p?.video?.height ?? 0, size };
}

/**
 * The preview: one frame of `stream` as PNG, then the image worker's thumbnail step (640x360 in
 * area, JPEG, blurhash). Undefined when no frame could be read (the file is kept without one).
 */
async function poster(app: App, input: string, prefix: string, stream?: string): Promise<{ small: StagedImage; blurhash: string } | undefined> {
  const tools = ffmpegTools(app)!;
  const png = `${prefix}poster.png`;
  try {
    await runMediaTool(app, tools.ffmpeg, posterArgs(input, png, stream), { timeoutMs: QUICK_MS });
    const r = await app.pool.run<ThumbnailResult>("processMediaThumbnail", { input: png, outputPrefix: `${prefix}poster-` });
    return r.ok ? { small: r.thumbnail, blurhash: r.blurhash } : undefined;
  } catch (err) {
    if (err instanceof MediaToolError) return undefined;
    throw err;
  } finally {
    await removeStaged([png]);
  }
}

/** Runs ffmpeg for the stored file; transcodes wait for the server's one slot. */
async function make(app: App, args: string[], opts: { heavy: boolean; timeoutMs: number }): Promise<void> {
  const tools = ffmpegTools(app)!;
  const run = () => runMediaTool(app, tools.ffmpeg, args, { timeoutMs: opts.timeoutMs });
  await (opts.heavy ? withMediaToolSlot(app, run) : run());
}

async function processVideo(app: App, input: string, prefix: string, probe: MediaProbe, gif: boolean): Promise<ProcessedFiles | { error: string }> {
  const v = probe.video!;
  const maxSeconds = app.config.maxVideoSeconds;
  const refused = videoLimitError(probe, v, { maxSeconds, gif });
  if (refused) return { error: refused };
  const sound = !gif && probe.audio !== null;
  const output = `${prefix}original.mp4`;
  const copy = !gif && webPlayable(probe, v, sound ? probe.audio : null);
  const args = copy
    ? remuxVideoArgs(input, output, { sound, maxSeconds })
    : transcodeVideoArgs(input, output, { v, sound, duration: probe.duration, maxSeconds, maxBytes: app.config.maxMediaBytes });
  const made: string[] = [output];
  try {
    await make(app, args, { heavy: !copy, timeoutMs: transcodeTimeoutMs(probe.duration, maxSeconds) });
    const out = await probeMedia(app, output);
    if (!out?.video) throw new MediaToolError("the output has no video stream");
    const preview = await poster(app, output, prefix);
    if (preview) made.push(preview.small.path);
    return {
      type: sound && out.audio ? "video" : "gifv",
      original: await staged(output, "video/mp4", out),
      small: preview?.small ?? null,
      blurhash: preview?.blurhash ?? null,
      meta: { original: avOriginal(out), ...(preview ? { small: { width: preview.small.width, height: preview.small.height } } : {}) },
    };
  } catch (err) {
    await removeStaged(made);
    if (err instanceof MediaToolError) {
      app.log.info("video refused", { err: err.message });
      return { error: UNVERIFIED };
    }
    throw err;
  }
}

async function processAudio(app: App, input: string, prefix: string, probe: MediaProbe): Promise<ProcessedFiles | { error: string }> {
  const cmd = audioCommand(probe, probe.audio!, input, prefix);
  const output = `${prefix}original.${cmd.ext}`;
  const made: string[] = [output];
  try {
    const transcode = cmd.args.includes("libmp3lame");
    await make(app, cmd.args, { heavy: transcode, timeoutMs: transcodeTimeoutMs(probe.duration, 86_400) });
    const out = await probeMedia(app, output);
    if (!out?.audio) throw new MediaToolError("the output has no audio stream");
    // Cover art (an MP3's or M4A's embedded picture) is the preview, as Mastodon's ImageExtractor.
    const preview = probe.coverArt !== null ? await poster(app, input, prefix, `0:${probe.coverArt}`) : undefined;
    if (preview) made.push(preview.small.path);
    const original = avOriginal(out);
    delete original.width;
    delete original.height;
    delete original.frameRate;
    return {
      type: "audio",
      original: await staged(output, cmd.contentType, undefined),
      small: preview?.small ?? null,
      blurhash: preview?.blurhash ?? null,
      meta: { original, ...(preview ? { small: { width: preview.small.width, height: preview.small.height } } : {}) },
    };
  } catch (err) {
    await removeStaged(made);
    if (err instanceof MediaToolError) {
      app.log.info("audio refused", { err: err.message });
      return { error: UNVERIFIED };
    }
    throw err;
  }
}

/**
 * A video or audio upload (or a GIF, which `isAnimatedGif` found animated). ffprobe decides,
 * not the sniffed container: a WebM or MP4 without a picture is audio, an Ogg with Theora video.
 */
export async function processAvUpload(app: App, input: string, prefix: string, type: UploadType): Promise<ProcessedFiles | { error: string }> {
  if (!ffmpegTools(app)) return { error: "Validation failed: File content type is invalid" };
  const probe = await probeMedia(app, input);
  if (!probe) return { error: UNVERIFIED };
  if (probe.video) return processVideo(app, input, prefix, probe, type.format === "gif");
  if (probe.audio) return processAudio(app, input, prefix, probe);
  return { error: UNVERIFIED };
}

/**
 * Whether a GIF has more than one frame (it then becomes `gifv`, a silent MP4, as Mastodon).
 * False without ffmpeg: the GIF stays an animated `image`.
 */
export async function isAnimatedGif(app: App, input: string): Promise<boolean> {
  if (!ffmpegTools(app)) return false;
  const probe = await probeMedia(app, input, { countPackets: true });
  return (probe?.video?.packets ?? 0) > 1;
}
