// Account search among known accounts, on the name index account_search (migration 0034):
// prefixes of the username and of display-name words, as Mastodon's database search. Offset
// paging, because that is the API's contract for search.
import { type DB, type Row, stmt, str, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type Account, findAccountsByIds } from "./accounts.ts";

export interface AccountSearchQuery {
  /** FTS5 MATCH expression on account_search (services/search.ts builds it from quoted words). */
  match: string;
  /** Lower-cased username that counts as an exact match (ranked first). */
  term: string;
  /** Lower-cased prefix of the domain (`bob@mast` → `mast`); null: any domain. */
  domainPrefix: string | null;
  viewerId: Id;
  /** Only accounts the viewer follows. */
  following: boolean;
  /** Accounts already found (an earlier round of the same search). */
  exclude?: Id[];
  limit: number;
  offset: number;
}

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
 * Accounts shown to the viewer that match. Exact usernames first, then accounts the viewer
 * follows (Mastodon ranks them first too), local ones, the most followed.
 */
export function searchAccounts(db: DB, q: AccountSearchQuery): Account[] {
  const rows = stmt(
    db,
    // Ranks ids only; the page's rows are read afterwards. Sorting every match's whole row
    // (keys, notes) was most of the cost of a short prefix matching a thousand accounts.
    `SELECT a.id FROM account_search s JOIN accounts a ON a.id = s.rowid LEFT JOIN users u ON u.account_id = a.id
     WHERE account_search MATCH @match
       AND (@domainPrefix IS NULL OR a.domain LIKE @domainLike ESCAPE '\\')
       AND a.id NOT IN (SELECT value FROM json_each(@exclude))
       ${SHOWN_TO_VIEWER}
     ORDER BY lower(a.username) = @term DESC,
       EXISTS (SELECT 1 FROM follows f WHERE f.account_id = @viewer AND f.target_account_id = a.id) DESC,
       a.domain IS NULL DESC, a.followers_count DESC, a.id
     LIMIT @limit OFFSET @offset`,
  ).all({
    match: q.match,
    term: q.term,
    domainPrefix: q.domainPrefix,
    domainLike: q.domainPrefix === null ? null : `${likeEscape(q.domainPrefix)}%`,
    exclude: idListJson(q.exclude ?? []),
    viewer: BigInt(q.viewerId),
    following: q.following ? 1 : 0,
    limit: q.limit,
    offset: q.offset,
  }) as Row[];
  const ids = rows.map((r) => str(r.id));
  const found = findAccountsByIds(db, ids);
  return ids.flatMap((id) => found.get(id) ?? []);
}

/** True when the account passes searchAccounts' filters (an exact handle match is checked alone). */
export function isShownInSearch(db: DB, accountId: Id, viewerId: Id, following: boolean): boolean {
  const sql = `SELECT 1 FROM accounts a LEFT JOIN users u ON u.account_id = a.id WHERE a.id = @id ${SHOWN_TO_VIEWER}`;
  return !!stmt(db, sql).get({ id: BigInt(accountId), viewer: BigInt(viewerId), following: following ? 1 : 0 });
}
