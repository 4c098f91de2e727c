// https://docs.joinmastodon.org/methods/async_refreshes/ (4.4, experimental): polling a
// background refresh announced by a `Mastodon-Async-Refresh` header.
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { ApiError } from "../../../../errors.ts";
import { findPollableRefresh } from "../../../../services/thread-refresh.ts";
import { requireUser } from "../../../auth.ts";

export function registerAsyncRefreshesRoutes(app: App, r: Router): void {
  r.get("/api/v1_alpha/async_refreshes/:id", (event) => {
    requireUser(app, event, "read");
    const refresh = findPollableRefresh(app, getRouterParam(event, "id") ?? "");
    if (!refresh) throw new ApiError(404, "Record not found");
    return { async_refresh: { id: refresh.id, status: refresh.status, result_count: refresh.resultCount } };
  });
}
