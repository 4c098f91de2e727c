// https://docs.joinmastodon.org/methods/admin/trends/ — the moderators' review of trends: every
// trending tag, post and link (reviewed or not), approve/reject, and link publishers. As in
// Mastodon's Admin::Trends controllers: a user token with the scope (401/403 otherwise); the
// lists give staff (moderators and admins: manage_taxonomies) everything and others the public
// list; reviews and publishers are staff only (403).
import { getRouterParam, type H3Event } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { forbidden, notFound } from "../../../../errors.ts";
import { parseId } from "../../../../lib/ids.ts";
import { toApiStatuses } from "../../../../serializers/status.ts";
import { toApiTags } from "../../../../serializers/tag.ts";
import { toApiTrendAdminTags } from "../../../../serializers/admin-tag.ts";
import { toApiPublisher, toApiTrendLinks } from "../../../../serializers/trend-link.ts";
import { trendingLinks, trendingStatuses, trendingTags, trendPublishers } from "../../../../services/trends.ts";
import { reviewLink, reviewPublisher, reviewStatus, reviewTag } from "../../../../admin/trend-reviews.ts";
import { requireUser, type Viewer } from "../../../auth.ts";
import { type Actor, can, makeActor } from "../../../../admin/actor.ts";
import { pageParams } from "../../../pagination.ts";
import { readAppParams } from "../../../params.ts";
import { searchOffset } from "../v2/search.ts";
import { setOffsetLinks, trendsPage } from "./trends.ts";

// Reviewing trends is Mastodon's manage_taxonomies (Admin::Trends policies' review?).
const isStaff = (app: App, v: Viewer) => can(makeActor(app, v.user, v.account, "api"), "manage_taxonomies");

function requireStaff(app: App, event: H3Event, scope: "admin:read" | "admin:write"): Viewer {
  const viewer = requireUser(app, event, scope);
  if (!isStaff(app, viewer)) throw forbidden();
  return viewer;
}

/** A reviewer: staff, as the actor the audit log records. */
function requireReviewer(app: App, event: H3Event): { viewer: Viewer; actor: Actor } {
  const viewer = requireStaff(app, event, "admin:write");
  return { viewer, actor: makeActor(app, viewer.user, viewer.account, "api") };
}

const review = (trendable: boolean | null) => ({ requires_review: trendable === null });

export function registerAdminTrendsRoutes(app: App, r: Router): void {
  r.get("/api/v1/admin/trends/tags", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "admin:read");
    const page = trendsPage(p, 10);
    const found = trendingTags(app, { ...page, all: isStaff(app, viewer) });
    setOffsetLinks(app, event, page, found.length);
    const items = found.map((f) => f.item);
    if (!isStaff(app, viewer)) return toApiTags(app, items, viewer.account.id);
    return toApiTrendAdminTags(app, items, found.map((f) => f.trendable), viewer.account.id);
  });

  r.get("/api/v1/admin/trends/statuses", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "admin:read");
    const page = trendsPage(p, 20);
    const found = trendingStatuses(app, viewer.account.id, { ...page, all: isStaff(app, viewer) });
    setOffsetLinks(app, event, page, found.length);
    const statuses = toApiStatuses(app, found.map((f) => f.item), viewer.account.id);
    if (!isStaff(app, viewer)) return statuses;
    return statuses.map((s, i) => ({ ...s, ...review(found[i].trendable) }));
  });

  r.get("/api/v1/admin/trends/links", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "admin:read");
    const page = trendsPage(p, 10);
    const found = trendingLinks(app, { ...page, all: isStaff(app, viewer) });
    setOffsetLinks(app, event, page, found.length);
    const links = toApiTrendLinks(app, found.map((f) => f.item));
    if (!isStaff(app, viewer)) return links;
    return links.map((l, i) => ({ ...l, id: Number(found[i].item.id), ...review(found[i].trendable) }));
  });

  r.get("/api/v1/admin/trends/links/publishers", async (event) => {
    const p = await readAppParams(app, event);
    requireStaff(app, event, "admin:read");
    const page = { limit: pageParams(p, 100, 200).limit, offset: searchOffset(p) };
    return trendPublishers(app, page).map(toApiPublisher);
  });

  for (const [action, trendable] of [["approve", true], ["reject", false]] as const) {
    r.post(`/api/v1/admin/trends/tags/:id/${action}`, async (event) => {
      const { viewer, actor } = requireReviewer(app, event);
      const [tag] = toApiTrendAdminTags(app, [reviewTag(app, actor, itemId(event), trendable)], [trendable], viewer.account.id);
      return tag;
    });
    r.post(`/api/v1/admin/trends/statuses/:id/${action}`, async (event) => {
      const { viewer, actor } = requireReviewer(app, event);
      const [status] = toApiStatuses(app, [reviewStatus(app, actor, itemId(event), trendable)], viewer.account.id);
      return { ...status, requires_review: false };
    });
    r.post(`/api/v1/admin/trends/links/:id/${action}`, async (event) => {
      const { actor } = requireReviewer(app, event);
      const id = itemId(event);
      const [link] = toApiTrendLinks(app, [reviewLink(app, actor, id, trendable)]);
      return { ...link, id: Number(id), requires_review: false };
    });
    r.post(`/api/v1/admin/trends/links/publishers/:id/${action}`, async (event) => {
      const { actor } = requireReviewer(app, event);
      return toApiPublisher(reviewPublisher(app, actor, itemId(event), trendable));
    });
  }
}

function itemId(event: H3Event): string {
  const id = parseId(getRouterParam(event, "id"));
  if (!id) throw notFound();
  return id;
}
