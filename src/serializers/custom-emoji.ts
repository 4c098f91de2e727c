import type { App } from "../app.ts";
import { mediaStore } from "../media/store.ts";
import { emojiStaticFile } from "../media/emoji-images.ts";
import type { CustomEmoji } from "../storage/custom-emojis.ts";

export interface ApiCustomEmoji {
  shortcode: string;
  url: string;
  static_url: string;
  visible_in_picker: boolean;
  category?: string;
}

/**
 * Mastodon's CustomEmoji. `category` only in the GET /api/v1/custom_emojis list and only when the
 * emoji has one (the key is omitted otherwise, as Mastodon's serializer does).
 */
export function toApiCustomEmoji(app: App, e: CustomEmoji, opts: { withCategory?: boolean } = {}): ApiCustomEmoji {
  let url: string;
  let staticUrl: string;
  if (e.file) {
    url = mediaStore(app).url(e.file);
    // Every stored emoji (local, or a remote one copied here) has a static PNG beside it.
    staticUrl = mediaStore(app).url(emojiStaticFile(e.file));
  } else {
    url = staticUrl = e.remoteUrl ?? "";
  }
  const out: ApiCustomEmoji = { shortcode: e.shortcode, url, static_url: staticUrl, visible_in_picker: e.visibleInPicker };
  if (opts.withCategory && e.category) out.category = e.category;
  return out;
}

export function toApiCustomEmojis(app: App, emojis: CustomEmoji[], opts: { withCategory?: boolean } = {}): ApiCustomEmoji[] {
  return emojis.map((e) => toApiCustomEmoji(app, e, opts));
}

/** A page's emojis (storage's `${domain ?? ""} ${shortcode}` keys) as entities, under the same keys. */
export function toApiCustomEmojiMap(app: App, emojis: Map<string, CustomEmoji>): Map<string, ApiCustomEmoji> {
  const out = new Map<string, ApiCustomEmoji>();
  for (const [key, e] of emojis) out.set(key, toApiCustomEmoji(app, e));
  return out;
}
