import type { App } from "../app.ts";
import { readTx } from "../db/db.ts";
import { mayFillCaches } from "../db/row-changes.ts";
import { htmlToPlainText } from "../lib/html-text.ts";
import type { Id } from "../lib/ids.ts";
import { foldCase, KeywordMatcher, type MatcherKeyword } from "../lib/keyword-matcher.ts";
import { type Filter, type FilterContext, listActiveFiltersOf, listKeywordsOfFilters, listStatusesOfFilters } from "./filters.ts";
import type { MediaAttachment } from "./media-attachments.ts";
import type { Status } from "./statuses.ts";

// A user's filters as they apply to statuses (Mastodon's CustomFilter.cached_filters_for and
// apply_cached_filters): compiled once per user and kept in app.cache until the user changes a
// filter (services/filters.ts forgets them) or the first of them expires.

/** One filter a status matches (Mastodon's FilterResultPresenter). */
export interface FilterMatch {
  filter: Filter;
  /** The text that matched (the first match of the filter's keywords), or null. */
  keywordMatches: string[] | null;
  /** The ids among the status and the post it boosts that the filter names, or null. */
  statusMatches: Id[] | null;
}

/** A user's active filters, compiled. */
export interface FilterRules {
  /** Active filters, by id; matcher and byStatus refer to them by index. */
  filters: Filter[];
  matcher: KeywordMatcher | null;
  /** Status id → the indexes of the filters that name it. */
  byStatus: Map<Id, number[]>;
  /** The contexts some `hide` filter covers (drops are skipped elsewhere). */
  hides: Set<FilterContext>;
  /** When the first of the filters expires (the rules are then compiled again). */
  validUntil: number;
  /**
   * Matches already computed, by status object (cached rows are shared and replaced when they
   * change), with the text they were computed from: timelines read the same posts again and
   * again. Dropped with the rules.
   */
  results: WeakMap<Status, { text: SearchText; matches: readonly FilterMatch[] }>;
}

const CACHE_KEY = "filter-rules";
const MAX_CACHED_USERS = 10_000;

/**
 * The most characters of a status's text that are matched. A local post is a few hundred
 * characters; a remote one may be up to a request body, and every viewer with filters matches
 * it on every read.
 */
export const MAX_MATCHED_CHARS = 100_000;

function cacheOf(app: App): Map<Id, FilterRules> {
  let c = app.cache.get(CACHE_KEY) as Map<Id, FilterRules> | undefined;
  if (!c) app.cache.set(CACHE_KEY, (c = new Map()));
  return c;
}

function compile(app: App, accountId: Id, now: number): FilterRules {
  return readTx(app.db, () => {
    const filters = listActiveFiltersOf(app.db, accountId, now);
    const ids = filters.map((f) => f.id);
    const keywords = listKeywordsOfFilters(app.db, ids);
    const statuses = listStatusesOfFilters(app.db, ids);
    const matcherKeywords: MatcherKeyword[] = [];
    const byStatus = new Map<Id, number[]>();
    const hides = new Set<FilterContext>();
    let validUntil = Infinity;
    filters.forEach((f, i) => {
      for (const k of keywords.get(f.id) ?? []) matcherKeywords.push({ filter: i, keyword: k.keyword, wholeWord: k.wholeWord });
      for (const s of statuses.get(f.id) ?? []) {
        const list = byStatus.get(s.statusId);
        if (list) list.push(i);
        else byStatus.set(s.statusId, [i]);
      }
      if (f.action === "hide") for (const c of f.context) hides.add(c);
      if (f.expiresAt !== null) validUntil = Math.min(validUntil, f.expiresAt);
    });
    const matcher = matcherKeywords.length ? KeywordMatcher.compile(matcherKeywords, filters.length) : null;
    return { filters, matcher, byStatus, hides, validUntil, results: new WeakMap() };
  });
}

/** The viewer's active filters, compiled (cached; an expired filter is never among them). */
export function filterRulesOf(app: App, accountId: Id): FilterRules {
  const cache = cacheOf(app);
  const now = app.now();
  const hit = cache.get(accountId);
  if (hit && now < hit.validUntil) return hit;
  const rules = compile(app, accountId, now);
  if (mayFillCaches(app.db)) {
    if (!hit && cache.size >= MAX_CACHED_USERS) cache.delete(cache.keys().next().value!);
    cache.set(accountId, rules);
  }
  return rules;
}

