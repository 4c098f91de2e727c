import type { Id } from "../lib/ids.ts";

/** Mastodon's id cursors (conventions.md §7). */
export interface Keyset {
  limit: number;
  maxId?: Id;
  sinceId?: Id;
  minId?: Id;
}

/**
 * SQL pieces for a keyset page over `col`: only the bounds present are written, so SQLite
 * can seek the index instead of filtering a scan. With `min_id` the scan ascends from the
 * cursor and the caller reverses the rows (`reverse`), so pages are always newest first.
 */
export function keysetSql(col: string, k: Keyset): { where: string; order: string; params: Record<string, unknown>; reverse: boolean } {
  const parts: string[] = [];
  const params: Record<string, unknown> = { limit: k.limit };
  if (k.maxId) {
    parts.push(`${col} < @maxId`);
    params.maxId = BigInt(k.maxId);
  }
  if (k.minId) {
    parts.push(`${col} > @minId`);
    params.minId = BigInt(k.minId);
  } else if (k.sinceId) {
    parts.push(`${col} > @sinceId`);
    params.sinceId = BigInt(k.sinceId);
  }
  const reverse = !!k.minId;
  return {
    where: parts.length ? " AND " + parts.join(" AND ") : "",
    order: `ORDER BY ${col} ${reverse ? "ASC" : "DESC"} LIMIT @limit`,
    params,
    reverse,
  };
}
