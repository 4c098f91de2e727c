// Search (GET /api/v2/search, GET /api/v1/accounts/search): accounts by handle, then by prefix
// of their names on the name index, hashtags by prefix, statuses by the query language on the
// status index (services/status-search.ts) or by URL; names a prefix does not find are tried
// with a typo or two (search/fuzzy-names.ts). Remote handles and URLs are resolved when asked
// to (`resolve`). See src/search/DESIGN.md.
import type { App } from "../app.ts";
import { compareIds, type Id } from "../lib/ids.ts";
import { normalizeTag } from "../lib/tags.ts";
import { findAccountByHandle, findAccountByUri, type Account } from "../storage/accounts.ts";
import { rankAccountsByName } from "../search/account-names.ts";
import { nameWords, nearAccountWords, nearTagNames } from "../search/fuzzy-names.ts";
import { ftsString } from "../search/tokens.ts";
import { isShownInSearch, searchAccounts } from "../storage/account-search.ts";
import { findAccountByUrl } from "../storage/remote-accounts.ts";
import { findStatusByLink } from "../storage/status-urls.ts";
import type { Status } from "../storage/statuses.ts";
import { findTagsByNames, searchTags, type TagRow } from "../storage/tag-search.ts";
import { parseAcct } from "./account-lookup.ts";
import { resolveAcct, resolveUrlTarget, type UrlTarget } from "./remote-lookup.ts";
import { searchStatuses } from "./status-search.ts";
import { canViewStatus } from "./visibility.ts";

export type SearchType = "accounts" | "hashtags" | "statuses";

export interface SearchInput {
  q: string;
  type?: SearchType;
  resolve: boolean;
  limit: number;
  offset: number;
  following: boolean;
  /** Statuses: only by this author. */
  accountId?: Id;
  minId?: Id;
  maxId?: Id;
  /** Hashtags: only reviewed ones (none are, in roost: only the exact name then). */
  excludeUnreviewed: boolean;
}

export interface SearchResult {
  /** Ids, in rank order: the routes render them (cached renderings). */
  accounts: Id[];
  statuses: Status[];
  hashtags: TagRow[];
}

// Mastodon's search operators (4.2+): `from:`, `has:`, `is:`, `language:`, `before:`, `after:`,
// `during:`, `in:`, optionally negated. They only filter statuses (services/status-search.ts):
// accounts and hashtags are matched on the other words.
const OPERATOR_RE = /^-?(from|has|is|language|before|after|during|in):/i;