/** Drops the account's compiled filters: the next read compiles them again. */
export function forgetFilterRules(app: App, accountId: Id): void {
  cacheOf(app).delete(accountId);
}

// The text a status is matched against, kept beside the status object (cached rows are shared
// and replaced when they change) with the poll options and media descriptions it was built from.
interface SearchText {
  key: string;
  text: string;
  folded: string;
}
const searchTexts = new WeakMap<Status, SearchText>();

/**
 * Mastodon's Status#searchable_text: the content warning, the plain text (the source of a local
 * post, the HTML's text for a remote one), the poll options and the media descriptions, joined
 * by blank lines; bounded by MAX_MATCHED_CHARS.
 */
function searchTextOf(s: Status, media: MediaAttachment[] | undefined, pollOptions: string[] | null): SearchText {
  const descriptions = media?.length ? media.map((m) => m.description ?? "").join("\n\n") : "";
  const options = pollOptions?.join("\n\n") ?? null;
  const key = options === null && descriptions === "" ? "" : `${options ?? "\u0001"}\u0000${descriptions}`;
  const cached = searchTexts.get(s);
  if (cached && cached.key === key) return cached;
  const parts = [s.spoilerText, s.local ? s.text : htmlToPlainText(s.content)];
  if (options !== null) parts.push(options);
  parts.push(descriptions);
  const text = parts.join("\n\n").slice(0, MAX_MATCHED_CHARS);
  const out = { key, text, folded: foldCase(text) };
  searchTexts.set(s, out);
  return out;
}

/** The text a status is matched against (for tests and diagnostics). */
export function statusSearchText(s: Status, media: MediaAttachment[] | undefined, pollOptions: string[] | null = null): string {
  return searchTextOf(s, media, pollOptions).text;
}

/**
 * The filters `status` matches: by keyword in the text of `proper` (the post itself, or the one
 * a boost carries), by id for the status and the post it boosts. Filter order.
 */
export function matchFilters(
  rules: FilterRules,
  status: Status,
  proper: Status,
  media: MediaAttachment[] | undefined,
  pollOptions: string[] | null = null,
): readonly FilterMatch[] {
  if (rules.filters.length === 0) return NO_MATCHES;
  const t = rules.matcher ? searchTextOf(proper, media, pollOptions) : EMPTY_TEXT;
  const known = rules.results.get(status);
  if (known && known.text === t) return known.matches;
  const matches = computeMatches(rules, status, t);
  rules.results.set(status, { text: t, matches });
  return matches;
}

const EMPTY_TEXT: SearchText = { key: "", text: "", folded: "" };
const NO_MATCHES: readonly FilterMatch[] = Object.freeze([]);

function computeMatches(rules: FilterRules, status: Status, t: SearchText): readonly FilterMatch[] {
  let keywordHits: Map<number, string> | undefined;
  if (rules.matcher) {
    for (const h of rules.matcher.firstMatches(t.text, t.folded)) (keywordHits ??= new Map()).set(h.filter, h.text);
  }
  let statusHits: Map<number, Id[]> | undefined;
  if (rules.byStatus.size) {
    for (const id of status.reblogOfId ? [status.id, status.reblogOfId] : [status.id]) {
      for (const f of rules.byStatus.get(id) ?? []) {
        statusHits ??= new Map();
        const list = statusHits.get(f);
        if (list) list.push(id);
        else statusHits.set(f, [id]);
      }
    }
  }
  if (!keywordHits && !statusHits) return NO_MATCHES;
  const out: FilterMatch[] = [];
  rules.filters.forEach((filter, i) => {
    const kw = keywordHits?.get(i);
    const ids = statusHits?.get(i);
    if (kw === undefined && !ids) return;
    out.push({ filter, keywordMatches: kw === undefined ? null : [kw], statusMatches: ids ?? null });
  });
  return out;
}

/**
 * Whether the viewer's `hide` filters drop a status in `context`, given the filters it matches
 * and its `proper` post: never the viewer's own posts, which Mastodon's web client never hides.
 */
export function hiddenFrom(viewerId: Id, matches: readonly FilterMatch[] | undefined, proper: Status, context: FilterContext): boolean {
  if (!matches || proper.accountId === viewerId) return false;
  return matches.some((m) => m.filter.action === "hide" && m.filter.context.includes(context));
}
