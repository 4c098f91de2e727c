// https://docs.joinmastodon.org/entities/Tag/#admin (entities-admin.md Admin::Tag): the Tag
// entity with the moderation flags.
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { type AdminTag, effectiveTagFlags, findAdminTags } from "../storage/admin-tags.ts";
import { type ApiTag, toApiTags } from "./tag.ts";

export interface ApiAdminTag extends ApiTag {
  trendable: boolean;
  usable: boolean;
  listable: boolean;
  requires_review: boolean;
}

export function toApiAdminTags(app: App, tags: AdminTag[], viewerId: Id | null): ApiAdminTag[] {
  const base = toApiTags(app, tags.map((t) => ({ id: t.id, name: t.name, displayName: t.displayName })), viewerId);
  return tags.map((t, i) => ({
    ...base[i],
    ...effectiveTagFlags(t, app.config.trendsRequireReview),
    // Mastodon: asked for review (by trending) and not reviewed yet.
    requires_review: t.trending && t.reviewedAt === null,
  }));
}

/**
 * Trending tags as staff see them in /api/v1/admin/trends/tags: the stored usable and listable
 * flags (NULL counts as yes) and the trend review given (`trendable` null: not reviewed).
 */
export function toApiTrendAdminTags(app: App, tags: { id: Id; name: string; displayName: string }[], trendable: (boolean | null)[], viewerId: Id | null): ApiAdminTag[] {
  const base = toApiTags(app, tags, viewerId);
  const flags = new Map(findAdminTags(app.db, tags.map((t) => t.id)).map((t) => [t.id, t]));
  return tags.map((t, i) => {
    const f = flags.get(t.id);
    return { ...base[i], trendable: trendable[i] === true, usable: f?.usable ?? true, listable: f?.listable ?? true, requires_review: trendable[i] === null };
  });
}
