import { type DB, type Row, stmt, str, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { keyset, type Page } from "./timelines.ts";

// Hashtags as moderators see them (Mastodon's Tag with usable, listable, trendable and the
// review): `usable` / `listable` NULL mean never decided (yes); `trendable` is the tag's
// trend_reviews row (NULL: not reviewed).

export interface AdminTag {
  id: Id;
  name: string;
  displayName: string;
  usable: boolean | null;
  listable: boolean | null;
  trendable: boolean | null;
  reviewedAt: number | null;
  /** Trending now (trends table), which is what asks for a review. */
  trending: boolean;
}

/** reviewed / unreviewed / pending_review (unreviewed and trending): Admin::TagFilter's status. */
export type AdminTagStatus = "reviewed" | "unreviewed" | "pending_review";

const flag = (v: unknown) => (v === null || v === undefined ? null : Number(v) === 1);

const rowTo = (r: Row): AdminTag => ({
  id: str(r.id),
  name: r.name as string,
  displayName: r.display_name as string,
  usable: flag(r.usable),
  listable: flag(r.listable),
  trendable: flag(r.trendable),
  reviewedAt: r.reviewed_at === null ? null : num(r.reviewed_at),
  trending: Number(r.trending) === 1,
});

const SELECT = `SELECT t.id, t.name, t.display_name, t.usable, t.listable,
    r.trendable, coalesce(t.reviewed_at, r.reviewed_at) AS reviewed_at,
    EXISTS (SELECT 1 FROM trends x WHERE x.kind = 'tag' AND x.item_id = t.id) AS trending
  FROM tags t LEFT JOIN trend_reviews r ON r.kind = 'tag' AND r.item_id = t.id`;

const REVIEWED = "coalesce(t.reviewed_at, r.reviewed_at) IS NOT NULL";

export function findAdminTag(db: DB, id: Id): AdminTag | undefined {
  const r = stmt(db, `${SELECT} WHERE t.id = ?`).get(BigInt(id)) as Row | undefined;
  return r && rowTo(r);
}

/** These tags (any order), for a page of them: one query. */
export function findAdminTags(db: DB, ids: Id[]): AdminTag[] {
  if (ids.length === 0) return [];
  return (stmt(db, `${SELECT} WHERE t.id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))`).all(JSON.stringify(ids)) as Row[]).map(rowTo);
}

/** A page by id, newest first; `name` is a prefix of the normalised name. */
export function listAdminTagsPage(db: DB, page: Page, filter: { name?: string; status?: AdminTagStatus }): AdminTag[] {
  const k = keyset(page);
  const status =
    filter.status === "reviewed"
      ? REVIEWED
      : filter.status === "unreviewed"
        ? `NOT (${REVIEWED})`
        : filter.status === "pending_review"
          ? `NOT (${REVIEWED}) AND EXISTS (SELECT 1 FROM trends x WHERE x.kind = 'tag' AND x.item_id = t.id)`
          : "1";
  const rows = stmt(
    db,
    `${SELECT} WHERE t.id < @upper AND t.id > @lower AND (@name IS NULL OR (t.name >= @name AND t.name < @name || char(1114111))) AND ${status}
     ORDER BY t.id ${k.ascending ? "ASC" : "DESC"} LIMIT @limit`,
  ).all({ upper: k.upper, lower: k.lower, limit: k.limit, name: filter.name ?? null }) as Row[];
  return (k.ascending ? rows.reverse() : rows).map(rowTo);
}

export function updateTagModeration(db: DB, id: Id, t: { displayName: string; usable: boolean | null; listable: boolean | null; reviewedAt: number }): void {
  stmt(db, "UPDATE tags SET display_name = @display, usable = @usable, listable = @listable, reviewed_at = @at WHERE id = @id").run({
    id: BigInt(id),
    display: t.displayName,
    usable: t.usable === null ? null : t.usable ? 1 : 0,
    listable: t.listable === null ? null : t.listable ? 1 : 0,
    at: t.reviewedAt,
  });
}

/** Of these normalised names, the tags a moderator made unusable. */
export function unusableTagNames(db: DB, names: string[]): string[] {
  if (names.length === 0) return [];
  return (stmt(db, "SELECT name FROM tags WHERE usable = 0 AND name IN (SELECT value FROM json_each(?))").all(JSON.stringify(names)) as Row[]).map((r) => r.name as string);
}

/** What the flags amount to, as Mastodon's boolean_with_default reads them (trendable by default unless trends need review). */
export function effectiveTagFlags(t: AdminTag, trendsRequireReview: boolean): { usable: boolean; listable: boolean; trendable: boolean } {
  return { usable: t.usable ?? true, listable: t.listable ?? true, trendable: t.trendable ?? !trendsRequireReview };
}
