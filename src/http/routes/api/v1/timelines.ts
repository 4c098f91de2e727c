// https://docs.joinmastodon.org/methods/timelines/
import { getRouterParam, type H3Event } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { optionalUser, requireUser } from "../../../auth.ts";
import { cachePublicIfAnonymous, jsonText } from "../../../headers.ts";
import { pageParams, setLinkHeader } from "../../../pagination.ts";
import { readAppParams, type Params } from "../../../params.ts";
import { homeTimeline, linkTimeline, listTimeline, publicTimeline, tagTimeline } from "../../../../services/timelines.ts";
import type { FilterContext } from "../../../../services/filters.ts";
import type { Status } from "../../../../services/domain-types.ts";
import { toApiStatusesJson } from "../../../../serializers/status.ts";

const READ = ["read:statuses"];

/**
 * Timelines emit `next` for any non-empty page and `prev` with min_id (conventions §7). The
 * links follow the page as read, before the viewer's `hide` filters drop from it, so paging
 * goes on past a page they empty.
 */
function respond(app: App, event: H3Event, p: Params, limit: number, statuses: Status[], viewerId: string | null, context: FilterContext, keep: string[] = []) {
  setLinkHeader(app, event, p, { cursors: statuses.map((s) => s.id), limit, nextAlways: true, keep });
  return jsonText(event, toApiStatusesJson(app, statuses, viewerId, { hideIn: context }));
}

/** The raw path segment, percent-decoded; malformed escapes are kept as typed (no 500). */
function decodeParam(v: string | undefined): string {
  try {
    return decodeURIComponent(v ?? "");
  } catch {
    return v ?? "";
  }
}

function publicFilter(p: Params) {
  return { local: p.bool("local") === true, remote: p.bool("remote") === true, onlyMedia: p.bool("only_media") === true };
}

export function registerTimelinesRoutes(app: App, r: Router): void {
  r.get("/api/v1/timelines/home", async (event) => {
    const viewer = requireUser(app, event, ...READ);
    const p = await readAppParams(app, event);
    const page = pageParams(p, 20, 40);
    return respond(app, event, p, page.limit, homeTimeline(app, viewer.account.id, page), viewer.account.id, "home");
  });

  r.get("/api/v1/timelines/public", async (event) => {
    const viewer = optionalUser(app, event, ...READ);
    const p = await readAppParams(app, event);
    const page = pageParams(p, 20, 40);
    cachePublicIfAnonymous(event, viewer !== null);
    const viewerId = viewer?.account.id ?? null;
    const list = publicTimeline(app, viewerId, publicFilter(p), page);
    return respond(app, event, p, page.limit, list, viewerId, "public", ["local", "remote", "only_media"]);
  });

  r.get("/api/v1/timelines/tag/:hashtag", async (event) => {
    const viewer = optionalUser(app, event, ...READ);
    const p = await readAppParams(app, event);
    const page = pageParams(p, 20, 40);
    cachePublicIfAnonymous(event, viewer !== null);
    const viewerId = viewer?.account.id ?? null;
    const tags = (name: string) => p.strArray(name, { allowScalar: true });
    const list = tagTimeline(
      app,
      viewerId,
      { tag: decodeParam(getRouterParam(event, "hashtag")), any: tags("any"), all: tags("all"), none: tags("none"), ...publicFilter(p) },
      page,
    );
    return respond(app, event, p, page.limit, list, viewerId, "public", ["local", "remote", "only_media", "any", "all", "none"]);
  });

  // 4.3. Public like the other public timelines (Mastodon asks a token only when its timeline
  // preview setting is off: roost's publicApi); `url` must be a link trending now, else 404.
  r.get("/api/v1/timelines/link", async (event) => {
    const viewer = optionalUser(app, event, ...READ);
    const p = await readAppParams(app, event);
    const page = pageParams(p, 20, 40);
    const url = p.str("url");
    const list = linkTimeline(app, viewer?.account.id ?? null, url, page);
    cachePublicIfAnonymous(event, viewer !== null);
    const viewerId = viewer?.account.id ?? null;
    return respond(app, event, p, page.limit, list, viewerId, "public", ["url"]);
  });

  r.get("/api/v1/timelines/list/:list_id", async (event) => {
    const viewer = requireUser(app, event, "read:lists");
    const p = await readAppParams(app, event);
    const page = pageParams(p, 20, 40);
    const list = listTimeline(app, viewer.account.id, getRouterParam(event, "list_id"), page);
    // A filter's `home` context covers lists too (entities-other.md "Filter").
    return respond(app, event, p, page.limit, list, viewer.account.id, "home");
  });
}
