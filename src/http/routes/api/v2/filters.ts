// https://docs.joinmastodon.org/methods/filters/#v2 (endpoints-timelines.md §8): filters with
// their keywords and statuses sub-resources.
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { requireUser } from "../../../auth.ts";
import { readAppParams, type Params } from "../../../params.ts";
import { changeFilter, createFilter, type FilterInput, filtersOf, getFilter, removeFilter } from "../../../../services/filters.ts";
import {
  addFilterStatus,
  addKeyword,
  changeKeyword,
  keywordsOfFilter,
  removeFilterStatus,
  removeKeyword,
  requireOwnFilterStatus,
  requireOwnKeyword,
  statusesOfFilter,
} from "../../../../services/filter-keywords.ts";
import { toApiFilter, toApiFilterKeyword, toApiFilterStatus } from "../../../../serializers/filter.ts";

const READ = ["read:filters"];
const WRITE = ["write:filters"];

/**
 * `expires_in`: absent leaves it as it is; blank or null means never (Mastodon's
 * `interval.present?`); anything else is Ruby's to_i of seconds.
 */
export function expiresInParam(p: Params): number | null | undefined {
  if (!p.has("expires_in")) return undefined;
  return p.int("expires_in") ?? null;
}

/** A blank value counts as not sent. */
function nonBlank(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === "" ? undefined : v;
}

function filterInput(p: Params): FilterInput {
  return {
    title: p.str("title"),
    context: p.strArray("context"),
    filterAction: nonBlank(p.str("filter_action")),
    expiresIn: expiresInParam(p),
    keywords: p.list("keywords_attributes")?.map((k) => ({
      id: k.str("id"),
      keyword: k.str("keyword"),
      wholeWord: k.bool("whole_word"),
      destroy: k.bool("_destroy") === true,
    })),
  };
}

const keywordInput = (p: Params) => ({ keyword: p.str("keyword"), wholeWord: p.bool("whole_word") });

export function registerFiltersV2Routes(app: App, r: Router): void {
  // Not paginated: a user has at most MAX_FILTERS.
  r.get("/api/v2/filters", (event) => {
    const viewer = requireUser(app, event, ...READ);
    return filtersOf(app, viewer.account.id).map((f) => toApiFilter(f.filter, f));
  });

  r.post("/api/v2/filters", async (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    const p = await readAppParams(app, event);
    const f = createFilter(app, viewer.account.id, filterInput(p));
    return toApiFilter(f.filter, f);
  });

  r.get("/api/v2/filters/:id", (event) => {
    const viewer = requireUser(app, event, ...READ);
    const f = getFilter(app, viewer.account.id, getRouterParam(event, "id"));
    return toApiFilter(f.filter, f);
  });

  r.put("/api/v2/filters/:id", async (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    const p = await readAppParams(app, event);
    const f = changeFilter(app, viewer.account.id, getRouterParam(event, "id"), filterInput(p));
    return toApiFilter(f.filter, f);
  });

  r.delete("/api/v2/filters/:id", (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    removeFilter(app, viewer.account.id, getRouterParam(event, "id"));
    return {};
  });

  r.get("/api/v2/filters/:filter_id/keywords", (event) => {
    const viewer = requireUser(app, event, ...READ);
    return keywordsOfFilter(app, viewer.account.id, getRouterParam(event, "filter_id")).map(toApiFilterKeyword);
  });

  r.post("/api/v2/filters/:filter_id/keywords", async (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    const p = await readAppParams(app, event);
    return toApiFilterKeyword(addKeyword(app, viewer.account.id, getRouterParam(event, "filter_id"), keywordInput(p)));
  });

  r.get("/api/v2/filters/keywords/:id", (event) => {
    const viewer = requireUser(app, event, ...READ);
    return toApiFilterKeyword(requireOwnKeyword(app, viewer.account.id, getRouterParam(event, "id")).keyword);
  });

  r.put("/api/v2/filters/keywords/:id", async (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    const p = await readAppParams(app, event);
    return toApiFilterKeyword(changeKeyword(app, viewer.account.id, getRouterParam(event, "id"), keywordInput(p)));
  });

  r.delete("/api/v2/filters/keywords/:id", (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    removeKeyword(app, viewer.account.id, getRouterParam(event, "id"));
    return {};
  });

  r.get("/api/v2/filters/:filter_id/statuses", (event) => {
    const viewer = requireUser(app, event, ...READ);
    return statusesOfFilter(app, viewer.account.id, getRouterParam(event, "filter_id")).map(toApiFilterStatus);
  });

  r.post("/api/v2/filters/:filter_id/statuses", async (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    const p = await readAppParams(app, event);
    return toApiFilterStatus(addFilterStatus(app, viewer.account.id, getRouterParam(event, "filter_id"), p.str("status_id")));
  });

  r.get("/api/v2/filters/statuses/:id", (event) => {
    const viewer = requireUser(app, event, ...READ);
    return toApiFilterStatus(requireOwnFilterStatus(app, viewer.account.id, getRouterParam(event, "id")));
  });

  r.delete("/api/v2/filters/statuses/:id", (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    removeFilterStatus(app, viewer.account.id, getRouterParam(event, "id"));
    return {};
  });
}
