// Image processing in the worker pool. sharp is imported here lazily, inside worker threads
// only: the main process never loads libvips (idle RSS budget).
import type { Sharp, SharpOptions } from "sharp";

export interface ImageOutput {
  data: Uint8Array;
  ext: "png" | "jpg" | "gif" | "webp";
  contentType: string;
  width: number;
  height: number;
}

export interface ProfileImageResult {
  /** The image to show (animated for animated GIFs). */
  main: ImageOutput;
  /** A still PNG of the first frame, only when `main` is animated. */
  still?: ImageOutput;
}

export interface ProfileImageInput {
  data: Uint8Array;
  width: number;
  height: number;
}

// Mastodon refuses images above 7680×4320 pixels (decompression bombs).
const MAX_PIXELS = 7680 * 4320;
const ACCEPTED = new Set(["png", "jpeg", "gif", "webp"]);

type SharpFactory = (input: Uint8Array, options?: SharpOptions) => Sharp;
let factory: SharpFactory | undefined;
async function sharp(): Promise<SharpFactory> {
  if (!factory) {
    const mod = await import("sharp");
    factory = mod.default as unknown as SharpFactory;
  }
  return factory;
}

async function output(img: Sharp, ext: ImageOutput["ext"], contentType: string): Promise<ImageOutput> {
  const { data, info } = await img.toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), ext, contentType, width: info.width, height: info.height };
}

/**
 * Crops and resizes an avatar (400×400) or header (1500×500) to cover the box, like Mastodon.
 * EXIF orientation is applied and metadata (GPS...) is dropped. JPEG stays JPEG; PNG, WebP
 * and GIF keep transparency; an animated GIF stays animated with a still PNG beside it
 * (animated WebP is flattened to its first frame). Throws on anything sharp cannot decode.
 */
export async function processProfileImage(input: ProfileImageInput): Promise<ProfileImageResult> {
  const make = await sharp();
  const data = input.data;
  const meta = await make(data, { limitInputPixels: MAX_PIXELS }).metadata();
  if (!meta.format || !ACCEPTED.has(meta.format)) throw new Error(`unsupported image format: ${meta.format}`);
  const resize = { width: input.width, height: input.height, fit: "cover" as const, position: "centre" as const };
  const still = () => make(data, { limitInputPixels: MAX_PIXELS, pages: 1 }).rotate().resize(resize);

  if (meta.format === "gif" && (meta.pages ?? 1) > 1) {
    const animated = make(data, { limitInputPixels: MAX_PIXELS, animated: true }).resize(resize).gif();
    return {
      main: await output(animated, "gif", "image/gif"),
      still: await output(still().png(), "png", "image/png"),
    };
  }
  if (meta.format === "jpeg") return { main: await output(still().jpeg({ quality: 90 }), "jpg", "image/jpeg") };
  if (meta.format === "webp") return { main: await output(still().webp({ quality: 90 }), "webp", "image/webp") };
  return { main: await output(still().png(), "png", "image/png") };
}

/** First frame of a custom emoji as PNG (the `static_url` image); throws when undecodable. */
export async function emojiStaticPng(input: { data: Uint8Array }): Promise<Uint8Array> {
  const make = await sharp();
  const png = await make(input.data, { animated: false, limitInputPixels: 4096 * 4096 }).png().toBuffer();
  return new Uint8Array(png);
}
