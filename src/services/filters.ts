import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound, unprocessable } from "../errors.ts";
import { type Id, parseId } from "../lib/ids.ts";
import { forgetFilterRules } from "../storage/filter-rules.ts";
import {
  countFiltersOf,
  countKeywordsOfAccount,
  deleteFilter,
  deleteFilterKeyword,
  type Filter,
  type FilterAction,
  type FilterContext,
  type FilterKeyword,
  type FilterStatus,
  findFilterOf,
  insertFilter,
  insertFilterKeyword,
  listFiltersOf,
  listKeywordsOfFilters,
  listStatusesOfFilters,
  updateFilter,
  updateFilterKeyword,
} from "../storage/filters.ts";

// Keyword filters v2 (Mastodon's CustomFilter with nested keywords): create, change, delete.
// Keywords and statuses on their own are in filter-keywords.ts, the v1 view in filters-v1.ts.

export type { Filter, FilterAction, FilterContext, FilterKeyword, FilterStatus };

/** Mastodon's CustomFilter::VALID_CONTEXTS. */
export const FILTER_CONTEXTS: readonly FilterContext[] = ["home", "notifications", "public", "thread", "account"];
const ACTIONS: readonly FilterAction[] = ["warn", "hide", "blur"];

// Lengths from entities-other.md (Filter.title, FilterKeyword.keyword). Mastodon sets no count
// limits; these bound what one account can make the server store and match on every read.
export const MAX_TITLE = 256;
export const MAX_KEYWORD = 512;
export const MAX_FILTERS = 100;
export const MAX_KEYWORDS = 1000;
export const MAX_FILTER_STATUSES = 1000;
/** expires_in beyond this many seconds (about 300 years) is refused rather than stored. */
const MAX_EXPIRES_IN = 10_000_000_000;

/** A filter with its keywords and statuses, as the filter endpoints show it. */
export interface FilterWithRules {
  filter: Filter;
  keywords: FilterKeyword[];
  statuses: FilterStatus[];
}

/** A keywords_attributes[] item: a new keyword, or (with id) a change to or removal of one. */
export interface KeywordAttributes {
  id?: string;
  keyword?: string;
  wholeWord?: boolean;
  destroy?: boolean;
}

export interface FilterInput {
  title?: string;
  /** As sent (context[]); normalised here. */
  context?: string[];
  filterAction?: string;
  /** Absent: unchanged. null (sent empty or null): never expires. A number: seconds from now. */
  expiresIn?: number | null;
  keywords?: KeywordAttributes[];
}

/**
 * Called after every change to an account's filters: its compiled filters are forgotten. This
 * is where the `filters_changed` streaming event is to be published once streaming exists
 * (Mastodon's CustomFilter#invalidate_cache!).
 */
export function onFiltersChanged(app: App, accountId: Id): void {
  forgetFilterRules(app, accountId);
}

/** 404 "Record not found" unless the filter exists and is the account's. */
export function requireOwnFilter(app: App, accountId: Id, rawId: unknown): Filter {
  const id = parseId(rawId);
  const filter = id ? findFilterOf(app.db, accountId, id) : undefined;
  if (!filter) throw notFound();
  return filter;
}

/** Rails' `normalizes :context`: stripped, blanks dropped (and repeats, which mean nothing). */
export function normalizeContext(raw: string[]): string[] {
  return [...new Set(raw.map((c) => c.trim()).filter((c) => c !== ""))];
}

/**
 * The model errors of a filter's own attributes, Rails' full messages in Mastodon's order. No
 * title: not checked (the v1 view checks the phrase it comes from).
 */
