// Pages of grouped notifications, kept per recipient until anything they were built from
// changes (storage/row-cache.ts): apps poll the first page far more often than notifications
// arrive, and building a page walks every notification of its groups.
import type { App } from "../app.ts";
import { findRowCache, installRowCache, type RowCacheSpec } from "../storage/row-cache.ts";
import type { Id } from "../lib/ids.ts";
import { nextNotificationMuteExpiry } from "../storage/notification-groups.ts";
import type { NotificationFilter } from "../storage/notification-reads.ts";
import { type GroupedPage, listNotificationGroups } from "./notification-groups.ts";

/**
 * Keyed by recipient. A page depends on the recipient's notifications, on whom the recipient
 * blocks, mutes, domain-blocks and follows (a followed account on a blocked domain stays
 * visible), on who blocks the recipient, and on the clock only through an expiring mute
 * (`until`). What changes elsewhere (a sender suspended, a status deleted) is checked again
 * when the page is rendered (serializers/notification-group.ts).
 */
const PAGES: RowCacheSpec = {
  name: "notification-group-pages",
  max: 500,
  watches: [
    ["notifications", "account_id"],
    ["blocks", "account_id"],
    ["blocks", "target_account_id"],
    ["mutes", "account_id"],
    ["account_domain_blocks", "account_id"],
    ["follows", "account_id"],
  ],
};
// Query variants kept per recipient (filters, cursors, sizes).
const VARIANTS = 4;

interface Entry {
  /** When a mute hiding notifications expires (the page may then grow); null: none. */
  until: number | null;
  pages: Map<string, GroupedPage>;
}

/** Installs the cache (once, outside transactions, when the HTTP app is made). */
export function installNotificationGroupPagesCache(app: App): void {
  installRowCache(app, PAGES);
}

type PageQuery = { limit: number; maxId?: Id; sinceId?: Id; minId?: Id };

/** listNotificationGroups through the cache. The page is shared: callers must not change it. */
export function listNotificationGroupsCached(
  app: App,
  viewerId: Id,
  filter: NotificationFilter,
  grouped: Set<string>,
  page: PageQuery,
): GroupedPage {
  const cache = findRowCache<Entry>(app, PAGES);
  if (!cache) return listNotificationGroups(app, viewerId, filter, grouped, page);
  cache.sync();
  const key = JSON.stringify([filter.typesJson, filter.fromAccountId, filter.includeFiltered, [...grouped].sort(), page]);
  const now = app.now();
  let entry = cache.get(viewerId);
  if (entry && entry.until !== null && now >= entry.until) entry = undefined;
  const hit = entry?.pages.get(key);
  if (hit) return hit;
  const built = listNotificationGroups(app, viewerId, filter, grouped, page);
  if (!entry) {
    entry = { until: nextNotificationMuteExpiry(app.db, viewerId, now), pages: new Map() };
    cache.set(viewerId, entry);
  }
  if (entry.pages.size >= VARIANTS) entry.pages.delete(entry.pages.keys().next().value!);
  entry.pages.set(key, built);
  return built;
}
