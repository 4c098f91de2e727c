// Search (GET /api/v2/search, GET /api/v1/accounts/search) without a full-text engine, as
// Mastodon answers without Elasticsearch: accounts by handle and prefix, hashtags by prefix,
// statuses only by URL. Remote handles and URLs are resolved when asked to (`resolve`).
import type { App } from "../app.ts";
import { compareIds, type Id } from "../lib/ids.ts";
import { normalizeTag } from "../lib/tags.ts";
import { findAccountByHandle, findAccountByUri, type Account } from "../storage/accounts.ts";
import { isShownInSearch, searchAccounts } from "../storage/account-search.ts";
import { findAccountByUrl } from "../storage/remote-accounts.ts";
import { findStatusByLink } from "../storage/status-urls.ts";
import type { Status } from "../storage/statuses.ts";
import { searchTags, type TagRow } from "../storage/tag-search.ts";
import { parseAcct } from "./account-lookup.ts";
import { resolveAcct, resolveUrlTarget, type UrlTarget } from "./remote-lookup.ts";
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
  accounts: Account[];
  statuses: Status[];
  hashtags: TagRow[];
}

// Mastodon's search operators (4.2+): `from:`, `has:`, `is:`, `language:`, `before:`, `after:`,
// `during:`, `in:`, optionally negated. They only filter statuses, which need full-text search.
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
): Promise<Account[]> {
  const text = q.trim().replace(/^@/, "");
  if (text === "" || text.startsWith("#") || opts.limit === 0) return [];
  const out: Account[] = [];
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
      if (exact && isShownInSearch(app.db, exact.id, viewer.id, opts.following)) out.push(exact);
    }
  }
  const term = (at === -1 ? text : text.slice(0, at)).toLowerCase();
  const more = searchAccounts(app.db, { term, domainPrefix, viewerId: viewer.id, following: opts.following, limit: opts.limit, offset: opts.offset });
  for (const a of more) if (out.length < opts.limit && !out.some((x) => x.id === a.id)) out.push(a);
  return out;
}

function findHashtags(app: App, q: string, opts: { exactOnly: boolean; limit: number; offset: number }): TagRow[] {
  const name = normalizeTag(q.trim().replace(/^[#＃]/, ""));
  if (name === "" || opts.limit === 0) return [];
  return searchTags(app.db, name, opts);
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
      if (wants("accounts") && isShownInSearch(app.db, found.account.id, viewer.id, input.following)) result.accounts.push(found.account);
    } else if (found && wants("statuses") && statusMatches(app, viewer, found.status, input)) {
      result.statuses.push(found.status);
    }
    return result;
  }

  const text = queryText(q);
  const limits = { limit: input.limit, offset };
  if (wants("accounts")) result.accounts = await findAccounts(app, viewer, text, { ...limits, resolve: input.resolve, following: input.following });
  if (wants("hashtags")) result.hashtags = findHashtags(app, text, { ...limits, exactOnly: input.excludeUnreviewed });
  // Full-text status search needs a search engine roost does not have: like Mastodon without
  // Elasticsearch, `statuses` stays empty for anything but a URL.
  return result;
}
