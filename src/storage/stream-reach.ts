import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Who has a status on screen, for the live streams (services/stream-events.ts): the home and
// list feeds holding it, read by the feeds' status_id indexes.

export interface FeedHolder {
  /** The feed entry: the status itself or a boost of it. */
  entryId: Id;
  ownerId: Id;
}

/** Homes and lists holding the status or a boost of it. */
export function feedsHoldingStatus(db: DB, statusId: Id): { homes: FeedHolder[]; lists: FeedHolder[] } {
  const entries = `(SELECT @id UNION ALL SELECT id FROM statuses WHERE reblog_of_id = @id)`;
  const rows = (sql: string) =>
    (stmt(db, sql).all({ id: BigInt(statusId) }) as Row[]).map((r) => ({ entryId: str(r.status_id), ownerId: str(r.owner) }));
  return {
    homes: rows(`SELECT status_id, account_id AS owner FROM home_feeds WHERE status_id IN ${entries}`),
    lists: rows(`SELECT status_id, list_id AS owner FROM list_feeds WHERE status_id IN ${entries}`),
  };
}

/** Whether the status has media attachments (the `:media` public streams). */
export function statusHasMedia(db: DB, statusId: Id): boolean {
  return !!stmt(db, "SELECT 1 FROM media_attachments WHERE status_id = ? LIMIT 1").get(BigInt(statusId));
}
