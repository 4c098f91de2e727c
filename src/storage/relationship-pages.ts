import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Keyset pages of account lists that paginate by a hidden join-record id (follows, requests,
// blocks, mutes, pins): Mastodon's paginate_by_max_id (max_id/since_id, newest first), plus
// min_id (the page right after the cursor), which the seed asks of blocks and mutes.

export interface KeysetPage {
  /** Page size; -1 means no limit (own endorsements with limit=0). */
  limit: number;
  maxId?: Id;
  sinceId?: Id;
  minId?: Id;
}

/** One entry of a page: the hidden cursor and the account it names. */
export interface PageRow {
  cursor: Id;
  accountId: Id;
}

/**
 * Runs `build(where, order)` — a SELECT yielding `cursor` and `account_id` columns, into
 * which the cursor conditions (" AND col < @maxId ...") and the ORDER BY are spliced — and
 * returns the rows newest first. The few SQL variants are each prepared once.
 */
export function selectPage(
  db: DB,
  page: KeysetPage,
  col: string,
  build: (where: string, order: string) => string,
  params: Record<string, unknown>,
): PageRow[] {
  if (page.limit === 0) return [];
  let where = "";
  const all: Record<string, unknown> = { ...params, limit: page.limit };
  if (page.maxId) {
    where += ` AND ${col} < @maxId`;
    all.maxId = BigInt(page.maxId);
  }
  const ascending = page.minId !== undefined;
  if (ascending) {
    where += ` AND ${col} > @minId`;
    all.minId = BigInt(page.minId!);
  } else if (page.sinceId) {
    where += ` AND ${col} > @sinceId`;
    all.sinceId = BigInt(page.sinceId);
  }
  const rows = stmt(db, build(where, `${col} ${ascending ? "ASC" : "DESC"}`)).all(all) as Row[];
  const out = rows.map((r) => ({ cursor: str(r.cursor), accountId: str(r.account_id) }));
  return ascending ? out.reverse() : out;
}
