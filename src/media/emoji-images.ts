// Custom emoji image files (issue 10 part 7): what an emoji may be (PNG, GIF or WebP by its
// bytes, at most 50 KB: the roost seed, local and remote alike) and how it is stored, with a
// static PNG of its first frame beside it (the `static_url` image).
import { writeFile } from "node:fs/promises";
import type { App } from "../app.ts";
import { newMediaName } from "./files.ts";
import { ensureStagingDir, newStagedPath, removeStaged } from "./staging.ts";
import { mediaStore } from "./store.ts";

/** Roost seed rule: emoji files are at most 50 KB (Mastodon allows 256 KB), local and remote alike. */
export const EMOJI_MAX_BYTES = 50 * 1024;

/** The non-animated PNG that accompanies an emoji file ("emojis/x.gif" → "emojis/x_static.png"). */
export function emojiStaticFile(file: string): string {
  return file.replace(/\.[a-z0-9]+$/i, "") + "_static.png";
}

export const EMOJI_EXTENSIONS: Record<string, string> = { "image/png": "png", "image/gif": "gif", "image/webp": "webp" };

/** The image type from the file's magic bytes (PNG, GIF or WebP only). */
export function sniffEmojiType(data: Uint8Array): string | undefined {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.subarray(0, 6).toString("latin1"))) return "image/gif";
  if (b.length >= 12 && b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP") return "image/webp";
  return undefined;
}

/**
 * Stores an emoji image (type already checked) and its static PNG (first frame: the
 * `static_url` image for clients that reduce motion) under a random name in emojis/. The PNG
 * is made by the image worker process; decoding also proves the file is a real image.
 * Undefined when it cannot be decoded (nothing is stored then).
 */
export async function storeEmojiImage(app: App, data: Uint8Array, contentType: string): Promise<string | undefined> {
  const staticPng = await app.pool.run<Uint8Array>("emojiStaticPng", { data: new Uint8Array(data) }).catch(() => undefined);
  if (!staticPng) return undefined;
  const file = newMediaName("emojis", EMOJI_EXTENSIONS[contentType]);
  await ensureStagingDir(app);
  const staged = [newStagedPath(app), newStagedPath(app)];
  try {
    await writeFile(staged[0], data);
    await writeFile(staged[1], staticPng);
    const store = mediaStore(app);
    await store.putFile(file, staged[0], contentType);
    await store.putFile(emojiStaticFile(file), staged[1], "image/png");
  } catch (err) {
    await removeStaged(staged);
    await mediaStore(app).remove([file, emojiStaticFile(file)]);
    throw err;
  }
  return file;
}

/** The stored files of an emoji (its image and static PNG). */
export const emojiFiles = (e: { file: string | null }): string[] => (e.file ? [e.file, emojiStaticFile(e.file)] : []);

