import { type DB, type Row, stmt, str, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { rowToTag, type TagRow } from "./tag-search.ts";

// Hashtags (normalised name + display form) and their links to statuses.

/** Finds or creates the tag and moves its last_status_at forward; returns its id. */
export function upsertTag(db: DB, t: { id: Id; name: string; display: string; at: number }): Id {
  const r = stmt(
    db,
    `INSERT INTO tags (id, name, display_name, last_status_at, created_at) VALUES (@id, @name, @display, @at, @at)
     ON CONFLICT (name) DO UPDATE SET last_status_at = max(coalesce(last_status_at, 0), excluded.last_status_at)
     RETURNING id`,
  ).get({ id: BigInt(t.id), name: t.name, display: t.display, at: t.at }) as Row;
  return str(r.id);
}

/** Replaces the tags of a status with `tagIds`, leaving out tags a moderator made unusable. */
export function setStatusTags(db: DB, statusId: Id, tagIds: Id[]): void {
  stmt(db, "DELETE FROM statuses_tags WHERE status_id = @id AND tag_id NOT IN (SELECT value FROM json_each(@tags))").run({
    id: BigInt(statusId),
    tags: idListJson(tagIds),
  });
  const add = stmt(db, "INSERT OR IGNORE INTO statuses_tags (status_id, tag_id) SELECT ?, id FROM tags WHERE id = ? AND usable IS NOT 0");
  for (const t of tagIds) add.run(BigInt(statusId), BigInt(t));
}

/** Normalised tag names of several statuses (sorted by name within a status); one query. */
export function findStatusTagNames(db: DB, statusIds: Iterable<Id>): Map<Id, string[]> {
  const out = new Map<Id, string[]>();
  const json = idListJson(statusIds);
  if (json === "[]") return out;
  const rows = stmt(
    db,
    `SELECT st.status_id, t.name FROM statuses_tags st JOIN tags t ON t.id = st.tag_id
     WHERE st.status_id IN (SELECT value FROM json_each(?)) ORDER BY t.name`,
  ).all(json) as Row[];
  for (const r of rows) {
    const sid = str(r.status_id);
    let list = out.get(sid);
    if (!list) out.set(sid, (list = []));
    list.push(r.name as string);
  }
  return out;
}

/** The tag with this normalised name. */
export function findTagByName(db: DB, name: string): TagRow | undefined {
  const r = stmt(db, "SELECT id, name, display_name FROM tags WHERE name = ?").get(name) as Row | undefined;
  return r && rowToTag(r);
}

/** The tag with this normalised name, created with `display` as its spelling when new. */
export function findOrCreateTag(db: DB, t: { id: Id; name: string; display: string; at: number }): TagRow {
  const r = stmt(
    db,
    `INSERT INTO tags (id, name, display_name, created_at) VALUES (@id, @name, @display, @at)
     ON CONFLICT (name) DO UPDATE SET name = excluded.name
     RETURNING id, name, display_name`,
  ).get({ id: BigInt(t.id), name: t.name, display: t.display, at: t.at }) as Row;
  return rowToTag(r);
}
