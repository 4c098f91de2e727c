// Media attachment images in the worker pool: read from the staging area, written back there
// (the main thread only moves finished files into the store, so no image crosses the thread
// boundary). sharp is imported lazily inside worker threads only (idle RSS budget).
import { rm } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { encode as encodeBlurhash } from "blurhash";
import type { FormatEnum, Metadata, Sharp, SharpOptions } from "sharp";
import { decodeHeic } from "./heic.ts";

// Mastodon's limits (Attachmentable, MediaAttachment IMAGE_STYLES).
/** Larger images are refused: 7680x4320. */
const MAX_PIXELS = 33_177_600;
/** GIFs above 1280x720 per frame are refused. */
const GIF_MAX_PIXELS = 921_600;
/** The stored original is downscaled to this area: 3840x2160. */
const ORIGINAL_PIXELS = 8_294_400;
/** The `small` preview: 640x360 in area. */
const SMALL_PIXELS = 230_400;
/** Blurhash components, as Mastodon (BLURHASH_OPTIONS). */
const BLURHASH_X = 4;
const BLURHASH_Y = 4;

export interface StagedImage {
  path: string;
  contentType: string;
  width: number;
  height: number;
  size: number;
}

export type MediaImageResult =
  | { ok: true; original: StagedImage; small: StagedImage; blurhash: string; animated: boolean }
  /** The input is refused: `error` is the message the client gets (Mastodon's wording). */
  | { ok: false; error: string };

export type ThumbnailResult = { ok: true; thumbnail: StagedImage; blurhash: string } | { ok: false; error: string };

export interface MediaImageInput {
  /** The staged upload. */
  input: string;
  /** Output paths start with this (`<prefix>original.jpg`, `<prefix>small.jpg`). */
  outputPrefix: string;
}

type SharpFactory = (input?: string | Uint8Array, options?: SharpOptions) => Sharp;
let factory: SharpFactory | undefined;
async function sharp(): Promise<SharpFactory> {
  if (!factory) {
    const mod = await import("sharp");
    // libvips' operation cache would keep decoded images alive between tasks: memory for nothing.
    mod.default.cache(false);
    // sharp uses one libvips thread per image on glibc to limit heap fragmentation; the image
    // worker process exits when idle (workers/process-runner.ts), so it may use every core.
    mod.default.concurrency(availableParallelism());
    factory = mod.default as unknown as SharpFactory;
  }
  return factory;
}

/** Decoders accepted for media attachments (HEIF: AV1, i.e. AVIF, and HEVC, i.e. HEIC). */
const ACCEPTED: ReadonlySet<keyof FormatEnum> = new Set(["jpeg", "png", "gif", "webp", "heif"]);
const HEIF_COMPRESSIONS = new Set(["av1", "hevc"]);

/** The message for an undecodable file, as Mastodon's (Paperclip's) for the same case. */
const UNVERIFIED = "File type of uploaded media could not be verified";

/** Scale (w, h) down to at most `pixels` in area, keeping the aspect ratio. */
export function fitArea(width: number, height: number, pixels: number): { width: number; height: number } {
  if (width * height <= pixels) return { width, height };
  const scale = Math.sqrt(pixels / (width * height));
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
}

interface Checked {
  meta: Metadata;
  width: number;
  /** One frame's height. */
  height: number;
  frames: number;
  /** HEVC in HEIF: decoded by libheif (workers/heic.ts), not by sharp. */
  heic: boolean;
}

/** Reads the header only (no pixels are decoded) and applies the size limits. */
async function inspect(make: SharpFactory, input: string): Promise<Checked | { error: string }> {
  let meta: Metadata;
  try {
    meta = await make(input, { animated: true, limitInputPixels: false }).metadata();
  } catch {
    return { error: UNVERIFIED };
  }
  if (!ACCEPTED.has(meta.format) || (meta.format === "heif" && !HEIF_COMPRESSIONS.has(meta.compression ?? ""))) {
    return { error: "Validation failed: File content type is invalid" };
  }
  // HEIF's other top-level images (a burst, a bracket) are not frames: only the primary is read.
  const frames = meta.format === "heif" ? 1 : (meta.pages ?? 1);
  const oriented = meta.autoOrient ?? { width: meta.width, height: meta.height };
  const width = oriented.width;
  const height = frames > 1 && meta.pageHeight ? meta.pageHeight : oriented.height;
  if (meta.format === "gif" && width * height > GIF_MAX_PIXELS) return { error: `${width}x${height} GIF files are not supported` };
  if (width * height > MAX_PIXELS) return { error: `${width}x${height} images are not supported` };
  // An animation is decoded whole: its frames together stay within the still-image budget.
  if (frames > 1 && width * height * frames > MAX_PIXELS) {
    return { error: `${width}x${height} animations of ${frames} frames are not supported` };
  }
  return { meta, width, height, frames, heic: meta.format === "heif" && meta.compression === "hevc" };
}

/** Opens the checked input for one sharp pipeline (options such as `pages` per pipeline). */
type Open = (options?: SharpOptions) => Sharp;

/**
 * The pipelines' input and its upright size: the file itself, or for HEIC its pixels decoded
 * by libheif (already turned by irot/imir, with no metadata, so autoOrient does nothing and
 * nothing leaks), sized as decoded.
 */
async function opener(
  make: SharpFactory,
  input: string,
  checked: Checked,
  limitInputPixels: number,
): Promise<{ open: Open; width: number; height: number } | { error: string }> {
  if (!checked.heic) return { open: (o = {}) => make(input, { failOn: "error", limitInputPixels, ...o }), width: checked.width, height: checked.height };
  const decoded = await decodeHeic(input, MAX_PIXELS);
  if ("error" in decoded) return { error: UNVERIFIED };
  const raw = { width: decoded.width, height: decoded.height, channels: decoded.channels };
  return { open: (o = {}) => make(decoded.data, { limitInputPixels, ...o, raw }), width: decoded.width, height: decoded.height };
}

