// Custom emojis in a `tag` array (toot:Emoji, AP §3.2 / §4.4), shared by actors and notes.
import type { ParsedEmoji } from "../types.ts";
import { asArray, dateOf, hasType, httpUrl, isObject, str, urlOf } from "./common.ts";

// Mastodon's CustomEmoji::SHORTCODE_RE_FRAGMENT; anything else could not be matched in text.
const SHORTCODE_RE = /^[a-zA-Z0-9_]{2,}$/;
/** More than this many emoji tags on one object is abuse, not decoration. */
const MAX_EMOJIS = 100;

/** The Emoji objects of a `tag` value: `:name:` shortcodes with an http(s) image URL, deduplicated. */
export function parseEmojiTags(tag: unknown): ParsedEmoji[] {
  const out = new Map<string, ParsedEmoji>();
  for (const t of asArray(tag)) {
    if (out.size >= MAX_EMOJIS) break;
    if (!isObject(t) || !hasType(t, "Emoji")) continue;
    const shortcode = str(t.name)?.replace(/^:|:$/g, "");
    if (!shortcode || !SHORTCODE_RE.test(shortcode) || out.has(shortcode)) continue;
    // `icon` is an Image (or a list of them); its `url` may itself be a string or a Link.
    const icon = asArray(t.icon).find(isObject);
    const url = icon ? urlOf(icon.url) : undefined;
    if (!url) continue;
    out.set(shortcode, { shortcode, uri: httpUrl(t.id) ?? null, url, updated: dateOf(t.updated) ?? null });
  }
  return [...out.values()];
}
