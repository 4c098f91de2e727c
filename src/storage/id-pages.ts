import { type DB, type Row, stmt } from "../db/db.ts";
import { keyset, type Page } from "./timelines.ts";

// One page of a small admin table by id (Mastodon's to_a_paginated_by_id): newest first,
// below max_id, above since_id, or the page right after min_id. `table` is a constant of the
// caller, never input.

export function rowsPageById(db: DB, table: string, page: Page): Row[] {
  const k = keyset(page);
  const rows = stmt(
    db,
    `SELECT * FROM ${table} WHERE id < @upper AND id > @lower ORDER BY id ${k.ascending ? "ASC" : "DESC"} LIMIT @limit`,
  ).all({ upper: k.upper, lower: k.lower, limit: k.limit }) as Row[];
  return k.ascending ? rows.reverse() : rows;
}
