import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound, unprocessable } from "../errors.ts";
import { type Id, parseId } from "../lib/ids.ts";
import {
  countFilterStatusesOfAccount,
  deleteFilterKeyword,
  deleteFilterStatus,
  type FilterKeyword,
  type FilterStatus,
  filterStatusExists,
  findFilterStatusOf,
  findKeywordOf,
  insertFilterKeyword,
  insertFilterStatus,
  listKeywordsOfFilters,
  listStatusesOfFilters,
  updateFilterKeyword,
} from "../storage/filters.ts";
import { findStatusById } from "../storage/statuses.ts";
import { keywordErrors, limitErrors, MAX_FILTER_STATUSES, newKeyword, onFiltersChanged, requireOwnFilter, throwIfInvalid } from "./filters.ts";
import { canViewStatus } from "./visibility.ts";

// A filter's keywords and statuses on their own (Mastodon's Api::V1::Filters::KeywordsController
// and StatusesController, routed under /api/v2/filters).

/** A keyword of one of the account's filters; 404 "Record not found" otherwise. */
export function requireOwnKeyword(app: App, accountId: Id, rawId: unknown) {
  const id = parseId(rawId);
  const found = id ? findKeywordOf(app.db, accountId, id) : undefined;
  if (!found) throw notFound();
  return found;
}

/** GET /api/v2/filters/:filter_id/keywords. */
export function keywordsOfFilter(app: App, accountId: Id, rawFilterId: unknown): FilterKeyword[] {
  const filter = requireOwnFilter(app, accountId, rawFilterId);
  return listKeywordsOfFilters(app.db, [filter.id]).get(filter.id) ?? [];
}

/** POST /api/v2/filters/:filter_id/keywords. */
export function addKeyword(app: App, accountId: Id, rawFilterId: unknown, input: { keyword?: string; wholeWord?: boolean }): FilterKeyword {
  return tx(app.db, () => {
    const filter = requireOwnFilter(app, accountId, rawFilterId);
    const keyword = newKeyword(app, filter.id, input.keyword ?? "", input.wholeWord, app.now());
    throwIfInvalid([...keywordErrors(keyword.keyword), ...limitErrors(app, accountId, { keywords: 1 })]);
    insertFilterKeyword(app.db, keyword);
    onFiltersChanged(app, accountId);
    return keyword;
  });
}

/** PUT /api/v2/filters/keywords/:id: only the given attributes change. */
export function changeKeyword(app: App, accountId: Id, rawId: unknown, input: { keyword?: string; wholeWord?: boolean }): FilterKeyword {
  const { keyword } = requireOwnKeyword(app, accountId, rawId);
  const next: FilterKeyword = {
    ...keyword,
    keyword: input.keyword ?? keyword.keyword,
    wholeWord: input.wholeWord ?? keyword.wholeWord,
    updatedAt: app.now(),
  };
  throwIfInvalid(keywordErrors(next.keyword));
  updateFilterKeyword(app.db, next);
  onFiltersChanged(app, accountId);
  return next;
}

/** DELETE /api/v2/filters/keywords/:id. */
export function removeKeyword(app: App, accountId: Id, rawId: unknown): void {
  const { keyword } = requireOwnKeyword(app, accountId, rawId);
  deleteFilterKeyword(app.db, keyword.id);
  onFiltersChanged(app, accountId);
}

/** GET /api/v2/filters/:filter_id/statuses. */
export function statusesOfFilter(app: App, accountId: Id, rawFilterId: unknown): FilterStatus[] {
  const filter = requireOwnFilter(app, accountId, rawFilterId);
  return listStatusesOfFilters(app.db, [filter.id]).get(filter.id) ?? [];
}

/**
 * POST /api/v2/filters/:filter_id/statuses: a status the account may see (Mastodon's
 * CustomFilterStatus validations), once per filter.
 */
export function addFilterStatus(app: App, accountId: Id, rawFilterId: unknown, rawStatusId: unknown): FilterStatus {
  return tx(app.db, () => {
    const filter = requireOwnFilter(app, accountId, rawFilterId);
    const statusId = parseId(rawStatusId);
    const status = statusId ? findStatusById(app.db, statusId) : undefined;
    if (!status || status.deletedAt !== null) throw unprocessable("Validation failed: Status must exist");
    if (!canViewStatus(app, accountId, status)) throw unprocessable("Validation failed: Status is invalid");
    if (filterStatusExists(app.db, filter.id, status.id)) throw unprocessable("Validation failed: Status has already been taken");
    if (countFilterStatusesOfAccount(app.db, accountId) >= MAX_FILTER_STATUSES) {
      throw unprocessable(`Validation failed: You have reached the maximum number of filtered posts (${MAX_FILTER_STATUSES})`);
    }
    const entry: FilterStatus = { id: app.ids.next(), filterId: filter.id, statusId: status.id, createdAt: app.now() };
    insertFilterStatus(app.db, entry);
    onFiltersChanged(app, accountId);
    return entry;
  });
}

/** A status entry of one of the account's filters; 404 "Record not found" otherwise. */
export function requireOwnFilterStatus(app: App, accountId: Id, rawId: unknown): FilterStatus {
  const id = parseId(rawId);
  const entry = id ? findFilterStatusOf(app.db, accountId, id) : undefined;
  if (!entry) throw notFound();
  return entry;
}

/** DELETE /api/v2/filters/statuses/:id. */
export function removeFilterStatus(app: App, accountId: Id, rawId: unknown): void {
  const entry = requireOwnFilterStatus(app, accountId, rawId);
  deleteFilterStatus(app.db, entry.id);
  onFiltersChanged(app, accountId);
}
