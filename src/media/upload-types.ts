// What POST /api/v1/media and /api/v2/media accept, decided from the file's first bytes (the
// client's file name and Content-Type are never trusted). Each kind has its own processing
// step (services/media-processing.ts); video and audio add their formats and a kind here.

export type UploadKind = "image";

export interface UploadType {
  kind: UploadKind;
  /** sharp's name of the decoder, checked again by the worker. */
  format: "jpeg" | "png" | "gif" | "webp" | "avif";
  contentType: string;
}

const TYPES: Record<UploadType["format"], UploadType> = {
  jpeg: { kind: "image", format: "jpeg", contentType: "image/jpeg" },
  png: { kind: "image", format: "png", contentType: "image/png" },
  gif: { kind: "image", format: "gif", contentType: "image/gif" },
  webp: { kind: "image", format: "webp", contentType: "image/webp" },
  avif: { kind: "image", format: "avif", contentType: "image/avif" },
};

/**
 * The instance's `configuration.media_attachments.supported_mime_types`: exactly the types
 * accepted here. HEIC is not among them: the libvips that sharp ships decodes AV1 HEIF (AVIF)
 * but not HEVC.
 */
export const UPLOAD_CONTENT_TYPES: readonly string[] = Object.values(TYPES).map((t) => t.contentType);

/** The accepted type with this content type (a queued upload records the sniffed one). */
export function uploadTypeOf(contentType: string): UploadType | undefined {
  return Object.values(TYPES).find((t) => t.contentType === contentType);
}

/** How many leading bytes sniffUploadType needs. */
export const SNIFF_BYTES = 32;

const at = (b: Uint8Array, sig: number[], offset = 0) => sig.every((x, i) => b[offset + i] === x);
const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));

/** ISO BMFF (`....ftyp<brand>`) whose major or a compatible brand is AVIF's. */
function isAvif(b: Uint8Array): boolean {
  if (ascii(b, 4, 8) !== "ftyp") return false;
  const size = (b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3];
  const end = Math.min(size, b.length);
  const brands = [ascii(b, 8, 12)];
  for (let i = 16; i + 4 <= end; i += 4) brands.push(ascii(b, i, i + 4));
  return brands.some((x) => x === "avif" || x === "avis");
}

export function sniffUploadType(head: Uint8Array): UploadType | undefined {
  if (at(head, [0xff, 0xd8, 0xff])) return TYPES.jpeg;
  if (at(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return TYPES.png;
  if (ascii(head, 0, 6) === "GIF87a" || ascii(head, 0, 6) === "GIF89a") return TYPES.gif;
  if (ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "WEBP") return TYPES.webp;
  if (isAvif(head)) return TYPES.avif;
  return undefined;
}
