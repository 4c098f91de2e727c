import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { unprocessable } from "../errors.ts";
import { Validation } from "../lib/validation.ts";
import { mediaStore } from "../media/store.ts";
import {
  type CustomEmoji,
  emojiStaticFile,
  findEmojiById,
  findEmojiByShortcode,
  insertCustomEmoji,
  listPickerEmojis,
} from "../storage/custom-emojis.ts";

export const SHORTCODE_RE = /^[a-zA-Z0-9_]{2,}$/;
/** Roost seed rule: emoji files are at most 50 KB (Mastodon allows 256 KB). */
export const EMOJI_MAX_BYTES = 50 * 1024;

export interface CreateCustomEmojiInput {
  shortcode: string;
  data: Buffer;
  /** The declared type; the bytes must agree with it. */
  contentType: string;
  category?: string | null;
  /** false: "unlisted" (usable in posts, hidden from the picker). */
  visibleInPicker?: boolean;
}

const EXTENSIONS: Record<string, string> = { "image/png": "png", "image/gif": "gif", "image/webp": "webp" };

/** The image type from the file's magic bytes (PNG, GIF or WebP only). */
function sniffImageType(data: Buffer): string | undefined {
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return "image/png";
  if (data.length >= 6 && /^GIF8[79]a$/.test(data.subarray(0, 6).toString("latin1"))) return "image/gif";
  if (data.length >= 12 && data.subarray(0, 4).toString("latin1") === "RIFF" && data.subarray(8, 12).toString("latin1") === "WEBP")
    return "image/webp";
  return undefined;
}

/**
 * Adds a local custom emoji (admin API, CLI, tests): checks the shortcode and image, stores the
 * file and a static PNG (first frame, for clients that reduce motion) under media/emojis/.
 */
export async function createCustomEmoji(app: App, input: CreateCustomEmojiInput): Promise<CustomEmoji> {
  const v = new Validation();
  const shortcode = input.shortcode ?? "";
  if (shortcode.length < 2) v.add("shortcode", "ERR_TOO_SHORT", "is too short (minimum is 2 characters)");
  else if (!SHORTCODE_RE.test(shortcode)) v.add("shortcode", "ERR_INVALID", "is invalid");
  else if (findEmojiByShortcode(app.db, shortcode, null)) v.add("shortcode", "ERR_TAKEN", "has already been taken");
  const declared = (input.contentType ?? "").split(";")[0].trim().toLowerCase();
  const sniffed = sniffImageType(input.data);
  if (!(declared in EXTENSIONS) || sniffed !== declared) v.add("image", "ERR_INVALID", "content type is invalid");
  if (input.data.length > EMOJI_MAX_BYTES) v.add("image", "ERR_TOO_LARGE", "file size must be at most 50 KB");
  v.throwIfAny();

  // Decoding also proves the file is a real image, not just the right magic bytes.
  // sharp runs in the worker pool only: the main process never loads libvips (idle RSS).
  const staticPng = await app.pool
    .run<Uint8Array>("emojiStaticPng", { data: new Uint8Array(input.data) })
    .then((b) => Buffer.from(b))
    .catch(() => undefined);
  if (!staticPng) {
    throw unprocessable("Validation failed: Image could not be processed", {
      image: [{ error: "ERR_INVALID", description: "could not be processed" }],
    });
  }

  const id = app.ids.next();
  const file = `emojis/${id}.${EXTENSIONS[sniffed!]}`;
  const store = mediaStore(app);
  try {
    await store.putData(file, input.data, sniffed!);
    await store.putData(emojiStaticFile(file), staticPng, "image/png");
  } catch (e) {
    await store.remove([file, emojiStaticFile(file)]);
    throw e;
  }
  const now = app.now();
  try {
    tx(app.db, () => {
      // Re-checked inside the transaction: a concurrent request may have taken the shortcode.
      if (findEmojiByShortcode(app.db, shortcode, null)) {
        new Validation().add("shortcode", "ERR_TAKEN", "has already been taken").throwIfAny();
      }
      insertCustomEmoji(app.db, {
        id,
        shortcode,
        domain: null,
        uri: `${app.baseUrl}/emojis/${id}`,
        file,
        contentType: sniffed!,
        remoteUrl: null,
        category: input.category?.trim() || null,
        visibleInPicker: input.visibleInPicker ?? true,
        disabled: false,
        createdAt: now,
        updatedAt: now,
      });
    });
  } catch (e) {
    await store.remove([file, emojiStaticFile(file)]);
    throw e;
  }
  return findEmojiById(app.db, id)!;
}

/** Local, enabled emojis visible in the picker (GET /api/v1/custom_emojis). */
export function getPickerEmojis(app: App): CustomEmoji[] {
  return listPickerEmojis(app.db);
}