export function filterErrors(f: { title?: string; context: string[]; action: string }): string[] {
  const errors: string[] = [];
  if (!ACTIONS.includes(f.action as FilterAction)) errors.push("Action is not included in the list");
  if (f.title !== undefined && f.title.trim() === "") errors.push("Title can't be blank");
  else if (f.title !== undefined && [...f.title].length > MAX_TITLE) errors.push(`Title is too long (maximum is ${MAX_TITLE} characters)`);
  if (f.context.length === 0) errors.push("Context can't be blank");
  if (f.context.length === 0 || f.context.some((c) => !FILTER_CONTEXTS.includes(c as FilterContext))) {
    errors.push("Context None or invalid context supplied");
  }
  return errors;
}

/** A keyword's errors; `attr` names it in the message ("Keyword", or "Keywords keyword" nested). */
export function keywordErrors(keyword: string, attr = "Keyword"): string[] {
  if (keyword.trim() === "") return [`${attr} can't be blank`];
  if ([...keyword].length > MAX_KEYWORD) return [`${attr} is too long (maximum is ${MAX_KEYWORD} characters)`];
  return [];
}

export function throwIfInvalid(errors: string[]): void {
  if (errors.length) throw unprocessable(`Validation failed: ${errors.join(", ")}`);
}

/** expires_in seconds → expires_at (Mastodon's Expireable#expires_in=); null: never. */
export function expiresAtFrom(app: App, expiresIn: number | null): number | null {
  if (expiresIn === null) return null;
  if (Math.abs(expiresIn) > MAX_EXPIRES_IN) throw unprocessable("Validation failed: Expires in is invalid");
  return app.now() + expiresIn * 1000;
}

/** The account-wide limits, as base errors (Rails prints them without an attribute). */
export function limitErrors(app: App, accountId: Id, add: { filters?: number; keywords?: number }): string[] {
  const errors: string[] = [];
  if (add.filters && countFiltersOf(app.db, accountId) + add.filters > MAX_FILTERS) {
    errors.push(`You have reached the maximum number of filters (${MAX_FILTERS})`);
  }
  if (add.keywords && countKeywordsOfAccount(app.db, accountId) + add.keywords > MAX_KEYWORDS) {
    errors.push(`You have reached the maximum number of filter keywords (${MAX_KEYWORDS})`);
  }
  return errors;
}

/** Rails' reject_if: :all_blank: an item whose every attribute but _destroy is blank is skipped. */
function allBlank(k: KeywordAttributes): boolean {
  return (k.id ?? "").trim() === "" && (k.keyword ?? "").trim() === "" && k.wholeWord === undefined;
}

export function newKeyword(app: App, filterId: Id, keyword: string, wholeWord: boolean | undefined, now: number): FilterKeyword {
  // Mastodon's custom_filter_keywords.whole_word defaults to true when the client sends none.
  return { id: app.ids.next(), filterId, keyword, wholeWord: wholeWord ?? true, createdAt: now, updatedAt: now };
}

/** POST /api/v2/filters. */
export function createFilter(app: App, accountId: Id, input: FilterInput): FilterWithRules {
  const now = app.now();
  const filter: Filter = {
    id: app.ids.next(),
    accountId,
    title: input.title ?? "",
    context: normalizeContext(input.context ?? []) as FilterContext[],
    action: (input.filterAction ?? "warn") as FilterAction,
    expiresAt: input.expiresIn === undefined ? null : expiresAtFrom(app, input.expiresIn),
    createdAt: now,
    updatedAt: now,
  };
  const items = (input.keywords ?? []).filter((k) => !allBlank(k) && !k.destroy);
  // Mastodon: an id names a keyword of the filter, which a new filter cannot have.
  if (items.some((k) => k.id !== undefined && k.id.trim() !== "")) throw notFound();
  const keywords = items.map((k) => newKeyword(app, filter.id, k.keyword ?? "", k.wholeWord, now));
  return tx(app.db, () => {
    const errors = [
      ...keywords.flatMap((k) => keywordErrors(k.keyword, "Keywords keyword")),
      ...filterErrors(filter),
      ...limitErrors(app, accountId, { filters: 1, keywords: keywords.length }),
    ];
    throwIfInvalid(errors);
    insertFilter(app.db, filter);
    for (const k of keywords) insertFilterKeyword(app.db, k);
    onFiltersChanged(app, accountId);
    return { filter, keywords, statuses: [] };
  });
}

