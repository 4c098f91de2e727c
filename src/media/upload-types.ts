// What POST /api/v1/media and /api/v2/media accept, decided from the file's first bytes (the
// client's file name and Content-Type are never trusted). Each kind has its own processing
// step (services/media-processing.ts). Video and audio need ffmpeg (media/ffmpeg.ts): the
// sniffed container only says which kind to try; ffprobe then decides what the file is (an
// MP4 without a video stream is audio, a video without sound is gifv).
import { open } from "node:fs/promises";

export type UploadKind = "image" | "video" | "audio";

export interface UploadType {
  kind: UploadKind;
  /** The container (for images: sharp's name of the decoder, checked again by the worker). */
  format: string;
  contentType: string;
  /**
   * Other names clients give such files (Mastodon's supported_mime_types lists them): a web
   * client's file picker offers only the listed types.
   */
  aliases?: readonly string[];
}

const image = (format: string, contentType: string): UploadType => ({ kind: "image", format, contentType });

const TYPES = {
  jpeg: image("jpeg", "image/jpeg"),
  png: image("png", "image/png"),
  gif: image("gif", "image/gif"),
  webp: image("webp", "image/webp"),
  avif: image("avif", "image/avif"),
  heic: { ...image("heif", "image/heic"), aliases: ["image/heif"] },
  mp4: { kind: "video", format: "mp4", contentType: "video/mp4" },
  mov: { kind: "video", format: "mov", contentType: "video/quicktime" },
  webm: { kind: "video", format: "webm", contentType: "video/webm", aliases: ["audio/webm"] },
  threeGp: { kind: "video", format: "3gp", contentType: "video/3gpp", aliases: ["audio/3gpp"] },
  m4a: { kind: "audio", format: "m4a", contentType: "audio/mp4", aliases: ["audio/m4a", "audio/x-m4a"] },
  mp3: { kind: "audio", format: "mp3", contentType: "audio/mpeg", aliases: ["audio/mp3"] },
  ogg: { kind: "audio", format: "ogg", contentType: "audio/ogg", aliases: ["audio/vorbis", "video/ogg"] },
  wav: { kind: "audio", format: "wav", contentType: "audio/wav", aliases: ["audio/wave", "audio/x-wav", "audio/x-pn-wave", "audio/vnd.wave"] },
  flac: { kind: "audio", format: "flac", contentType: "audio/flac" },
  aac: { kind: "audio", format: "aac", contentType: "audio/aac" },
} satisfies Record<string, UploadType>;

/**
 * The instance's `configuration.media_attachments.supported_mime_types`: exactly the types
 * accepted, so with ffmpeg the video and audio ones too (media/ffmpeg.ts ffmpegTools). HEIC
 * is decoded by libheif in wasm (workers/heic.ts): sharp's libvips has no HEVC decoder.
 */
export function uploadContentTypes(opts: { ffmpeg: boolean }): string[] {
  return Object.values(TYPES as Record<string, UploadType>)
    .filter((t) => t.kind === "image" || opts.ffmpeg)
    .flatMap((t) => [t.contentType, ...(t.aliases ?? [])]);
}

/** The accepted type with this content type (a queued upload records the sniffed one). */
export function uploadTypeOf(contentType: string): UploadType | undefined {
  return Object.values(TYPES as Record<string, UploadType>).find((t) => t.contentType === contentType);
}

/** How many leading bytes sniffUploadType needs (a WebM's DocType sits within them). */
export const SNIFF_BYTES = 64;

const at = (b: Uint8Array, sig: number[], offset = 0) => sig.every((x, i) => b[offset + i] === x);
const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));

/** The brands of an ISO BMFF file (`....ftyp<major><minor><compatible...>`), or undefined. */
function isoBrands(b: Uint8Array): string[] | undefined {
  if (ascii(b, 4, 8) !== "ftyp") return undefined;
  const size = (b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3];
  const end = Math.min(size, b.length);
  const brands = [ascii(b, 8, 12)];
  for (let i = 16; i + 4 <= end; i += 4) brands.push(ascii(b, i, i + 4));
  return brands;
}

/**
 * HEIF brands of HEVC stills and sequences (iPhone photos), and the generic image brands: the
 * image worker reads the primary image and accepts it when it is HEVC (or AV1).
 */
const HEIF_BRANDS = new Set(["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"]);

function isoType(brands: string[]): UploadType | undefined {
  if (brands.some((x) => x === "avif" || x === "avis")) return TYPES.avif;
  if (brands.some((x) => HEIF_BRANDS.has(x))) return TYPES.heic;
  const major = brands[0];
  if (major === "M4A " || major === "M4B ") return TYPES.m4a;
  if (major === "qt  ") return TYPES.mov;
  if (major.startsWith("3g")) return TYPES.threeGp;
  return TYPES.mp4;
}

/** MPEG audio frame sync: MP1/2/3 (layer bits set) or ADTS AAC (layer bits 0). */
function mpegAudio(b: Uint8Array): UploadType | undefined {
  if (b[0] !== 0xff || (b[1] & 0xe0) !== 0xe0) return undefined;
  const layer = (b[1] >> 1) & 3;
  if (layer !== 0) return ((b[1] >> 3) & 3) === 1 ? undefined : TYPES.mp3; // version 01 is reserved
  return (b[1] & 0xf0) === 0xf0 ? TYPES.aac : undefined;
}

export function sniffUploadType(head: Uint8Array): UploadType | undefined {
  if (at(head, [0xff, 0xd8, 0xff])) return TYPES.jpeg;
  if (at(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return TYPES.png;
  if (ascii(head, 0, 6) === "GIF87a" || ascii(head, 0, 6) === "GIF89a") return TYPES.gif;
  if (ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "WEBP") return TYPES.webp;
  if (ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "WAVE") return TYPES.wav;
  const brands = isoBrands(head);
  if (brands) return isoType(brands);
  // EBML: WebM says so in its DocType (plain Matroska is not among Mastodon's types).
  if (at(head, [0x1a, 0x45, 0xdf, 0xa3])) return ascii(head, 4, head.length).includes("webm") ? TYPES.webm : undefined;
  if (ascii(head, 0, 4) === "OggS") return TYPES.ogg;
  if (ascii(head, 0, 4) === "fLaC") return TYPES.flac;
  if (ascii(head, 0, 3) === "ID3") return TYPES.mp3;
  return mpegAudio(head);
}

/** The first SNIFF_BYTES of a file on disk: what sniffUploadType decides from. */
export async function readFileHead(path: string): Promise<Uint8Array> {
  const fh = await open(path, "r");
  try {
    const buf = new Uint8Array(SNIFF_BYTES);
    const { bytesRead } = await fh.read(buf, 0, SNIFF_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}