/** The stored format: JPEG, PNG and WebP stay; AVIF, HEIC and still GIFs are converted (as Mastodon). */
function outputFormat(meta: Metadata, animated: boolean): { ext: string; contentType: string; apply: (s: Sharp) => Sharp } {
  // Quality 90 as Mastodon; no optimised Huffman tables: ~25% faster encoding for ~5% more bytes.
  const jpeg = { ext: "jpg", contentType: "image/jpeg", apply: (s: Sharp) => s.jpeg({ quality: 90, optimiseCoding: false }) };
  const png = { ext: "png", contentType: "image/png", apply: (s: Sharp) => s.png() };
  switch (meta.format) {
    case "jpeg":
      return jpeg;
    case "webp":
      return { ext: "webp", contentType: "image/webp", apply: (s) => s.webp({ quality: 90 }) };
    case "gif":
      return animated ? { ext: "gif", contentType: "image/gif", apply: (s) => s.gif() } : png;
    default:
      // PNG, and AVIF and HEIC (Mastodon's IMAGE_CONVERTIBLE_MIME_TYPES: JPEG, or PNG to keep
      // transparency; browsers without AVIF support are still common, and few show HEIC).
      return meta.format === "png" || meta.hasAlpha ? png : jpeg;
  }
}

async function write(s: Sharp, path: string, contentType: string, frames = 1): Promise<StagedImage> {
  const info = await s.toFile(path);
  return { path, contentType, width: info.width, height: Math.round(info.height / frames), size: info.size };
}

/** Blurhash of a preview: a tiny copy, transparency on white. */
async function blurhashOf(make: SharpFactory, path: string): Promise<string> {
  const { data, info } = await make(path)
    .resize(32, 32, { fit: "inside" })
    .flatten({ background: "#ffffff" })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return encodeBlurhash(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height, BLURHASH_X, BLURHASH_Y);
}

/**
 * A media attachment image: EXIF orientation applied, every metadata block dropped (sharp
 * writes none unless asked), downscaled to 3840x2160 in area; a `small` preview of 640x360 in
 * area (first frame of an animation) and its blurhash. Animated GIF and WebP stay animated.
 */
export async function processMediaImage({ input, outputPrefix }: MediaImageInput): Promise<MediaImageResult> {
  const make = await sharp();
  const checked = await inspect(make, input);
  if ("error" in checked) return { ok: false, error: checked.error };
  const { meta, frames } = checked;
  const animated = frames > 1 && (meta.format === "gif" || meta.format === "webp");
  const out = outputFormat(meta, animated);
  const written: string[] = [];
  try {
    const opened = await opener(make, input, checked, MAX_PIXELS * (animated ? frames : 1));
    if ("error" in opened) return { ok: false, error: opened.error };
    const { open, width, height } = opened;
    const target = fitArea(width, height, ORIGINAL_PIXELS);
    let original = animated ? open({ animated: true }) : open().autoOrient();
    // Cubic rather than sharp's default Lanczos: as good for a mild downscale (at most 4:1 in
    // area, from the 33 MP limit) and a fifth less CPU on a 12 MP photo.
    if (target.width !== width) original = original.resize(target.width, target.height, { fit: "fill", kernel: "cubic" });
    const originalPath = `${outputPrefix}original.${out.ext}`;
    written.push(originalPath);
    const stored = await write(out.apply(original), originalPath, out.contentType, animated ? frames : 1);

    const smallSize = fitArea(width, height, SMALL_PIXELS);
    const alpha = meta.hasAlpha;
    const small = open({ pages: 1 }).autoOrient().resize(smallSize.width, smallSize.height, { fit: "fill" });
    const smallOut = alpha ? { ext: "png", contentType: "image/png", s: small.png() } : { ext: "jpg", contentType: "image/jpeg", s: small.jpeg({ quality: 80 }) };
    const smallPath = `${outputPrefix}small.${smallOut.ext}`;
    written.push(smallPath);
    const preview = await write(smallOut.s, smallPath, smallOut.contentType);
    return { ok: true, original: stored, small: preview, blurhash: await blurhashOf(make, smallPath), animated };
  } catch {
    // Truncated or corrupt pixel data: the header looked fine, decoding did not.
    await Promise.all(written.map((p) => rm(p, { force: true })));
    return { ok: false, error: UNVERIFIED };
  }
}

/** A custom preview (`thumbnail`): 640x360 in area, JPEG, with its blurhash. */
export async function processMediaThumbnail({ input, outputPrefix }: MediaImageInput): Promise<ThumbnailResult> {
  const make = await sharp();
  const checked = await inspect(make, input);
  if ("error" in checked) return { ok: false, error: checked.error.replace(/^Validation failed: File /, "Validation failed: Thumbnail ") };
  const path = `${outputPrefix}thumbnail.jpg`;
  try {
    const opened = await opener(make, input, checked, MAX_PIXELS);
    if ("error" in opened) return { ok: false, error: opened.error };
    const size = fitArea(opened.width, opened.height, SMALL_PIXELS);
    const s = opened.open({ pages: 1 })
      .autoOrient()
      .resize(size.width, size.height, { fit: "fill" })
      .flatten({ background: "#ffffff" })
      .jpeg({ quality: 80 });
    const thumbnail = await write(s, path, "image/jpeg");
    return { ok: true, thumbnail, blurhash: await blurhashOf(make, path) };
  } catch {
    await rm(path, { force: true });
    return { ok: false, error: UNVERIFIED };
  }
}