/** PUT /api/v2/filters/:id: only the given attributes change; keywords by keywords_attributes[]. */
export function changeFilter(app: App, accountId: Id, rawId: unknown, input: FilterInput): FilterWithRules {
  return tx(app.db, () => {
    const current = requireOwnFilter(app, accountId, rawId);
    const now = app.now();
    const filter: Filter = {
      ...current,
      title: input.title ?? current.title,
      context: input.context === undefined ? current.context : (normalizeContext(input.context) as FilterContext[]),
      action: (input.filterAction ?? current.action) as FilterAction,
      expiresAt: input.expiresIn === undefined ? current.expiresAt : expiresAtFrom(app, input.expiresIn),
      updatedAt: now,
    };
    const existing = listKeywordsOfFilters(app.db, [filter.id]).get(filter.id) ?? [];
    const byId = new Map(existing.map((k) => [k.id, k]));
    const changed: FilterKeyword[] = [];
    const removed: Id[] = [];
    const added: FilterKeyword[] = [];
    for (const item of input.keywords ?? []) {
      if (allBlank(item)) continue;
      const id = item.id !== undefined && item.id.trim() !== "" ? parseId(item.id) : undefined;
      if (item.id !== undefined && item.id.trim() !== "") {
        const k = id ? byId.get(id) : undefined;
        if (!k) throw notFound();
        if (item.destroy) removed.push(k.id);
        else changed.push({ ...k, keyword: item.keyword ?? k.keyword, wholeWord: item.wholeWord ?? k.wholeWord, updatedAt: now });
      } else if (!item.destroy) {
        added.push(newKeyword(app, filter.id, item.keyword ?? "", item.wholeWord, now));
      }
    }
    throwIfInvalid([
      ...[...changed, ...added].flatMap((k) => keywordErrors(k.keyword, "Keywords keyword")),
      ...filterErrors(filter),
      ...limitErrors(app, accountId, { keywords: added.length - removed.length }),
    ]);
    updateFilter(app.db, filter);
    for (const id of removed) deleteFilterKeyword(app.db, id);
    for (const k of changed) if (!removed.includes(k.id)) updateFilterKeyword(app.db, k);
    for (const k of added) insertFilterKeyword(app.db, k);
    onFiltersChanged(app, accountId);
    return filterWithRules(app, filter);
  });
}

/** DELETE /api/v2/filters/:id: with its keywords and statuses. */
export function removeFilter(app: App, accountId: Id, rawId: unknown): void {
  const filter = requireOwnFilter(app, accountId, rawId);
  deleteFilter(app.db, filter.id);
  onFiltersChanged(app, accountId);
}

export function filterWithRules(app: App, filter: Filter): FilterWithRules {
  return {
    filter,
    keywords: listKeywordsOfFilters(app.db, [filter.id]).get(filter.id) ?? [],
    statuses: listStatusesOfFilters(app.db, [filter.id]).get(filter.id) ?? [],
  };
}

/** GET /api/v2/filters: every filter of the account, expired ones included (as Mastodon lists them). */
export function filtersOf(app: App, accountId: Id): FilterWithRules[] {
  const filters = listFiltersOf(app.db, accountId);
  const ids = filters.map((f) => f.id);
  const keywords = listKeywordsOfFilters(app.db, ids);
  const statuses = listStatusesOfFilters(app.db, ids);
  return filters.map((filter) => ({ filter, keywords: keywords.get(filter.id) ?? [], statuses: statuses.get(filter.id) ?? [] }));
}

/** GET /api/v2/filters/:id. */
export function getFilter(app: App, accountId: Id, rawId: unknown): FilterWithRules {
  return filterWithRules(app, requireOwnFilter(app, accountId, rawId));
}
