import type { App } from "../app.ts";
import { type DB, idListJson, readTx } from "../db/db.ts";
import { deepFreeze, findRowCache, MAX_CACHED_CHARS, type RowCacheSpec } from "./row-cache.ts";
import type { Id } from "../lib/ids.ts";
import { allRows } from "../db/rows.ts";
import { rowToStatus, type Status } from "./statuses.ts";

/**
 * Status rows that pages (timelines, notifications, boosted originals) keep reading, cached
 * until the row changes (row-cache.ts), so a page query reads only ids. The objects are
 * shared, hence frozen.
 */
export const STATUS_ROWS_CACHE: RowCacheSpec = {
  name: "status-rows",
  max: 5_000,
  watches: [["statuses", "id"]],
};

/** Live statuses by id, from the cache or one query for the misses; missing ones are absent. */
export function findLiveStatusesCached(app: App, ids: Iterable<Id>): Map<Id, Status> {
  return readTx(app.db, () => {
    const cache = findRowCache<Status>(app, STATUS_ROWS_CACHE);
    cache?.sync();
    const found = new Map<Id, Status>();
    const missing: Id[] = [];
    for (const id of ids) {
      const hit = cache?.get(id);
      if (hit) found.set(id, hit);
      else missing.push(id);
    }
    for (const [id, st] of findLiveStatuses(app.db, missing)) {
      found.set(id, st);
      if (st.content.length + st.text.length <= MAX_CACHED_CHARS) cache?.set(id, deepFreeze(st));
    }
    return found;
  });
}

/**
 * Live statuses by id, one query; missing or deleted ones are absent. It runs even for no
 * ids: a page then costs the same queries whatever the cache holds.
 */
function findLiveStatuses(db: DB, ids: Id[]): Map<Id, Status> {
  const out = new Map<Id, Status>();
  const sql = "SELECT * FROM statuses WHERE id IN (SELECT value FROM json_each(?)) AND deleted_at IS NULL";
  for (const r of allRows(db, sql, idListJson(ids))) {
    const st = rowToStatus(r);
    out.set(st.id, st);
  }
  return out;
}
