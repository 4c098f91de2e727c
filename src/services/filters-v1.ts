import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { unprocessable } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import {
  countKeywordsOfFilter,
  deleteFilterKeyword,
  type Filter,
  type FilterAction,
  type FilterContext,
  type FilterKeyword,
  insertFilter,
  insertFilterKeyword,
  listFiltersOf,
  listKeywordsOfFilters,
  updateFilter,
  updateFilterKeyword,
} from "../storage/filters.ts";
import { requireOwnKeyword } from "./filter-keywords.ts";
import {
  expiresAtFrom,
  filterErrors,
  keywordErrors,
  limitErrors,
  MAX_TITLE,
  newKeyword,
  normalizeContext,
  onFiltersChanged,
  throwIfInvalid,
} from "./filters.ts";

// The deprecated v1 filters as a view over v2, as Mastodon 4 serves them: a v1 filter is one
// keyword of a filter; its context, expiry and `irreversible` (action hide) are the filter's.

export interface V1Filter {
  keyword: FilterKeyword;
  filter: Filter;
}

export interface V1FilterInput {
  phrase?: string;
  context?: string[];
  irreversible?: boolean;
  wholeWord?: boolean;
  /** As in FilterInput: absent, null (never) or seconds from now. */
  expiresIn?: number | null;
}

const MULTIPLE_KEYWORDS =
  "These parameters cannot be changed from this application because they apply to more than one filter keyword. Use a more recent application or the web interface.";

/** v1's `irreversible`: hide, else warn (Mastodon's CustomFilter#irreversible=). */
const actionOf = (irreversible: boolean): FilterAction => (irreversible ? "hide" : "warn");

/** The phrase's errors, in v1's own words. */
function phraseErrors(phrase: string): string[] {
  return keywordErrors(phrase, "Phrase");
}

/** GET /api/v1/filters: every keyword of every filter (a filter without keywords shows nothing). */
export function v1FiltersOf(app: App, accountId: Id): V1Filter[] {
  const filters = listFiltersOf(app.db, accountId);
  const keywords = listKeywordsOfFilters(app.db, filters.map((f) => f.id));
  return filters
    .flatMap((filter) => (keywords.get(filter.id) ?? []).map((keyword) => ({ keyword, filter })))
    .sort((a, b) => (BigInt(a.keyword.id) < BigInt(b.keyword.id) ? -1 : 1));
}

/** GET /api/v1/filters/:id (a keyword id). */
export function getV1Filter(app: App, accountId: Id, rawId: unknown): V1Filter {
  return requireOwnKeyword(app, accountId, rawId);
}

/** POST /api/v1/filters: a filter titled with the phrase, holding that one keyword. */
export function createV1Filter(app: App, accountId: Id, input: V1FilterInput): V1Filter {
  const now = app.now();
  const phrase = input.phrase ?? "";
  const filter: Filter = {
    id: app.ids.next(),
    accountId,
    // The title is only a label; a phrase longer than a title may be is cut for it.
    title: [...phrase].slice(0, MAX_TITLE).join(""),
    context: normalizeContext(input.context ?? []) as FilterContext[],
    action: actionOf(input.irreversible ?? false),
    expiresAt: input.expiresIn === undefined ? null : expiresAtFrom(app, input.expiresIn),
    createdAt: now,
    updatedAt: now,
  };
  const keyword = newKeyword(app, filter.id, phrase, input.wholeWord, now);
  return tx(app.db, () => {
    const errors = phraseErrors(phrase);
    errors.push(...filterErrors({ context: filter.context, action: filter.action }));
    errors.push(...limitErrors(app, accountId, { filters: 1, keywords: 1 }));
    throwIfInvalid(errors);
    insertFilter(app.db, filter);
    insertFilterKeyword(app.db, keyword);
    onFiltersChanged(app, accountId);
    return { keyword, filter };
  });
}

/**
 * PUT /api/v1/filters/:id: the keyword changes freely; the filter's own values (context,
 * irreversible, expires_in) only when this is its single keyword (Mastodon's 422 otherwise).
 * A single-keyword filter keeps its title in step with the phrase.
 */
export function changeV1Filter(app: App, accountId: Id, rawId: unknown, input: V1FilterInput): V1Filter {
  return tx(app.db, () => {
    const { keyword, filter } = requireOwnKeyword(app, accountId, rawId);
    const now = app.now();
    const nextKeyword: FilterKeyword = {
      ...keyword,
      keyword: input.phrase ?? keyword.keyword,
      wholeWord: input.wholeWord ?? keyword.wholeWord,
      updatedAt: now,
    };
    const context = input.context === undefined ? filter.context : (normalizeContext(input.context) as FilterContext[]);
    const action = input.irreversible === undefined ? filter.action : actionOf(input.irreversible);
    const filterChanged =
      input.expiresIn !== undefined || action !== filter.action || context.length !== filter.context.length || context.some((c, i) => c !== filter.context[i]);
    const single = countKeywordsOfFilter(app.db, filter.id) === 1;
    if (filterChanged && !single) throw unprocessable(MULTIPLE_KEYWORDS);
    const nextFilter: Filter = {
      ...filter,
      title: single && input.phrase !== undefined ? [...input.phrase].slice(0, MAX_TITLE).join("") : filter.title,
      context,
      action,
      expiresAt: input.expiresIn === undefined ? filter.expiresAt : expiresAtFrom(app, input.expiresIn),
      updatedAt: now,
    };
    throwIfInvalid([...phraseErrors(nextKeyword.keyword), ...filterErrors({ context: nextFilter.context, action: nextFilter.action })]);
    updateFilterKeyword(app.db, nextKeyword);
    if (filterChanged || nextFilter.title !== filter.title) updateFilter(app.db, nextFilter);
    onFiltersChanged(app, accountId);
    return { keyword: nextKeyword, filter: nextFilter };
  });
}

/** DELETE /api/v1/filters/:id: the keyword only; its filter stays (Mastodon 4). */
export function removeV1Filter(app: App, accountId: Id, rawId: unknown): void {
  const { keyword } = requireOwnKeyword(app, accountId, rawId);
  deleteFilterKeyword(app.db, keyword.id);
  onFiltersChanged(app, accountId);
}
