// Trends for the Explore tab (src/trends/DESIGN.md): the hashtags, posts and links trending now,
// as scored by the periodic task trends.refresh. With `trendsRequireReview`, only what a
// moderator approved is shown; otherwise everything not rejected. Posts are filtered for the
// viewer (blocks, mutes, domain blocks) like any timeline.
import type { App } from "../app.ts";
import { notFound } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import type { Status } from "../storage/statuses.ts";
import { findStatusesByIds } from "../storage/statuses.ts";
import type { TagRow } from "../storage/tag-search.ts";
import {
  findTagsByIds,
  findTrendLinkByUrl,
  findTrendLinks,
  isTrendShown,
  listTrendIds,
  listTrendPublishers,
  type TrendKind,
  type TrendLink,
  type TrendPublisher,
} from "../storage/trends.ts";
import { normalizeLink } from "../lib/link-url.ts";
import { filterVisibleStatuses } from "./status-filter.ts";
import { trendsRequireReview } from "../storage/instance-settings.ts";

export interface TrendsPage {
  limit: number;
  offset: number;
  /** Admins: every trending item, reviewed or not. */
  all?: boolean;
}

function ids(app: App, kind: TrendKind, page: TrendsPage) {
  return listTrendIds(app.db, kind, { ...page, requireReview: trendsRequireReview(app) });
}

export interface Reviewed<T> {
  item: T;
  /** null: not reviewed yet. */
  trendable: boolean | null;
}

export function trendingTags(app: App, page: TrendsPage): Reviewed<TagRow>[] {
  const found = ids(app, "tag", page);
  const tags = new Map(findTagsByIds(app.db, found.map((f) => f.id)).map((t) => [t.id, t]));
  return found.flatMap((f) => (tags.has(f.id) ? [{ item: tags.get(f.id)!, trendable: f.reviewed }] : []));
}

export function trendingStatuses(app: App, viewerId: Id | null, page: TrendsPage): Reviewed<Status>[] {
  const found = ids(app, "status", page);
  const statuses = findStatusesByIds(app.db, found.map((f) => f.id));
  const visible = new Set(filterVisibleStatuses(app, viewerId, [...statuses.values()]).map((s) => s.id));
  return found.flatMap((f) => (visible.has(f.id) ? [{ item: statuses.get(f.id)!, trendable: f.reviewed }] : []));
}

export function trendingLinks(app: App, page: TrendsPage): Reviewed<TrendLink>[] {
  const found = ids(app, "link", page);
  const links = findTrendLinks(app.db, found.map((f) => f.id));
  return found.flatMap((f) => (links.has(f.id) ? [{ item: links.get(f.id)!, trendable: f.reviewed }] : []));
}

/**
 * The link GET /api/v1/timelines/link asks for: one trending now and shown to the public
 * (Mastodon: `PreviewCard.joins(:trend).merge(PreviewCardTrend.allowed).find_by!(url:)`), else 404.
 */
export function requireTrendingLink(app: App, rawUrl: string | undefined): TrendLink {
  const link = rawUrl === undefined ? null : normalizeLink(rawUrl.trim());
  const found = link ? findTrendLinkByUrl(app.db, link.url) : undefined;
  if (!found || !isTrendShown(app.db, "link", found.id, app.config.trendsRequireReview)) throw notFound();
  return found;
}

export function trendPublishers(app: App, page: { limit: number; offset: number }): TrendPublisher[] {
  return listTrendPublishers(app.db, page);
}
