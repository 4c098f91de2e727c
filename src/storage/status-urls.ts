// Statuses by a link to them, uri or web URL (`https://host/@bob/123`), local ones included:
// what a URL pasted into search may be. (storage/remote-statuses.ts has the remote-only form.)
import { type DB, type Row, stmt } from "../db/db.ts";
import { rowToStatus, type Status } from "./statuses.ts";

/** A live status whose uri or web URL is `url` (uri first: it is the identity). */
export function findStatusByLink(db: DB, url: string): Status | undefined {
  const r = (stmt(db, "SELECT * FROM statuses WHERE uri = ? AND deleted_at IS NULL").get(url) ??
    stmt(db, "SELECT * FROM statuses WHERE url = ? AND deleted_at IS NULL ORDER BY id LIMIT 1").get(url)) as Row | undefined;
  return r && rowToStatus(r);
}
