// Account search among known accounts (no full-text engine: prefix matches, as Mastodon's
// database search). Offset paging, because that is the API's contract for search.
import { type DB, type Row, stmt } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type Account, rowToAccount } from "./accounts.ts";

export interface AccountSearchQuery {
  /** Lower-cased prefix of the username (or of a display-name word). */
  term: string;
  /** Lower-cased prefix of the domain (`bob@mast` → `mast`); null: any domain. */
  domainPrefix: string | null;
  viewerId: Id;
  /** Only accounts the viewer follows. */
  following: boolean;
  limit: number;
  offset: number;
}

// Above any character's UTF-8 encoding: `x >= p AND x < p || MAX` is "starts with p" on an index.
const MAX_CHAR = "\u{10FFFF}";

/**
 * What search may show a viewer (`a` joined with its user `u`): not suspended, local ones
 * confirmed and approved, not blocking the viewer (the seed: accounts that blocked a user are
 * hidden from that user), and with `@following` only accounts the viewer follows. Accounts the
 * viewer blocks or mutes, or whose domain the viewer blocks, stay findable, as in Mastodon
 * (Account::Search filters neither): clients find them through search to unblock or unmute.
 */
const SHOWN_TO_VIEWER = `
       AND a.suspended_at IS NULL
       AND (a.domain IS NOT NULL OR (u.confirmed_at IS NOT NULL AND u.approved = 1))
       AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = a.id AND b.target_account_id = @viewer)
       AND (@following = 0 OR EXISTS (SELECT 1 FROM follows f WHERE f.account_id = @viewer AND f.target_account_id = a.id))`;

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => "\\" + c);

/**
 * Accounts shown to the viewer whose username starts with the term, or whose display name has
 * a word starting with it. Exact usernames first, then local accounts, then the most followed.
 */
export function searchAccounts(db: DB, q: AccountSearchQuery): Account[] {
  const rows = stmt(
    db,
    `SELECT a.* FROM accounts a LEFT JOIN users u ON u.account_id = a.id
     WHERE ((lower(a.username) >= @term AND lower(a.username) < @termEnd)
            OR (@domainPrefix IS NULL AND (a.display_name LIKE @namePrefix ESCAPE '\\' OR a.display_name LIKE @wordPrefix ESCAPE '\\')))
       AND (@domainPrefix IS NULL OR a.domain LIKE @domainLike ESCAPE '\\')
       ${SHOWN_TO_VIEWER}
     ORDER BY lower(a.username) = @term DESC, a.domain IS NULL DESC, a.followers_count DESC, a.id
     LIMIT @limit OFFSET @offset`,
  ).all({
    term: q.term,
    termEnd: q.term + MAX_CHAR,
    namePrefix: `${likeEscape(q.term)}%`,
    wordPrefix: `% ${likeEscape(q.term)}%`,
    domainPrefix: q.domainPrefix,
    domainLike: q.domainPrefix === null ? null : `${likeEscape(q.domainPrefix)}%`,
    viewer: BigInt(q.viewerId),
    following: q.following ? 1 : 0,
    limit: q.limit,
    offset: q.offset,
  }) as Row[];
  return rows.map(rowToAccount);
}

/** True when the account passes searchAccounts' filters (an exact handle match is checked alone). */
export function isShownInSearch(db: DB, accountId: Id, viewerId: Id, following: boolean): boolean {
  const sql = `SELECT 1 FROM accounts a LEFT JOIN users u ON u.account_id = a.id WHERE a.id = @id ${SHOWN_TO_VIEWER}`;
  return !!stmt(db, sql).get({ id: BigInt(accountId), viewer: BigInt(viewerId), following: following ? 1 : 0 });
}
