// PLACEHOLDER: signatures fixed; implemented by the instance work package.
import type { DB } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export interface CustomEmoji {
  id: Id;
  shortcode: string;
  domain: string | null;
  uri: string | null;
  file: string | null;
  contentType: string | null;
  remoteUrl: string | null;
  category: string | null;
  visibleInPicker: boolean;
  disabled: boolean;
  createdAt: number;
  updatedAt: number;
}

/** Enabled emojis of `domain` (null: local) whose shortcodes are in the list, one query. */
export function findEmojisByShortcodes(_db: DB, _shortcodes: string[], _domain: string | null): CustomEmoji[] {
  return [];
}
