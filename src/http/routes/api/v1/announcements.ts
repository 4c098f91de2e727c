// https://docs.joinmastodon.org/methods/announcements/ (endpoints-instance.md §6)
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { requireUser } from "../../../auth.ts";
import { readAppParams } from "../../../params.ts";
import {
  addAnnouncementReaction,
  dismissAnnouncement,
  listAnnouncements,
  removeAnnouncementReaction,
} from "../../../../services/announcements.ts";
import { toApiAnnouncements } from "../../../../serializers/announcement.ts";

export function registerAnnouncementsRoutes(app: App, r: Router): void {
  // Any user token, whatever its scopes (Mastodon checks none here).
  r.get("/api/v1/announcements", async (event) => {
    const viewer = requireUser(app, event);
    const p = await readAppParams(app, event);
    const list = listAnnouncements(app, viewer.account.id, { withDismissed: p.bool("with_dismissed") });
    return toApiAnnouncements(app, list, viewer.account.id);
  });

  r.post("/api/v1/announcements/:id/dismiss", async (event) => {
    const viewer = requireUser(app, event, "write:accounts");
    await readAppParams(app, event);
    dismissAnnouncement(app, viewer.account.id, getRouterParam(event, "id"));
    return {};
  });

  // `:name` is a unicode emoji (percent-encoded in the path) or a local custom emoji's shortcode.
  r.put("/api/v1/announcements/:id/reactions/:name", async (event) => {
    const viewer = requireUser(app, event, "write:favourites");
    await readAppParams(app, event);
    addAnnouncementReaction(app, viewer.account.id, getRouterParam(event, "id"), getRouterParam(event, "name", { decode: true }) ?? "");
    return {};
  });

  r.delete("/api/v1/announcements/:id/reactions/:name", async (event) => {
    const viewer = requireUser(app, event, "write:favourites");
    await readAppParams(app, event);
    removeAnnouncementReaction(app, viewer.account.id, getRouterParam(event, "id"), getRouterParam(event, "name", { decode: true }) ?? "");
    return {};
  });
}
