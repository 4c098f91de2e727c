// https://docs.joinmastodon.org/methods/notifications/#get-requests (Mastodon 4.3)
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { requireUser } from "../../../auth.ts";
import { pageParams, setLinkHeader } from "../../../pagination.ts";
import { readAppParams } from "../../../params.ts";
import {
  acceptNotificationRequest,
  acceptNotificationRequests,
  dismissNotificationRequest,
  dismissNotificationRequests,
  getNotificationRequest,
  listNotificationRequests,
  notificationRequestsMerged,
} from "../../../../services/notification-requests.ts";
import { toApiNotificationRequests } from "../../../../serializers/notification-request.ts";

const READ = ["read:notifications"];
const WRITE = ["write:notifications"];
const BASE = "/api/v1/notifications/requests";

export function registerNotificationRequestsRoutes(app: App, r: Router): void {
  r.get(BASE, async (event) => {
    const viewer = requireUser(app, event, ...READ);
    const p = await readAppParams(app, event);
    const page = pageParams(p, 40, 80);
    const list = listNotificationRequests(app, viewer.account.id, page);
    setLinkHeader(app, event, p, { cursors: list.map((x) => x.id), limit: page.limit });
    return toApiNotificationRequests(app, list, viewer.account.id);
  });

  r.get(`${BASE}/merged`, (event) => {
    requireUser(app, event, ...READ);
    return { merged: notificationRequestsMerged() };
  });

  // Bulk forms: `id[]`; unknown ids are ignored.
  for (const [name, run] of [
    ["accept", acceptNotificationRequests],
    ["dismiss", dismissNotificationRequests],
  ] as const) {
    r.post(`${BASE}/${name}`, async (event) => {
      const viewer = requireUser(app, event, ...WRITE);
      const p = await readAppParams(app, event);
      run(app, viewer.account.id, p.strArray("id", { allowScalar: true }) ?? []);
      return {};
    });
  }

  r.get(`${BASE}/:id`, (event) => {
    const viewer = requireUser(app, event, ...READ);
    const request = getNotificationRequest(app, viewer.account.id, getRouterParam(event, "id"));
    return toApiNotificationRequests(app, [request], viewer.account.id)[0] ?? {};
  });

  for (const [name, run] of [
    ["accept", acceptNotificationRequest],
    ["dismiss", dismissNotificationRequest],
  ] as const) {
    r.post(`${BASE}/:id/${name}`, (event) => {
      const viewer = requireUser(app, event, ...WRITE);
      run(app, viewer.account.id, getRouterParam(event, "id"));
      return {};
    });
  }
}
