// Statuses by a link to them, uri or web URL (`https://host/@bob/123`): what a URL pasted into
// search may be, or what a remote Delete or Create names.
import { type DB, type Row, stmt } from "../db/db.ts";
import { rowToStatus, type Status } from "./statuses.ts";

/**
 * A live status whose uri or web URL is `url` (uri first: it is the identity). `remoteOnly`
 * matches web URLs of remote statuses only (federation: a peer never names our posts by URL).
 */
export function findStatusByLink(db: DB, url: string, opts: { remoteOnly?: boolean } = {}): Status | undefined {
  const byUrl = opts.remoteOnly
    ? "SELECT * FROM statuses WHERE url = ? AND deleted_at IS NULL AND local = 0 ORDER BY id LIMIT 1"
    : "SELECT * FROM statuses WHERE url = ? AND deleted_at IS NULL ORDER BY id LIMIT 1";
  const r = (stmt(db, "SELECT * FROM statuses WHERE uri = ? AND deleted_at IS NULL").get(url) ?? stmt(db, byUrl).get(url)) as Row | undefined;
  return r && rowToStatus(r);
}
