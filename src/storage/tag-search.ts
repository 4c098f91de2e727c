// Hashtag search (prefix of the normalised name) and the daily use counts of Mastodon's Tag
// `history`, computed from statuses_tags.
import { type DB, type Row, stmt, str, num, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export interface TagRow {
  id: Id;
  /** Normalised. */
  name: string;
  /** As first written. */
  displayName: string;
}

const MAX_CHAR = "\u{10FFFF}";

/** Tags whose normalised name starts with `prefix`: the exact name first, then shorter names. */
export function searchTags(db: DB, prefix: string, opts: { exactOnly: boolean; limit: number; offset: number }): TagRow[] {
  const rows = stmt(
    db,
    `SELECT id, name, display_name FROM tags
     WHERE name >= @prefix AND name < @end AND (@exactOnly = 0 OR name = @prefix)
     ORDER BY name = @prefix DESC, length(name), name
     LIMIT @limit OFFSET @offset`,
  ).all({ prefix, end: prefix + MAX_CHAR, exactOnly: opts.exactOnly ? 1 : 0, limit: opts.limit, offset: opts.offset }) as Row[];
  return rows.map((r) => ({ id: str(r.id), name: r.name as string, displayName: r.display_name as string }));
}

/** Tags by normalised name, in the order of `names` (fuzzy matches, nearest first). */
export function findTagsByNames(db: DB, names: string[]): TagRow[] {
  if (names.length === 0) return [];
  const rows = stmt(db, "SELECT id, name, display_name FROM tags WHERE name IN (SELECT value FROM json_each(?))").all(JSON.stringify(names)) as Row[];
  const byName = new Map(rows.map((r) => [r.name as string, { id: str(r.id), name: r.name as string, displayName: r.display_name as string }]));
  return names.flatMap((n) => byName.get(n) ?? []);
}

export interface TagDayUse {
  /** UTC midnight, ms. */
  day: number;
  uses: number;
  accounts: number;
}

/**
 * Public and unlisted posts per tag and UTC day since `sinceId` (ids are time-ordered, so the
 * range scan of statuses_tags' primary key stays within the period); one query for a page.
 */
export function tagDailyUses(db: DB, tagIds: Id[], sinceId: Id): Map<Id, TagDayUse[]> {
  const out = new Map<Id, TagDayUse[]>();
  if (tagIds.length === 0) return out;
  const rows = stmt(
    db,
    `SELECT st.tag_id, s.created_at - s.created_at % 86400000 AS day, count(*) AS uses, count(DISTINCT s.account_id) AS accounts
     FROM statuses_tags st JOIN statuses s ON s.id = st.status_id
     WHERE st.tag_id IN (SELECT value FROM json_each(@tags)) AND st.status_id >= @since
       AND s.deleted_at IS NULL AND s.visibility IN ('public', 'unlisted')
     GROUP BY st.tag_id, day`,
  ).all({ tags: idListJson(tagIds), since: BigInt(sinceId) }) as Row[];
  for (const r of rows) {
    const id = str(r.tag_id);
    let list = out.get(id);
    if (!list) out.set(id, (list = []));
    list.push({ day: num(r.day), uses: num(r.uses), accounts: num(r.accounts) });
  }
  return out;
}
