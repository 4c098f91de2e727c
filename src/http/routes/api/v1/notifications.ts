// https://docs.joinmastodon.org/methods/notifications/ (v1; grouped v2 is not implemented)
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { requireUser } from "../../../auth.ts";
import { pageParams, setLinkHeader } from "../../../pagination.ts";
import { readAppParams, type Params } from "../../../params.ts";
import { notFound } from "../../../../errors.ts";
import {
  clearNotifications,
  dismissNotification,
  getNotification,
  listNotifications,
  notificationFilter,
  unreadNotificationCount,
} from "../../../../services/notification-reads.ts";
import { toApiNotification, toApiNotificationsJson } from "../../../../serializers/notification.ts";
import { jsonText } from "../../../headers.ts";

const READ = ["read:notifications"];
const WRITE = ["write:notifications"];

function filterOf(p: Params) {
  return notificationFilter(p.strArray("types"), p.strArray("exclude_types"), p.str("account_id"));
}

export function registerNotificationsRoutes(app: App, r: Router): void {
  r.get("/api/v1/notifications", async (event) => {
    const viewer = requireUser(app, event, ...READ);
    const p = await readAppParams(app, event);
    const page = pageParams(p, 40, 80);
    const list = listNotifications(app, viewer.account.id, filterOf(p), page);
    // Link cursors are the notifications found, even any that `hide` filters or the serializer then drop.
    setLinkHeader(app, event, p, {
      cursors: list.map((n) => n.id),
      limit: page.limit,
      nextAlways: true,
      keep: ["types", "exclude_types", "account_id"],
    });
    return jsonText(event, toApiNotificationsJson(app, list, viewer.account.id, { hideFiltered: true }));
  });

  // Mastodon 4.3: counts notifications past the `notifications` marker, capped at `limit`.
  r.get("/api/v1/notifications/unread_count", async (event) => {
    const viewer = requireUser(app, event, ...READ);
    const p = await readAppParams(app, event);
    const { limit } = pageParams(p, 100, 1000);
    return { count: unreadNotificationCount(app, viewer.account.id, filterOf(p), limit) };
  });

  r.post("/api/v1/notifications/clear", (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    clearNotifications(app, viewer.account.id);
    return {};
  });

  r.get("/api/v1/notifications/:id", (event) => {
    const viewer = requireUser(app, event, ...READ);
    const n = getNotification(app, viewer.account.id, getRouterParam(event, "id"));
    const out = toApiNotification(app, n, viewer.account.id);
    if (!out) throw notFound();
    return out;
  });

  r.post("/api/v1/notifications/:id/dismiss", (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    dismissNotification(app, viewer.account.id, getRouterParam(event, "id"));
    return {};
  });
}
