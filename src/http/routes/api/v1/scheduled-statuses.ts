// https://docs.joinmastodon.org/methods/scheduled_statuses/ — list, show, move, cancel. A post
// is scheduled by POST /api/v1/statuses with `scheduled_at` (statuses.ts).
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { toApiScheduledStatus, toApiScheduledStatuses } from "../../../../serializers/scheduled-status.ts";
import {
  cancelScheduledStatus,
  listScheduledStatuses,
  requireOwnScheduledStatus,
  rescheduleStatus,
} from "../../../../services/scheduled-statuses.ts";
import { requireUser } from "../../../auth.ts";
import { pageParams, setLinkHeader } from "../../../pagination.ts";
import { readAppParams } from "../../../params.ts";

const READ = ["read", "read:statuses"];
const WRITE = ["write", "write:statuses"];

export function registerScheduledStatusesRoutes(app: App, r: Router): void {
  // Newest id first, 20 by default and 40 at most; `next` only after a full page.
  r.get("/api/v1/scheduled_statuses", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, ...READ);
    const k = pageParams(p, 20, 40);
    const list = listScheduledStatuses(app, viewer.account.id, k);
    setLinkHeader(app, event, p, { cursors: list.map((s) => s.id), limit: k.limit });
    return toApiScheduledStatuses(app, list);
  });

  r.get("/api/v1/scheduled_statuses/:id", (event) => {
    const viewer = requireUser(app, event, ...READ);
    return toApiScheduledStatus(app, requireOwnScheduledStatus(app, viewer.account.id, getRouterParam(event, "id")));
  });

  r.put("/api/v1/scheduled_statuses/:id", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, ...WRITE);
    return toApiScheduledStatus(app, rescheduleStatus(app, viewer.account.id, getRouterParam(event, "id"), p.str("scheduled_at")));
  });

  r.delete("/api/v1/scheduled_statuses/:id", async (event) => {
    await readAppParams(app, event);
    const viewer = requireUser(app, event, ...WRITE);
    cancelScheduledStatus(app, viewer.account.id, getRouterParam(event, "id"));
    return {};
  });
}
