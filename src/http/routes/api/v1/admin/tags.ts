// https://docs.joinmastodon.org/methods/admin/tags/ (endpoints-admin.md §6). Beyond Mastodon's
// API, the list takes the web admin's filters (Admin::TagFilter): `name` (a prefix) and
// `status` (reviewed, unreviewed, pending_review).
import { getRouterParam } from "h3";
import type { App } from "../../../../../app.ts";
import type { Router } from "../../../../router.ts";
import { ADMIN_TAG_STATUSES, type AdminTagStatus, listAdminTags, moderateTag, requireAdminTag } from "../../../../../admin/tags.ts";
import { badRequest } from "../../../../../errors.ts";
import { toApiAdminTags } from "../../../../../serializers/admin-tag.ts";
import { requirePermission } from "../../../../admin-auth.ts";
import { pageParams, setLinkHeader } from "../../../../pagination.ts";
import { readAppParams } from "../../../../params.ts";

const STATUSES = ADMIN_TAG_STATUSES;

export function registerAdminTagsRoutes(app: App, r: Router): void {
  r.get("/api/v1/admin/tags", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, ["admin:read"], "manage_taxonomies");
    const k = pageParams(p, 100, 200);
    const status = p.str("status");
    if (status !== undefined && status !== "" && !STATUSES.includes(status as AdminTagStatus)) throw badRequest("status must be one of reviewed, unreviewed, pending_review");
    const tags = listAdminTags(app, actor, k, { name: p.str("name") || undefined, status: (status || undefined) as AdminTagStatus | undefined });
    setLinkHeader(app, event, p, { cursors: tags.map((t) => t.id), limit: k.limit, prevParam: "min_id" });
    return toApiAdminTags(app, tags, actor.account.id);
  });

  r.get("/api/v1/admin/tags/:id", (event) => {
    const actor = requirePermission(app, event, ["admin:read"], "manage_taxonomies");
    return toApiAdminTags(app, [requireAdminTag(app, getRouterParam(event, "id"))], actor.account.id)[0];
  });

  r.put("/api/v1/admin/tags/:id", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, ["admin:write"], "manage_taxonomies");
    const tag = requireAdminTag(app, getRouterParam(event, "id"));
    const after = moderateTag(app, actor, tag, {
      displayName: p.str("display_name"),
      usable: p.bool("usable"),
      listable: p.bool("listable"),
      trendable: p.bool("trendable"),
    });
    return toApiAdminTags(app, [after], actor.account.id)[0];
  });
}
