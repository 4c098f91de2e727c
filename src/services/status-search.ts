// Full-text status search for GET /api/v2/search (Mastodon's StatusesSearchService): the
// query language parsed and run on the status index (src/search/), then Mastodon's StatusFilter
// on what it found (blocks either way, mutes, domain blocks, visibility). Newest first.
import type { App } from "../app.ts";
import { readTx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { normalizeLanguage } from "../lib/status-text.ts";
import { parseSearchQuery } from "../search/query-parser.ts";
import { compileStatusQuery, matchExpression, metaMatch, narrow } from "../search/status-query.ts";
import { hiddenWords, inSearchScope, matchStatusIds } from "../search/status-search.ts";
import { authorWord } from "../search/tokens.ts";
import { type Account, type AccountStanding, findAccountByHandle, findAccountStandings } from "../storage/accounts.ts";
import { findLiveStatusesCached } from "../storage/status-cache.ts";
import type { Status } from "../storage/statuses.ts";
import { parseAcct } from "./account-lookup.ts";
import { filterVisibleStatuses } from "./status-filter.ts";

export interface StatusSearchOptions {
  limit: number;
  offset: number;
  /** Only by this author (Mastodon turns it into `from:`). */
  accountId?: Id;
  minId?: Id;
  maxId?: Id;
}

/**
 * At most this many index hits are examined for one page: a query whose hits the viewer may
 * almost never see (an author blocked en masse) ends with a short page instead of a long scan.
 */
const MAX_EXAMINED = 2000;

/** `from:` value → a known account's id (`alice`, `@alice`, `alice@domain`); null otherwise. */
function accountIdOf(app: App, value: string): Id | null {
  const acct = parseAcct(app, value);
  return acct ? (findAccountByHandle(app.db, acct.username, acct.domain)?.id ?? null) : null;
}

/** Statuses matching `q` that the viewer may search and see, newest first. */
export function searchStatuses(app: App, viewer: Account, q: string, opts: StatusSearchOptions): Status[] {
  if (opts.limit <= 0) return [];
  const query = compileStatusQuery(parseSearchQuery(q), {
    viewerId: viewer.id,
    resolveAccount: (v) => accountIdOf(app, v),
    languageCode: (v) => normalizeLanguage(v) ?? v,
  });
  if (opts.accountId) {
    query.must.push(metaMatch(authorWord(opts.accountId)));
    query.constrained = true;
  }
  if (opts.minId) narrow(query, { from: BigInt(opts.minId) + 1n, to: query.range.to });
  if (opts.maxId) narrow(query, { from: query.range.from, to: BigInt(opts.maxId) });
  if (query.impossible || !query.constrained || query.range.from >= query.range.to) return [];

  return readTx(app.db, () => {
    const hidden = hiddenWords(app.db, viewer.id, app.now());
    const scoped = matchExpression(query, viewer.id, hidden);
    // The index is first asked without the scope words when the query has words of its own:
    // `_scope_public_` is in nearly every row of an instance whose authors opted in, and FTS5
    // steps through that doclist at every step of an AND (two words: 0.55 of 0.65 ms), while
    // the exact check below (inSearchScope) decides anyway. A round whose hits are mostly out
    // of the viewer's scope (other people's libraries) switches to the scoped expression.
    let match = query.scope !== "library" && query.must.length > 0 ? matchExpression(query, viewer.id, hidden, false) : scoped;
    const out: Status[] = [];
    let skip = opts.offset;
    let to = query.range.to;
    let examined = 0;
    // The first round asks for about one page (most hits are shown), later ones for more.
    let batch = Math.min(200, opts.offset + opts.limit + 5);
    while (out.length < opts.limit && examined < MAX_EXAMINED) {
      const ids = matchStatusIds(app.db, match, { from: query.range.from, to }, batch);
      if (ids.length === 0) break;
      examined += ids.length;
      to = BigInt(ids[ids.length - 1]);
      const wanted = ids.filter((id) => !query.excluded.some((r) => BigInt(id) >= r.from && BigInt(id) < r.to));
      // The rows the page's serialiser reads too (and whose JSON it caches): read once.
      const found = findLiveStatusesCached(app, wanted);
      const hits = wanted.flatMap((id) => (found.has(id) ? [found.get(id)!] : []));
      const authors = hits.length ? findAccountStandings(app.db, new Set(hits.map((s) => s.accountId))) : new Map<Id, AccountStanding>();
      const inScope = inSearchScope(app.db, viewer.id, hits, (id) => authors.get(id)?.indexable === true, query.scope);
      // Switching, the next round asks for as many hits as this one did: they are all in scope.
      const switching = match !== scoped && inScope.size * 2 < wanted.length;
      if (switching) match = scoped;
      const candidates = hits.filter((s) => inScope.has(s.id));
      for (const s of filterVisibleStatuses(app, viewer.id, candidates, authors)) {
        if (skip > 0) skip--;
        else if (out.length < opts.limit) out.push(s);
      }
      if (ids.length < batch) break;
      if (!switching) batch = Math.min(200, batch * 2);
    }
    return out;
  });
}
