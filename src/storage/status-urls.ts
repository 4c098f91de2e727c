// Statuses by a link to them, uri or web URL (`https://host/@bob/123`): what a URL pasted into
// search may be, or what a remote Delete or Create names.
import { type DB, type Row, stmt } from "../db/db.ts";
import { sameHost } from "../lib/urls.ts";
import { rowToStatus, type Status } from "./statuses.ts";

/**
 * A live status whose uri or web URL is `url` (uri first: it is the identity). A web URL only
 * counts on the host of the status's own uri: `url` is whatever the peer wrote, and a peer
 * must not claim another server's links. `remoteOnly` matches web URLs of remote statuses
 * only (federation: a peer never names our posts by URL).
 */
export function findStatusByLink(db: DB, url: string, opts: { remoteOnly?: boolean } = {}): Status | undefined {
  const byUri = stmt(db, "SELECT * FROM statuses WHERE uri = ? AND deleted_at IS NULL").get(url) as Row | undefined;
  if (byUri) return rowToStatus(byUri);
  const byUrl = opts.remoteOnly
    ? "SELECT * FROM statuses WHERE url = ? AND deleted_at IS NULL AND local = 0 ORDER BY id LIMIT 8"
    : "SELECT * FROM statuses WHERE url = ? AND deleted_at IS NULL ORDER BY id LIMIT 8";
  const r = (stmt(db, byUrl).all(url) as Row[]).find((row) => sameHost(row.uri as string, url));
  return r && rowToStatus(r);
}