/** The words of a query without its operators (quotes dropped). */
export function queryText(q: string): string {
  return q
    .split(/\s+/)
    .filter((w) => w !== "" && !OPERATOR_RE.test(w))
    .join(" ")
    .replace(/"/g, "")
    .trim();
}

const isUrl = (q: string) => /^https?:\/\/\S+$/i.test(q);

/** Names are short: a longer query is cut (it could match nothing longer anyway). */
const MAX_NAME_QUERY = 200;

/** A URL query: the account or status it names, known or (with `resolve`) fetched. */
export async function resolveUrl(app: App, url: string, resolve: boolean): Promise<UrlTarget> {
  const account = findAccountByUri(app.db, url) ?? findAccountByUrl(app.db, url);
  if (account) return { account };
  const status = findStatusByLink(app.db, url);
  if (status) return { status };
  if (!resolve) return undefined;
  return resolveUrlTarget(app, url);
}

/**
 * Accounts matching `q`: an exact `user@domain` first (resolved over the network with
 * `resolve`), then prefix matches among known accounts. `strict` (accounts/search) answers a
 * failed remote look-up with 503 instead of skipping it.
 */
export async function findAccounts(
  app: App,
  viewer: Account,
  q: string,
  opts: { resolve: boolean; following: boolean; limit: number; offset: number; strict?: boolean },
): Promise<Id[]> {
  const text = q.trim().replace(/^@/, "");
  if (text === "" || text.startsWith("#") || opts.limit === 0) return [];
  const out: Id[] = [];
  let domainPrefix: string | null = null;
  const at = text.indexOf("@");
  if (at !== -1) {
    const acct = parseAcct(app, text);
    if (!acct) return [];
    domainPrefix = acct.domain;
    if (opts.offset === 0) {
      let exact: Account | undefined;
      if (opts.resolve) {
        try {
          exact = await resolveAcct(app, acct);
        } catch (e) {
          if (opts.strict) throw e;
        }
      } else {
        exact = findAccountByHandle(app.db, acct.username, acct.domain);
      }
      if (exact && isShownInSearch(app.db, exact.id, viewer.id, opts.following)) out.push(exact.id);
    }
  }
  const term = (at === -1 ? text : text.slice(0, at)).slice(0, MAX_NAME_QUERY).toLowerCase();
  if (!/[\p{L}\p{N}\p{Co}]/u.test(term)) return out; // no word for the name index's tokenizer
  // A handle's username is matched on the username alone; other text on display names too.
  const column = domainPrefix === null ? "" : "username : ";
  const base = { term, domainPrefix, viewerId: viewer.id, following: opts.following, offset: opts.offset };
  // One word and no domain (what people type into a search box): the name index in memory
  // ranks it (search/account-names.ts); the database answers every other shape the same way.
  const words = domainPrefix === null ? nameWords(term) : [];
  const inMemory = (q: { prefix?: string; words?: string[] }, exclude: Id[]) => rankAccountsByName(app, { ...q, ...base, exclude, limit: opts.limit - exclude.length });
  const prefixed =
    (words.length === 1 ? inMemory({ prefix: words[0] }, out) : null) ??
    searchAccounts(app.db, { ...base, match: `${column}${ftsString(term)}*`, exclude: out, limit: opts.limit - out.length });
  out.push(...prefixed);
  // Too few: names one or two typos away, for a plain name typed by a person. Never for a
  // handle or a look-up (`resolve`): clients such as toot act on the first account found, which
  // must be the one named. First page only: the fuzzy round has no stable order to page through
  // together with the prefix round.
  const fuzzy = at === -1 && !opts.resolve && opts.offset === 0 && !/\s/.test(term);
  const near = fuzzy && out.length < opts.limit ? nearAccountWords(app, term) : [];
  if (near.length > 0) {
    const match = `${column}(${near.map(ftsString).join(" OR ")})`;
    out.push(...(inMemory({ words: near }, out) ?? searchAccounts(app.db, { ...base, match, exclude: out, limit: opts.limit - out.length })));
  }
  return out;
}

function findHashtags(app: App, q: string, opts: { exactOnly: boolean; limit: number; offset: number }): TagRow[] {
  const name = normalizeTag(q.trim().replace(/^[#＃]/, "").slice(0, MAX_NAME_QUERY));
  if (name === "" || opts.limit === 0) return [];
  const found = searchTags(app.db, name, opts);
  if (found.length >= opts.limit || opts.offset > 0 || opts.exactOnly) return found;
  const seen = new Set(found.map((t) => t.name));
  const near = findTagsByNames(app.db, nearTagNames(app, name).filter((n) => !seen.has(n)));
  return [...found, ...near].slice(0, opts.limit);
}

function statusMatches(app: App, viewer: Account, s: Status, input: SearchInput): boolean {
  if (!canViewStatus(app, viewer.id, s)) return false;
  if (input.accountId && s.accountId !== input.accountId) return false;
  if (input.minId && compareIds(s.id, input.minId) <= 0) return false;
  if (input.maxId && compareIds(s.id, input.maxId) >= 0) return false;
  return true;
}

/** GET /api/v2/search. */
export async function search(app: App, viewer: Account, input: SearchInput): Promise<SearchResult> {
  const result: SearchResult = { accounts: [], statuses: [], hashtags: [] };
  const q = input.q.trim();
  const wants = (t: SearchType) => input.type === undefined || input.type === t;
  // Offsets page within one category only (Mastodon ignores them without `type`).
  const offset = input.type === undefined ? 0 : input.offset;

  if (isUrl(q)) {
    // A URL names one object: that object is the whole answer.
    if (offset > 0) return result;
    const found = await resolveUrl(app, q, input.resolve);
    if (found && "account" in found) {
      if (wants("accounts") && isShownInSearch(app.db, found.account.id, viewer.id, input.following)) result.accounts.push(found.account.id);
    } else if (found && wants("statuses") && statusMatches(app, viewer, found.status, input)) {
      result.statuses.push(found.status);
    }
    return result;
  }

  const text = queryText(q);
  const limits = { limit: input.limit, offset };
  // Statuses first: a malformed date in the query is refused (422) before any remote look-up.
  // They get the whole query, operators included (Mastodon's StatusesSearchService).
  if (wants("statuses")) {
    result.statuses = searchStatuses(app, viewer, q, { ...limits, accountId: input.accountId, minId: input.minId, maxId: input.maxId });
  }
  if (wants("accounts")) result.accounts = await findAccounts(app, viewer, text, { ...limits, resolve: input.resolve, following: input.following });
  if (wants("hashtags")) result.hashtags = findHashtags(app, text, { ...limits, exactOnly: input.excludeUnreviewed });
  return result;
}
