// Roost's admin API for announcements. Mastodon manages them in its web admin only
// (Admin::AnnouncementsController, no REST API: endpoints-admin.md §8); these routes offer the
// same use cases in the style of its admin API: JSON entities, {"error"} bodies, the admin
// scopes and the role permission manage_announcements.
import { getRouterParam, type H3Event } from "h3";
import type { App } from "../../../../../app.ts";
import type { Router } from "../../../../router.ts";
import {
  type AnnouncementInput,
  createAnnouncement,
  destroyAnnouncement,
  listAnnouncementsForStaff,
  publishAnnouncement,
  requireAnnouncement,
  unpublishAnnouncement,
  updateAnnouncement,
} from "../../../../../admin/announcements.ts";
import { toApiAdminAnnouncements } from "../../../../../serializers/announcement.ts";
import { requirePermission } from "../../../../admin-auth.ts";
import { type Params, readAppParams } from "../../../../params.ts";

const READ = ["admin:read"];
const WRITE = ["admin:write"];

function inputOf(p: Params): AnnouncementInput {
  return { text: p.str("text"), startsAt: p.str("starts_at"), endsAt: p.str("ends_at"), allDay: p.bool("all_day"), scheduledAt: p.str("scheduled_at") };
}

export function registerAdminAnnouncementsRoutes(app: App, r: Router): void {
  const one = (a: Parameters<typeof toApiAdminAnnouncements>[1][number]) => toApiAdminAnnouncements(app, [a])[0];
  const writer = async (event: H3Event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, WRITE, "manage_announcements");
    return { p, actor, a: () => requireAnnouncement(app, actor, getRouterParam(event, "id")) };
  };

  r.get("/api/roost/v1/admin/announcements", (event) => {
    const actor = requirePermission(app, event, READ, "manage_announcements");
    return toApiAdminAnnouncements(app, listAnnouncementsForStaff(app, actor));
  });

  r.get("/api/roost/v1/admin/announcements/:id", (event) => {
    const actor = requirePermission(app, event, READ, "manage_announcements");
    return one(requireAnnouncement(app, actor, getRouterParam(event, "id")));
  });

  r.post("/api/roost/v1/admin/announcements", async (event) => {
    const { p, actor } = await writer(event);
    return one(createAnnouncement(app, actor, inputOf(p)));
  });

  r.put("/api/roost/v1/admin/announcements/:id", async (event) => {
    const { p, actor, a } = await writer(event);
    return one(updateAnnouncement(app, actor, a(), inputOf(p)));
  });

  r.post("/api/roost/v1/admin/announcements/:id/publish", async (event) => {
    const { actor, a } = await writer(event);
    return one(publishAnnouncement(app, actor, a()));
  });

  r.post("/api/roost/v1/admin/announcements/:id/unpublish", async (event) => {
    const { actor, a } = await writer(event);
    return one(unpublishAnnouncement(app, actor, a()));
  });

  r.delete("/api/roost/v1/admin/announcements/:id", async (event) => {
    const { actor, a } = await writer(event);
    destroyAnnouncement(app, actor, a());
    return {};
  });
}
