// Featured hashtags of a profile (Mastodon's FeaturedTag). Counts are kept by the triggers of
// migration 0025; an insert computes them from what is stored (FeaturedTag#reset_data).
import { type DB, type Row, stmt, str, num, numOrNull, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { rowToTag, type TagRow } from "./tag-search.ts";

export interface FeaturedTag {
  id: Id;
  accountId: Id;
  tag: TagRow;
  /** The spelling the owner chose. */
  name: string;
  statusesCount: number;
  lastStatusAt: number | null;
  /** A remote actor's Hashtag href; null for local accounts. */
  url: string | null;
  createdAt: number;
}

const SELECT = `SELECT f.id AS featured_id, f.account_id, f.name AS featured_name, f.statuses_count, f.last_status_at, f.url,
  f.created_at, t.id, t.name, t.display_name FROM featured_tags f JOIN tags t ON t.id = f.tag_id`;

function rowToFeaturedTag(r: Row): FeaturedTag {
  return {
    id: str(r.featured_id),
    accountId: str(r.account_id),
    tag: rowToTag(r),
    name: r.featured_name as string,
    statusesCount: num(r.statuses_count),
    lastStatusAt: numOrNull(r.last_status_at),
    url: (r.url as string | null) ?? null,
    createdAt: num(r.created_at),
  };
}

/**
 * Features a tag, counting the owner's public and unlisted posts that carry it. The caller
 * checks that the account does not feature the tag yet.
 */
export function insertFeaturedTag(db: DB, f: { id: Id; accountId: Id; tagId: Id; name: string; url: string | null; createdAt: number }): void {
  stmt(
    db,
    `INSERT INTO featured_tags (id, account_id, tag_id, name, url, created_at, statuses_count, last_status_at)
     SELECT @id, @accountId, @tagId, @name, @url, @createdAt, count(*), max(s.created_at)
     FROM statuses_tags st JOIN statuses s ON s.id = st.status_id
     WHERE st.tag_id = @tagId AND s.account_id = @accountId AND s.visibility IN ('public', 'unlisted')
       AND s.reblog_of_id IS NULL AND s.deleted_at IS NULL`,
  ).run({ id: BigInt(f.id), accountId: BigInt(f.accountId), tagId: BigInt(f.tagId), name: f.name, url: f.url, createdAt: f.createdAt });
}

export function deleteFeaturedTag(db: DB, id: Id): void {
  stmt(db, "DELETE FROM featured_tags WHERE id = ?").run(BigInt(id));
}

export function findFeaturedTag(db: DB, accountId: Id, id: Id): FeaturedTag | undefined {
  const r = stmt(db, `${SELECT} WHERE f.account_id = ? AND f.id = ?`).get(BigInt(accountId), BigInt(id)) as Row | undefined;
  return r && rowToFeaturedTag(r);
}

export function findFeaturedTagByTag(db: DB, accountId: Id, tagId: Id): FeaturedTag | undefined {
  const r = stmt(db, `${SELECT} WHERE f.account_id = ? AND f.tag_id = ?`).get(BigInt(accountId), BigInt(tagId)) as Row | undefined;
  return r && rowToFeaturedTag(r);
}

/** An account's featured tags: most used first (own list), or in the order they were featured. */
export function listFeaturedTags(db: DB, accountId: Id, order: "uses" | "featured"): FeaturedTag[] {
  const by = order === "uses" ? "f.statuses_count DESC, f.id" : "f.id";
  return (stmt(db, `${SELECT} WHERE f.account_id = ? ORDER BY ${by}`).all(BigInt(accountId)) as Row[]).map(rowToFeaturedTag);
}

export function countFeaturedTags(db: DB, accountId: Id): number {
  return num((stmt(db, "SELECT count(*) AS n FROM featured_tags WHERE account_id = ?").get(BigInt(accountId)) as Row).n);
}

/** Those of `tagIds` the account features (one query for a page of tags). */
export function featuredTagIdsAmong(db: DB, accountId: Id, tagIds: Id[]): Set<Id> {
  if (tagIds.length === 0) return new Set();
  const rows = stmt(
    db,
    "SELECT tag_id FROM featured_tags WHERE account_id = ? AND tag_id IN (SELECT value FROM json_each(?))",
  ).all(BigInt(accountId), idListJson(tagIds)) as Row[];
  return new Set(rows.map((r) => str(r.tag_id)));
}

/**
 * Tag.suggestions_for_account: the tags of the account's newest `recent` posts that it does not
 * feature, most used first (the most recently used first among equals); not the unlisted ones.
 */
export function suggestedFeaturedTags(db: DB, accountId: Id, recent: number, limit: number): TagRow[] {
  const rows = stmt(
    db,
    `SELECT t.id, t.name, t.display_name FROM (SELECT id FROM statuses WHERE account_id = @a ORDER BY id DESC LIMIT @recent) r
       JOIN statuses_tags st ON st.status_id = r.id JOIN tags t ON t.id = st.tag_id
     WHERE NOT EXISTS (SELECT 1 FROM featured_tags f WHERE f.account_id = @a AND f.tag_id = t.id) AND t.listable IS NOT 0
     GROUP BY t.id ORDER BY count(*) DESC, max(r.id) DESC LIMIT @limit`,
  ).all({ a: BigInt(accountId), recent, limit }) as Row[];
  return rows.map(rowToTag);
}

/** Sets a remote account's featured tags to exactly `tags` (its `featuredTags` collection). */
export function replaceFeaturedTags(db: DB, accountId: Id, tags: { id: Id; tagId: Id; name: string; url: string | null; createdAt: number }[]): void {
  stmt(db, "DELETE FROM featured_tags WHERE account_id = ? AND tag_id NOT IN (SELECT value FROM json_each(?))").run(
    BigInt(accountId),
    idListJson(tags.map((t) => t.tagId)),
  );
  for (const t of tags) {
    const known = findFeaturedTagByTag(db, accountId, t.tagId);
    if (known) stmt(db, "UPDATE featured_tags SET name = ?, url = ? WHERE id = ?").run(t.name, t.url, BigInt(known.id));
    else insertFeaturedTag(db, { ...t, accountId });
  }
}
