// Who took up which link (trend_uses, migrations/0041_trends.sql): links of public posts and of
// boosts of them (counted for the booster, as Mastodon's Trends::Links#register).
import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { normalizeLink } from "../lib/link-url.ts";
import { statusLinks } from "../search/status-document.ts";

export const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Uses are kept this long: the links' seven days of history. */
export const USES_KEPT_MS = 7 * DAY;
/** Rows read per statement: a backlog is worked off in slices. */
const SLICE = 20_000;

/** The link's id (small rowids: the admin API shows link and publisher ids as JSON numbers). */
function linkId(db: DB, url: string, domain: string, now: number): Id {
  const found = stmt(db, "SELECT id FROM trend_links WHERE url = ?").get(url) as Row | undefined;
  if (found) return str(found.id);
  stmt(db, "INSERT OR IGNORE INTO trend_publishers (domain) VALUES (?)").run(domain);
  return str(stmt(db, "INSERT INTO trend_links (url, domain, created_at) VALUES (?, ?, ?)").run(url, domain, now).lastInsertRowid);
}

/**
 * Records the links of the posts (and boosts) waiting in trend_link_queue, at most SLICE per
 * call; returns true when more are left. Hashtags, boosts and favourites are recorded by the
 * triggers of migrations/0041_trends.sql as the rows arrive.
 */
export function recordLinkUses(db: DB, now: number): boolean {
  const rows = stmt(
    db,
    `SELECT q.status_id, s.account_id, s.created_at, o.content, a.silenced_at FROM trend_link_queue q
       JOIN statuses s ON s.id = q.status_id JOIN statuses o ON o.id = q.original_id JOIN accounts a ON a.id = s.account_id
     ORDER BY q.status_id LIMIT ?`,
  ).all(SLICE) as Row[];
  const use = stmt(db, "INSERT OR IGNORE INTO trend_uses (kind, item_id, hour, account_id) VALUES ('link', ?, ?, ?)");
  for (const r of rows) {
    if (r.silenced_at !== null) continue;
    const at = Number(r.created_at);
    const seen = new Set<string>();
    for (const href of statusLinks(r.content as string)) {
      const link = normalizeLink(href);
      if (!link || seen.has(link.url)) continue;
      seen.add(link.url);
      use.run(BigInt(linkId(db, link.url, link.domain, now)), at - (at % HOUR), r.account_id);
    }
  }
  // Queue rows of statuses deleted meanwhile go too.
  const last = rows.length ? rows[rows.length - 1].status_id : null;
  if (last !== null) stmt(db, "DELETE FROM trend_link_queue WHERE status_id <= ?").run(last);
  else stmt(db, "DELETE FROM trend_link_queue").run();
  return rows.length === SLICE;
}

/** Drops uses older than the links' history. */
export function trimTrendUses(db: DB, now: number): void {
  stmt(db, "DELETE FROM trend_uses WHERE hour < ?").run(now - USES_KEPT_MS);
}
