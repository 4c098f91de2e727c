// https://docs.joinmastodon.org/methods/trends/ — GET /api/v1/trends/tags|statuses|links and the
// deprecated GET /api/v1/trends (tags). Public; a token only filters posts for its user. Offset
// pages with a Link header (prev: offset - limit; next: when the page is full).
import type { H3Event } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { toApiStatuses } from "../../../../serializers/status.ts";
import { toApiTags } from "../../../../serializers/tag.ts";
import { toApiTrendLinks } from "../../../../serializers/trend-link.ts";
import { trendingLinks, trendingStatuses, trendingTags } from "../../../../services/trends.ts";
import { optionalUser } from "../../../auth.ts";
import { cachePublicIfAnonymous } from "../../../headers.ts";
import { pageParams } from "../../../pagination.ts";
import { type Params, readAppParams } from "../../../params.ts";
import { searchOffset } from "../v2/search.ts";

export function trendsPage(p: Params, def: number): { limit: number; offset: number } {
  return { limit: pageParams(p, def, def * 2).limit, offset: searchOffset(p) };
}

/** Mastodon's offset Link header of trend lists. */
export function setOffsetLinks(app: App, event: H3Event, page: { limit: number; offset: number }, count: number): void {
  const url = (offset: number) => `<${app.baseUrl}${event.url.pathname}?limit=${page.limit}&offset=${offset}>`;
  const links: string[] = [];
  if (count === page.limit) links.push(`${url(page.offset + page.limit)}; rel="next"`);
  if (page.offset > 0) links.push(`${url(Math.max(0, page.offset - page.limit))}; rel="prev"`);
  if (links.length) event.res.headers.set("link", links.join(", "));
}

export function registerTrendsRoutes(app: App, r: Router): void {
  const tags = async (event: H3Event) => {
    const p = await readAppParams(app, event);
    const viewer = optionalUser(app, event);
    const page = trendsPage(p, 10);
    const found = trendingTags(app, page).map((t) => t.item);
    setOffsetLinks(app, event, page, found.length);
    cachePublicIfAnonymous(event, viewer !== null);
    return toApiTags(app, found, viewer?.account.id ?? null);
  };
  r.get("/api/v1/trends/tags", tags);
  r.get("/api/v1/trends", async (event) => {
    // Deprecated since 3.5 (2022-03-30).
    event.res.headers.set("deprecation", "@1648598400");
    return tags(event);
  });

  r.get("/api/v1/trends/statuses", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = optionalUser(app, event);
    const page = trendsPage(p, 20);
    const found = trendingStatuses(app, viewer?.account.id ?? null, page).map((t) => t.item);
    setOffsetLinks(app, event, page, found.length);
    cachePublicIfAnonymous(event, viewer !== null);
    return toApiStatuses(app, found, viewer?.account.id ?? null);
  });

  r.get("/api/v1/trends/links", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = optionalUser(app, event);
    const page = trendsPage(p, 10);
    const found = trendingLinks(app, page).map((t) => t.item);
    setOffsetLinks(app, event, page, found.length);
    cachePublicIfAnonymous(event, viewer !== null);
    return toApiTrendLinks(app, found);
  });
}
