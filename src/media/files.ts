import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, extname, join, resolve, sep } from "node:path";
import type { App } from "../app.ts";
import { randomToken } from "../lib/crypto.ts";

// Files under the data dir's media/ folder. Stored names are relative paths with a random
// component, so a URL never serves two different contents and can be cached forever.

const CONTENT_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".heic": "image/heic",
  ".mp4": "video/mp4",
  ".m4v": "video/mp4",
  ".webm": "video/webm",
  ".mov": "video/quicktime",
  ".mp3": "audio/mpeg",
  ".m4a": "audio/mp4",
  ".ogg": "audio/ogg",
  ".oga": "audio/ogg",
  ".opus": "audio/ogg",
  ".wav": "audio/wav",
  ".flac": "audio/flac",
};

export function contentTypeFor(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? "application/octet-stream";
}

/**
 * The absolute path of a stored file named by a URL path below /system/, or undefined when
 * the name could escape the media dir (`..`, absolute paths, NUL, backslashes, empty parts).
 */
export function resolveMediaPath(app: App, relative: string): string | undefined {
  if (relative === "" || relative.length > 1024) return undefined;
  if (/[\0\\]/.test(relative)) return undefined;
  const parts = relative.split("/");
  if (parts.some((p) => p === "" || p === "." || p === ".." || p.startsWith("."))) return undefined;
  const root = resolve(app.mediaDir);
  const full = resolve(root, ...parts);
  return full.startsWith(root + sep) ? full : undefined;
}

/** A fresh relative name: `<folder>/<random>.<ext>`. */
export function newMediaName(folder: string, ext: string): string {
  return `${folder}/${randomToken(12)}.${ext}`;
}

/** Writes a file under the media dir (temp file + rename: readers never see half a file). */
export async function writeMediaFile(app: App, relative: string, data: Uint8Array): Promise<void> {
  const full = join(app.mediaDir, relative);
  await mkdir(dirname(full), { recursive: true });
  const tmp = `${full}.${randomToken(6)}.tmp`;
  await writeFile(tmp, data);
  await rename(tmp, full);
}

/** Removes stored files; missing ones are fine. Failures are logged, never thrown. */
export async function removeMediaFiles(app: App, relatives: (string | null | undefined)[]): Promise<void> {
  for (const rel of relatives) {
    if (!rel) continue;
    const full = resolveMediaPath(app, rel);
    if (!full) continue;
    try {
      await rm(full, { force: true });
    } catch (err) {
      app.log.warn("could not remove media file", { file: rel, err });
    }
  }
}

/**
 * The non-animated companion of an animated image (Account.avatar_static): `x.gif` has
 * `x-static.png` beside it. Undefined for images that are already still.
 */
export function stillName(file: string, contentType: string | null): string | undefined {
  if (contentType !== "image/gif" || !file.endsWith(".gif")) return undefined;
  return file.slice(0, -".gif".length) + "-static.png";
}
