// Account search among known accounts, on the name index account_search (migration 0034):
// prefixes of the username and of display-name words, as Mastodon's database search. Offset
// paging, because that is the API's contract for search.
import { type DB, type Row, stmt, str, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

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

/** The filters every group shares (`a` may be any account matching the query). */
const MATCHING = `
       AND (@domainPrefix IS NULL OR a.domain LIKE @domainLike ESCAPE '\\')
       AND a.id NOT IN (SELECT value FROM json_each(@exclude))
       ${SHOWN_TO_VIEWER}`;
const FOLLOWED = "EXISTS (SELECT 1 FROM follows f WHERE f.account_id = @viewer AND f.target_account_id = a.id)";
/** The order within each group and of the rest: the index accounts_search_rank (migration 0046). */
const RANK = "a.domain IS NULL DESC, a.followers_count DESC, a.id";
const MATCHES = "SELECT rowid FROM account_search WHERE account_search MATCH @match";

/** Every match ranked in one sort: the plain way, when the bounded one (below) comes up short. */
const RANK_ALL = `SELECT a.id FROM account_search s JOIN accounts a ON a.id = s.rowid LEFT JOIN users u ON u.account_id = a.id
     WHERE account_search MATCH @match ${MATCHING}
     ORDER BY lower(a.username) = @term DESC, ${FOLLOWED} DESC, ${RANK}
     LIMIT @limit OFFSET @offset`;
/** The most accounts the walk (REST) reads in rank order before leaving the page to RANK_ALL. */
const WALK = 4000;
/**
 * Up to this many matches, RANK_ALL is cheaper than the walk (measured: a walked account costs
 * about a fifth of a ranked match, and a prefix matching few accounts finds them far apart).
 */
const RANK_ALL_MAX = 300;
const COUNT = `SELECT count(*) AS n FROM (${MATCHES} LIMIT ${RANK_ALL_MAX + 1})`;
/**
 * The same order in three parts, each reading only what a page needs. The match set (an FTS5
 * read of row ids) is built by a part only when it has a candidate to probe.
 * EXACT: the exact usernames (the handle index; a username is on few servers), all of them,
 * each checked against the index alone (no match set: there are few or none).
 */
const EXACT = `SELECT a.id FROM accounts a LEFT JOIN users u ON u.account_id = a.id
     WHERE lower(a.username) = @term ${MATCHING}
       AND EXISTS (SELECT 1 FROM account_search s WHERE account_search MATCH @match AND s.rowid = a.id)
     ORDER BY ${FOLLOWED} DESC, ${RANK}`;
/** The viewer's followed accounts that match (not exact), all of them: bounded by their follows. */
const FOLLOWED_MATCHES = `SELECT a.id FROM follows f JOIN accounts a ON a.id = f.target_account_id LEFT JOIN users u ON u.account_id = a.id
     WHERE f.account_id = @viewer AND lower(a.username) <> @term AND a.id IN (${MATCHES}) ${MATCHING}
     ORDER BY ${RANK}`;
/**
 * The other matches: accounts walked in rank order on the covering index accounts_search_rank
 * (migration 0046; the rows themselves are wide), at most WALK of them, each probing the match
 * set; only matches are filtered further, and the walk stops after the page (SQLite reads the
 * subquery in its order, so the outer ORDER BY needs no sort).
 */
const REST = `SELECT a.id FROM (
       SELECT id, domain, suspended_at, lower(username) AS lu, domain IS NULL AS local, followers_count AS fc
       FROM accounts a ORDER BY ${RANK} LIMIT ${WALK}) a
     LEFT JOIN users u ON u.account_id = a.id
     WHERE +a.id IN (${MATCHES}) AND a.lu <> @term AND NOT ${FOLLOWED} ${MATCHING}
     ORDER BY a.local DESC, a.fc DESC, a.id
     LIMIT @limit OFFSET @offset`;

const ids = (rows: unknown[]) => (rows as Row[]).map((r) => str(r.id));

/**
 * Accounts shown to the viewer that match: exact usernames first, then accounts the viewer
 * follows (Mastodon ranks both first too), then local ones and the most followed. A query
 * matching many accounts reads only what its page needs: the exact and followed groups (small
 * by nature) and the rest walked in rank order. A short page from the walk is checked by the
 * plain ranking, so the answer is always the same as ranking every match.
 */
export function searchAccounts(db: DB, q: AccountSearchQuery): Id[] {
  const params = {
    match: q.match,
    term: q.term,
    domainPrefix: q.domainPrefix,
    domainLike: q.domainPrefix === null ? null : `${likeEscape(q.domainPrefix)}%`,
    exclude: idListJson(q.exclude ?? []),
    viewer: BigInt(q.viewerId),
    following: q.following ? 1 : 0,
  };
  if (q.limit <= 0) return [];
  const few = Number((stmt(db, COUNT).get(params) as Row).n) <= RANK_ALL_MAX;
  if (few) return ids(stmt(db, RANK_ALL).all({ ...params, limit: q.limit, offset: q.offset }));
  const follows = stmt(db, "SELECT 1 AS x FROM follows WHERE account_id = ? LIMIT 1").get(params.viewer) !== undefined;
  const head = [...ids(stmt(db, EXACT).all(params)), ...(follows ? ids(stmt(db, FOLLOWED_MATCHES).all(params)) : [])];
  let page = head.slice(q.offset, q.offset + q.limit);
  const want = q.limit - page.length;
  if (want > 0 && !q.following) {
    const rest = ids(stmt(db, REST).all({ ...params, limit: want, offset: Math.max(0, q.offset - head.length) }));
    // Short: the end of the matches, or the walk gave up (matches are rare among the first
    // WALK accounts): ranking every match decides.
    page = rest.length === want ? [...page, ...rest] : ids(stmt(db, RANK_ALL).all({ ...params, limit: q.limit, offset: q.offset }));
  }
  return page;
}


/** True when the account passes searchAccounts' filters (an exact handle match is checked alone). */
export function isShownInSearch(db: DB, accountId: Id, viewerId: Id, following: boolean): boolean {
  const sql = `SELECT 1 FROM accounts a LEFT JOIN users u ON u.account_id = a.id WHERE a.id = @id ${SHOWN_TO_VIEWER}`;
  return !!stmt(db, sql).get({ id: BigInt(accountId), viewer: BigInt(viewerId), following: following ? 1 : 0 });
}
