// Media attachments of a Note (AP §4.5 incoming): `Document`/`Image`/... objects without `href`.
import { asArray, clip, httpUrl, isObject, str } from "./common.ts";
import type { ParsedAttachment } from "./note.ts";

export const MAX_ATTACHMENTS = 4;
const MAX_DESCRIPTION = 10_000;

// BlurHash's base-83 alphabet; the first character encodes the component counts.
const BASE83 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~";

/** A well-formed BlurHash with at most 5×5 components (Mastodon refuses bigger ones), else null. */
export function validBlurhash(v: unknown): string | null {
  if (typeof v !== "string" || v.length < 6 || v.length > 54) return null;
  for (const ch of v) if (!BASE83.includes(ch)) return null;
  const size = BASE83.indexOf(v[0]);
  const x = (size % 9) + 1;
  const y = Math.floor(size / 9) + 1;
  if (x > 5 || y > 5) return null;
  return v.length === 4 + 2 * x * y ? v : null;
}

/** `focalPoint` [x, y] in −1…1 (x right, y up); anything else is ignored. */
function focusOf(v: unknown): [number, number] | null {
  if (!Array.isArray(v) || v.length !== 2) return null;
  const [x, y] = v;
  if (typeof x !== "number" || typeof y !== "number" || !Number.isFinite(x) || !Number.isFinite(y)) return null;
  const c = (n: number) => Math.min(1, Math.max(-1, n));
  return [c(x), c(y)];
}

const dimension = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v > 0 && v <= 100_000 ? v : null);

/** The MIME type's family as Mastodon's attachment type (no download, so a GIF stays an image). */
export function attachmentType(mediaType: string | null): ParsedAttachment["type"] {
  const family = mediaType?.split("/")[0].toLowerCase();
  if (family === "image") return "image";
  if (family === "video") return "video";
  if (family === "audio") return "audio";
  return "unknown";
}

/** First entry of a `url` value (string, Link or array of them): its href and the Link's mediaType. */
function firstLink(v: unknown): { href: string; mediaType: string | null } | undefined {
  const first = asArray(v)[0];
  if (typeof first === "string") {
    const href = httpUrl(first);
    return href ? { href, mediaType: null } : undefined;
  }
  if (!isObject(first)) return undefined;
  const href = httpUrl(first.href);
  return href ? { href, mediaType: str(first.mediaType) ?? null } : undefined;
}

function parseAttachment(a: unknown): ParsedAttachment | undefined {
  // An attachment with `href` is a Link (a preview card candidate, 4.7+), not media.
  if (!isObject(a) || a.href !== undefined) return undefined;
  const link = firstLink(a.url);
  if (!link) return undefined;
  const mediaType = str(a.mediaType) ?? link.mediaType;
  const description = str(a.summary) ?? str(a.name);
  const icon = asArray(a.icon).find(isObject);
  return {
    type: attachmentType(mediaType),
    url: link.href,
    mediaType,
    description: description === undefined ? null : clip(description, MAX_DESCRIPTION),
    blurhash: validBlurhash(a.blurhash),
    width: dimension(a.width),
    height: dimension(a.height),
    focus: focusOf(a.focalPoint),
    thumbnailUrl: icon ? (firstLink(icon.url)?.href ?? null) : null,
  };
}

/** The media of an `attachment` value, in order, at most four. */
export function parseAttachments(v: unknown): ParsedAttachment[] {
  const out: ParsedAttachment[] = [];
  for (const a of asArray(v)) {
    const parsed = parseAttachment(a);
    if (parsed) out.push(parsed);
    if (out.length === MAX_ATTACHMENTS) break;
  }
  return out;
}
