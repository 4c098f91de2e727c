// Hashtags and custom emojis of a remote note, shared by Create and Update.
import type { App } from "../app.ts";
import { normalizeTag } from "../lib/tags.ts";
import type { Account } from "../storage/accounts.ts";
import type { ParsedNote } from "./parse/note.ts";
import { mediaRejected } from "./remote-media.ts";
import { upsertRemoteEmojis } from "./resolve/emojis.ts";

/** Normalised hashtags, first spelling kept for display; names that normalise to nothing are skipped. */
export function noteTags(note: ParsedNote): { name: string; display: string }[] {
  const seen = new Map<string, string>();
  for (const display of note.hashtags) {
    const name = normalizeTag(display);
    if (name && !seen.has(name)) seen.set(name, display);
  }
  return [...seen].map(([name, display]) => ({ name, display }));
}

/** Custom emojis of the note, unless the author's domain may not bring media. */
export function storeNoteEmojis(app: App, note: ParsedNote, author: Account): void {
  if (note.emojis.length > 0 && author.domain !== null && !mediaRejected(app, author)) upsertRemoteEmojis(app, author.domain, note.emojis);
}
