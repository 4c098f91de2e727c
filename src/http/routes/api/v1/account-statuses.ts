// https://docs.joinmastodon.org/methods/accounts/#statuses and #lists
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { optionalUser, requireUser } from "../../../auth.ts";
import { cachePublicIfAnonymous, jsonText } from "../../../headers.ts";
import { pageParams, setLinkHeader } from "../../../pagination.ts";
import { readAppParams } from "../../../params.ts";
import { accountStatuses } from "../../../../services/timelines.ts";
import { listsContaining } from "../../../../services/lists.ts";
import { refreshAccountPosts } from "../../../../services/account-refresh.ts";
import { asyncRefreshHeader } from "../../../../services/thread-refresh.ts";
import { toApiStatusesJson } from "../../../../serializers/status.ts";
import { toApiList } from "../../../../serializers/list.ts";

export function registerAccountStatusesRoutes(app: App, r: Router): void {
  r.get("/api/v1/accounts/:id/statuses", async (event) => {
    const viewer = optionalUser(app, event, "read:statuses");
    const p = await readAppParams(app, event);
    const page = pageParams(p, 20, 40);
    cachePublicIfAnonymous(event, viewer !== null);
    const viewerId = viewer?.account.id ?? null;
    const tagged = p.str("tagged");
    const list = accountStatuses(
      app,
      viewerId,
      getRouterParam(event, "id"),
      {
        pinned: p.bool("pinned") === true,
        onlyMedia: p.bool("only_media") === true,
        excludeReplies: p.bool("exclude_replies") === true,
        excludeReblogs: p.bool("exclude_reblogs") === true,
        excludeDirect: p.bool("exclude_direct") === true,
        tagged: tagged === undefined || tagged.trim() === "" ? undefined : tagged,
      },
      page,
    );
    // A remote account with few stored posts: its outbox and pins come from a job (issue 19).
    const refresh = asyncRefreshHeader(refreshAccountPosts(app, viewerId, getRouterParam(event, "id")));
    if (refresh) event.res.headers.set("mastodon-async-refresh", refresh);
    // `next` only for a full page here (conventions §7); the filters travel with the links.
    setLinkHeader(app, event, p, {
      cursors: list.map((s) => s.id),
      limit: page.limit,
      keep: ["pinned", "tagged", "only_media", "exclude_replies", "exclude_reblogs"],
    });
    return jsonText(event, toApiStatusesJson(app, list, viewerId, { hideIn: "account" }));
  });

  r.get("/api/v1/accounts/:id/lists", (event) => {
    const viewer = requireUser(app, event, "read:lists");
    return listsContaining(app, viewer.account.id, getRouterParam(event, "id")).map(toApiList);
  });
}
