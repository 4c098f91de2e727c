// Followed hashtags (Mastodon's TagFollow): who follows which tag, in follow order.
import { type DB, type Row, stmt, str, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type Keyset, keysetSql } from "./keyset.ts";
import { rowToTag, type TagRow } from "./tag-search.ts";

/** Idempotent: an existing follow keeps its place in the list. */
export function insertTagFollow(db: DB, f: { id: Id; accountId: Id; tagId: Id; createdAt: number }): void {
  stmt(db, "INSERT INTO tag_follows (id, account_id, tag_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING").run(
    BigInt(f.id),
    BigInt(f.accountId),
    BigInt(f.tagId),
    f.createdAt,
  );
}

/** True when a follow was removed. */
export function deleteTagFollow(db: DB, accountId: Id, tagId: Id): boolean {
  return stmt(db, "DELETE FROM tag_follows WHERE account_id = ? AND tag_id = ?").run(BigInt(accountId), BigInt(tagId)).changes > 0;
}

export interface FollowedTagRow {
  /** The tag follow's id: the hidden cursor of GET /api/v1/followed_tags. */
  cursor: Id;
  tag: TagRow;
}

/** Tags the account follows, newest follow first. */
export function listFollowedTagsPage(db: DB, accountId: Id, page: Keyset): FollowedTagRow[] {
  const k = keysetSql("f.id", page);
  const rows = stmt(
    db,
    `SELECT f.id AS cursor, t.id, t.name, t.display_name FROM tag_follows f JOIN tags t ON t.id = f.tag_id
     WHERE f.account_id = @accountId${k.where} ${k.order}`,
  ).all({ ...k.params, accountId: BigInt(accountId) }) as Row[];
  const out = rows.map((r) => ({ cursor: str(r.cursor), tag: rowToTag(r) }));
  return k.reverse ? out.reverse() : out;
}

/** Those of `tagIds` the account follows (one query for a page of tags). */
export function followedTagIdsAmong(db: DB, accountId: Id, tagIds: Id[]): Set<Id> {
  if (tagIds.length === 0) return new Set();
  const rows = stmt(
    db,
    "SELECT tag_id FROM tag_follows WHERE account_id = ? AND tag_id IN (SELECT value FROM json_each(?))",
  ).all(BigInt(accountId), idListJson(tagIds)) as Row[];
  return new Set(rows.map((r) => str(r.tag_id)));
}
