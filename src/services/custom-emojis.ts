import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { unprocessable } from "../errors.ts";
import { Validation } from "../lib/validation.ts";
import { EMOJI_EXTENSIONS, EMOJI_MAX_BYTES, emojiFiles, sniffEmojiType, storeEmojiImage } from "../media/emoji-images.ts";
import { mediaStore } from "../media/store.ts";
import {
  type CustomEmoji,
  deleteCustomEmoji,
  findEmojiById,
  findEmojiByShortcode,
  insertCustomEmoji,
  updateLocalEmojiImage,
  listPickerEmojis,
} from "../storage/custom-emojis.ts";

export const SHORTCODE_RE = /^[a-zA-Z0-9_]{2,}$/;
export { EMOJI_MAX_BYTES, sniffEmojiType } from "../media/emoji-images.ts";

export interface CreateCustomEmojiInput {
  shortcode: string;
  data: Buffer;
  /** The declared type; the bytes must agree with it. */
  contentType: string;
  category?: string | null;
  /** false: "unlisted" (usable in posts, hidden from the picker). */
  visibleInPicker?: boolean;
}

/**
 * Adds a local custom emoji (CLI, tests): checks the shortcode and image (PNG, GIF or WebP
 * by its bytes, at most 50 KB), stores the file and its static PNG.
 */
export async function createCustomEmoji(app: App, input: CreateCustomEmojiInput): Promise<CustomEmoji> {
  const v = new Validation();
  const shortcode = input.shortcode ?? "";
  if (shortcode.length < 2) v.add("shortcode", "ERR_TOO_SHORT", "is too short (minimum is 2 characters)");
  else if (!SHORTCODE_RE.test(shortcode)) v.add("shortcode", "ERR_INVALID", "is invalid");
  else if (findEmojiByShortcode(app.db, shortcode, null)) v.add("shortcode", "ERR_TAKEN", "has already been taken");
  const sniffed = checkEmojiImage(v, input.data, input.contentType);
  v.throwIfAny();

  const file = await storeCheckedImage(app, input.data, sniffed!);
  const id = app.ids.next();
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
        imageSize: input.data.length,
        remoteUrl: null,
        fetchError: null,
        category: input.category?.trim() || null,
        visibleInPicker: input.visibleInPicker ?? true,
        disabled: false,
        createdAt: now,
        updatedAt: now,
      });
    });
  } catch (e) {
    await mediaStore(app).remove(emojiFiles({ file }));
    throw e;
  }
  return findEmojiById(app.db, id)!;
}

/** The image's type when it may be an emoji (PNG, GIF or WebP by its bytes, matching the declared type, at most 50 KB). */
function checkEmojiImage(v: Validation, data: Uint8Array, contentType: string | undefined): string | undefined {
  const declared = (contentType ?? "").split(";")[0].trim().toLowerCase();
  const sniffed = sniffEmojiType(data);
  if (!(declared in EMOJI_EXTENSIONS) || sniffed !== declared) v.add("image", "ERR_INVALID", "content type is invalid");
  if (data.length > EMOJI_MAX_BYTES) v.add("image", "ERR_TOO_LARGE", "file size must be at most 50 KB");
  return sniffed;
}

async function storeCheckedImage(app: App, data: Uint8Array, type: string): Promise<string> {
  const file = await storeEmojiImage(app, data, type);
  if (!file) {
    throw unprocessable("Validation failed: Image could not be processed", {
      image: [{ error: "ERR_INVALID", description: "could not be processed" }],
    });
  }
  return file;
}

/**
 * Gives a local emoji a new image (`roost emoji import --overwrite`): same id, shortcode and
 * URI, so peers see it as updated (`updated` is newer and the icon URL changes).
 */
export async function replaceCustomEmojiImage(app: App, emoji: CustomEmoji, data: Uint8Array, contentType: string): Promise<CustomEmoji> {
  const v = new Validation();
  const type = checkEmojiImage(v, data, contentType);
  v.throwIfAny();
  const file = await storeCheckedImage(app, data, type!);
  updateLocalEmojiImage(app.db, emoji.id, { file, contentType: type!, imageSize: data.length, updatedAt: app.now() });
  await mediaStore(app).remove(emojiFiles(emoji));
  return findEmojiById(app.db, emoji.id)!;
}

/** Removes a local emoji and its files; false when there is none with this shortcode. */
export async function removeCustomEmoji(app: App, shortcode: string): Promise<boolean> {
  const emoji = findEmojiByShortcode(app.db, shortcode, null);
  if (!emoji) return false;
  deleteCustomEmoji(app.db, emoji.id);
  await mediaStore(app).remove(emojiFiles(emoji));
  return true;
}

/** Local, enabled emojis visible in the picker (GET /api/v1/custom_emojis). */
export function getPickerEmojis(app: App): CustomEmoji[] {
  return listPickerEmojis(app.db);
}
