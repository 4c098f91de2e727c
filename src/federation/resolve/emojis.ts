// Remote custom emojis (profile names and bios, statuses): stored per domain as custom_emojis
// rows that point at the peer's image, refreshed when the peer changes them; the image itself
// is copied by the emoji.fetch job (emoji-files.ts).
import type { App } from "../../app.ts";
import { inTx } from "../../db/db.ts";
import { insertCustomEmoji } from "../../storage/custom-emojis.ts";
import { emojiFiles } from "../../media/emoji-images.ts";
import { findDomainEmojis, updateRemoteEmoji } from "../../storage/remote-emojis.ts";
import type { ParsedEmoji } from "../types.ts";
import { EMOJI_FETCH_JOB } from "./emoji-files.ts";

/**
 * Inserts the emojis of `domain` not known yet and updates those whose image URL changed or
 * whose `updated` is newer than our copy. Synchronous; may run inside a transaction.
 */
export function upsertRemoteEmojis(app: App, domain: string, emojis: ParsedEmoji[]): void {
  if (emojis.length === 0) return;
  const d = domain.toLowerCase();
  inTx(app.db, () => {
    const known = findDomainEmojis(app.db, d, emojis.map((e) => e.shortcode));
    const now = app.now();
    for (const e of emojis) {
      const row = known.get(e.shortcode);
      if (!row) {
        const id = app.ids.next();
        insertCustomEmoji(app.db, {
          id,
          shortcode: e.shortcode,
          domain: d,
          uri: e.uri,
          file: null,
          contentType: null,
          imageSize: null,
          remoteUrl: e.url,
          fetchError: null,
          category: null,
          // Remote emojis never show in our picker (listPickerEmojis is local only).
          visibleInPicker: false,
          disabled: false,
          createdAt: now,
          updatedAt: e.updated ?? now,
        });
        app.jobs.enqueue(EMOJI_FETCH_JOB, { emojiId: id });
        continue;
      }
      const newer = e.updated !== null && e.updated > row.updatedAt;
      if (row.remoteUrl !== e.url || newer) {
        updateRemoteEmoji(app.db, row.id, { uri: e.uri ?? row.uri, remoteUrl: e.url, updatedAt: e.updated ?? now });
        // The copy of the old image goes; the new one is fetched.
        if (row.file) app.jobs.enqueue("media.remove_files", { files: emojiFiles(row) });
        app.jobs.enqueue(EMOJI_FETCH_JOB, { emojiId: row.id });
      }
    }
  });
}
