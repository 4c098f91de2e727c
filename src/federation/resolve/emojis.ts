// Remote custom emojis (profile names and bios, statuses): stored per domain as custom_emojis
// rows that point at the peer's image (no download here), refreshed when the peer changes them.
import type { App } from "../../app.ts";
import { inTx } from "../../db/db.ts";
import { insertCustomEmoji } from "../../storage/custom-emojis.ts";
import { findDomainEmojis, updateRemoteEmoji } from "../../storage/remote-emojis.ts";
import type { ParsedEmoji } from "../types.ts";

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
        insertCustomEmoji(app.db, {
          id: app.ids.next(),
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
        continue;
      }
      const newer = e.updated !== null && e.updated > row.updatedAt;
      if (row.remoteUrl !== e.url || newer) {
        updateRemoteEmoji(app.db, row.id, { uri: e.uri ?? row.uri, remoteUrl: e.url, updatedAt: e.updated ?? now });
      }
    }
  });
}
