// Remote custom emoji images, copied here like remote media (AP §4.4): fetched by the
// emoji.fetch job through the safe fetch, held to the same 50 KB and PNG/GIF/WebP rules as
// local emojis (the roost seed), stored with a static PNG. An emoji is shown only once copied
// (storage/custom-emojis.ts findEmojisByShortcodes), so clients never load a peer's image and
// a refused one stays plain `:shortcode:` text.
import type { App } from "../../app.ts";
import type { Id } from "../../lib/ids.ts";
import { EMOJI_MAX_BYTES, emojiFiles, sniffEmojiType, storeEmojiImage } from "../../media/emoji-images.ts";
import { findEmojiById } from "../../storage/custom-emojis.ts";
import { setRemoteEmojiFile } from "../../storage/remote-emojis.ts";
import { mediaStore } from "../../media/store.ts";
import { FetchError, safeFetch } from "../net/safe-fetch.ts";
import { domainPolicy } from "../domain-policy.ts";

export const EMOJI_FETCH_JOB = "emoji.fetch";

export type EmojiCopyOutcome = "stored" | "too_large" | "invalid" | "unavailable" | "skipped";

/**
 * Copies a remote emoji's image. Throws on network trouble and server errors (the job tries
 * again later); a refused image is recorded (`fetch_error`) and not fetched again until the
 * peer announces another one.
 */
export async function copyRemoteEmoji(app: App, id: Id): Promise<EmojiCopyOutcome> {
  const emoji = findEmojiById(app.db, id);
  if (!emoji || emoji.domain === null || emoji.file || emoji.fetchError || !emoji.remoteUrl) return "skipped";
  // The admin may have rejected the domain's media since the emoji was announced.
  if (domainPolicy(app, emoji.domain).rejectMedia) return "skipped";
  const url = emoji.remoteUrl;
  let body: Buffer;
  try {
    const res = await safeFetch(app, url, { headers: { accept: "image/png, image/gif, image/webp" }, maxBytes: EMOJI_MAX_BYTES, timeoutMs: 15_000 });
    if (res.status >= 500 || res.status === 429) throw new Error(`${url} answered ${res.status}`);
    if (res.status !== 200) return record(app, id, url, "invalid");
    body = res.body;
  } catch (err) {
    if (err instanceof FetchError && err.kind === "too-large") return record(app, id, url, "too_large");
    if (err instanceof FetchError && (err.kind === "invalid-url" || err.kind === "private-address")) return record(app, id, url, "invalid");
    throw err;
  }
  const type = sniffEmojiType(body);
  if (!type) return record(app, id, url, "invalid");
  const file = await storeEmojiImage(app, body, type);
  if (!file) return record(app, id, url, "invalid");
  if (!setRemoteEmojiFile(app.db, id, url, { file, contentType: type, imageSize: body.length })) {
    // The peer announced another image meanwhile (its own job copies that one).
    await mediaStore(app).remove(emojiFiles({ file }));
    return "skipped";
  }
  return "stored";
}

function record(app: App, id: Id, url: string, error: "too_large" | "invalid"): EmojiCopyOutcome {
  setRemoteEmojiFile(app.db, id, url, { fetchError: error });
  app.log.info("remote emoji refused", { id, url: url.slice(0, 500), error });
  return error;
}

export async function handleEmojiFetch(app: App, payload: { emojiId: Id }): Promise<void> {
  await copyRemoteEmoji(app, String(payload.emojiId));
}
