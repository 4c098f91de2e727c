// Custom emojis as `Emoji` objects (AP §4.4): in the `tag` of notes and actors, and at
// `/emojis/:id` where peers may dereference their id.
import type { App } from "../../app.ts";
import { mediaStore } from "../../media/store.ts";
import { type CustomEmoji, findEmojisByShortcodes } from "../../storage/custom-emojis.ts";
import type { ApObject } from "../types.ts";
import { apTime } from "./context.ts";

export const emojiUri = (app: App, e: CustomEmoji) => (e.domain === null ? `${app.baseUrl}/emojis/${e.id}` : (e.uri ?? ""));

export function toApEmoji(app: App, e: CustomEmoji): ApObject {
  const url = e.file ? mediaStore(app).url(e.file) : (e.remoteUrl ?? "");
  const icon: ApObject = { type: "Image", mediaType: e.contentType ?? "image/png", url };
  return { id: emojiUri(app, e), type: "Emoji", name: `:${e.shortcode}:`, updated: apTime(e.updatedAt), icon };
}

/** Key of an emoji in a batch map: emojis are per domain (null: local). */
export const emojiKey = (domain: string | null, shortcode: string) => `${domain ?? ""} ${shortcode}`;

/**
 * Emojis named by shortcodes, grouped by the domain of the text's author: one query per
 * distinct domain (a page of local posts needs one).
 */
export function loadEmojis(app: App, wanted: { domain: string | null; codes: string[] }[]): Map<string, CustomEmoji> {
  const byDomain = new Map<string | null, Set<string>>();
  for (const w of wanted) {
    if (w.codes.length === 0) continue;
    let set = byDomain.get(w.domain);
    if (!set) byDomain.set(w.domain, (set = new Set()));
    for (const c of w.codes) set.add(c);
  }
  const out = new Map<string, CustomEmoji>();
  for (const [domain, codes] of byDomain) {
    for (const e of findEmojisByShortcodes(app.db, [...codes], domain)) out.set(emojiKey(domain, e.shortcode), e);
  }
  return out;
}

/** The Emoji tags of a text's shortcodes, once each, in first-use order; unknown ones skipped. */
export function emojiTags(app: App, domain: string | null, codes: string[], emojis: Map<string, CustomEmoji>): ApObject[] {
  const seen = new Set<string>();
  const out: ApObject[] = [];
  for (const code of codes) {
    if (seen.has(code)) continue;
    seen.add(code);
    const e = emojis.get(emojiKey(domain, code));
    if (e) out.push(toApEmoji(app, e));
  }
  return out;
}
