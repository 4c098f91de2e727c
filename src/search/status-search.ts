// Reads of the status index: candidate ids for a MATCH expression, newest first, and the exact
// checks that follow (the index narrows; the tables decide).
import { type DB, type Row, stmt, str, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import type { Status } from "../storage/statuses.ts";
import type { IdRange, SearchScope } from "./status-query.ts";
import { authorWord, domainWord } from "./tokens.ts";

/**
 * Ids of indexed statuses matching `match` within [range.from, range.to), newest first. FTS5
 * walks its doclists backwards from `range.to` and stops after `limit` rows.
 */
export function matchStatusIds(db: DB, match: string, range: IdRange, limit: number): Id[] {
  const rows = stmt(
    db,
    `SELECT rowid AS id FROM status_search WHERE status_search MATCH @match AND rowid >= @from AND rowid < @to
     ORDER BY rowid DESC LIMIT @limit`,
  ).all({ match, from: range.from, to: range.to, limit }) as Row[];
  return rows.map((r) => str(r.id));
}

/**
 * Among `statuses` (live rows of index hits), those the viewer may search with `scope`, decided
 * on the tables rather than the index: public posts of authors who are `indexable` now (the
 * index learns of a change of heart through a job), and posts in the viewer's library (own
 * posts, mentions, favourites, bookmarks, boosts, poll votes). Only the statuses that are
 * neither public from such an author nor the viewer's own cost a query.
 */
export function inSearchScope(db: DB, viewerId: Id, statuses: Status[], indexable: (accountId: Id) => boolean, scope: SearchScope): Set<Id> {
  const out = new Set<Id>();
  const rest: Id[] = [];
  for (const s of statuses) {
    if (scope !== "library" && s.visibility === "public" && indexable(s.accountId)) out.add(s.id);
    else if (scope === "public") continue;
    else if (s.accountId === viewerId && s.local) out.add(s.id);
    else rest.push(s.id);
  }
  if (rest.length === 0) return out;
  const rows = stmt(
    db,
    `SELECT j.value AS id FROM json_each(@ids) j
     WHERE EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = j.value AND m.account_id = @viewer AND m.silent = 0)
        OR EXISTS (SELECT 1 FROM favourites f WHERE f.account_id = @viewer AND f.status_id = j.value)
        OR EXISTS (SELECT 1 FROM bookmarks b WHERE b.account_id = @viewer AND b.status_id = j.value)
        OR EXISTS (SELECT 1 FROM statuses r WHERE r.account_id = @viewer AND r.reblog_of_id = j.value)
        OR EXISTS (SELECT 1 FROM polls p JOIN poll_votes v ON v.poll_id = p.id WHERE p.status_id = j.value AND v.account_id = @viewer)`,
  ).all({ ids: idListJson(rest), viewer: BigInt(viewerId) }) as Row[];
  for (const r of rows) out.add(str(r.id));
  return out;
}

/** At most this many authors and domains are left out inside the index query. */
const MAX_HIDDEN = 200;

/**
 * Meta words of the authors whose posts the viewer never sees in search (blocked either way,
 * muted) and of the domains the viewer blocks: excluded inside the index query so that a page
 * is not spent on them. The exact filter runs on the statuses afterwards anyway.
 */
export function hiddenWords(db: DB, viewerId: Id, now: number): string[] {
  const accounts = stmt(
    db,
    `SELECT target_account_id AS id FROM blocks WHERE account_id = @viewer
     UNION ALL SELECT account_id FROM blocks WHERE target_account_id = @viewer
     UNION ALL SELECT target_account_id FROM mutes WHERE account_id = @viewer AND (expires_at IS NULL OR expires_at > @now)
     LIMIT @max`,
  ).all({ viewer: BigInt(viewerId), now, max: MAX_HIDDEN }) as Row[];
  const domains = stmt(db, "SELECT domain FROM account_domain_blocks WHERE account_id = ? LIMIT ?").all(BigInt(viewerId), MAX_HIDDEN) as Row[];
  // UNION ALL, a third cheaper than UNION (no temporary b-tree): an account blocked both ways,
  // or blocked and muted, comes twice (and counts twice towards MAX_HIDDEN).
  return [...new Set(accounts.map((r) => authorWord(str(r.id)))), ...domains.map((r) => domainWord(r.domain as string))];
}
