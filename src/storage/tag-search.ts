// Hashtag search (prefix of the normalised name).
import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export interface TagRow {
  id: Id;
  /** Normalised. */
  name: string;
  /** As first written. */
  displayName: string;
}

export const rowToTag = (r: Row): TagRow => ({ id: str(r.id), name: r.name as string, displayName: r.display_name as string });

const MAX_CHAR = "\u{10FFFF}";

/**
 * Tags whose normalised name starts with `prefix`: the exact name first, then shorter names.
 * Tags a moderator unlisted are left out (Mastodon's Tag.search_for, exclude_unlistable).
 */
export function searchTags(db: DB, prefix: string, opts: { exactOnly: boolean; limit: number; offset: number }): TagRow[] {
  const rows = stmt(
    db,
    `SELECT id, name, display_name FROM tags
     WHERE name >= @prefix AND name < @end AND (@exactOnly = 0 OR name = @prefix) AND listable IS NOT 0
     ORDER BY name = @prefix DESC, length(name), name
     LIMIT @limit OFFSET @offset`,
  ).all({ prefix, end: prefix + MAX_CHAR, exactOnly: opts.exactOnly ? 1 : 0, limit: opts.limit, offset: opts.offset }) as Row[];
  return rows.map(rowToTag);
}

/** Tags by normalised name, in the order of `names` (fuzzy matches, nearest first). */
export function findTagsByNames(db: DB, names: string[]): TagRow[] {
  if (names.length === 0) return [];
  const rows = stmt(db, "SELECT id, name, display_name FROM tags WHERE name IN (SELECT value FROM json_each(?)) AND listable IS NOT 0").all(JSON.stringify(names)) as Row[];
  const byName = new Map(rows.map((r) => [r.name as string, rowToTag(r)]));
  return names.flatMap((n) => byName.get(n) ?? []);
}
