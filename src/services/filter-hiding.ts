import type { App } from "../app.ts";
import { readTx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { filterRulesOf, hiddenIn, matchFilters } from "../storage/filter-rules.ts";
import type { FilterContext } from "../storage/filters.ts";
import { findMediaByStatusIds } from "../storage/media-attachments.ts";
import type { Notification } from "../storage/notifications.ts";
import { findLiveStatusesCached } from "../storage/status-cache.ts";
import type { Status } from "../storage/statuses.ts";

// `hide` filters drop what they match on the server: from home (and lists), notifications and
// the other contexts a filter names (the seed's "irreversible"; entities-other.md "Filters").
// They apply when a page is read, so a changed, removed or expired filter takes effect at once
// and nothing is lost for good. `warn` and `blur` only annotate `filtered`. The viewer's own
// posts are never dropped, as Mastodon's web client never hides them.

/** The ids among `statuses` that the viewer's `hide` filters drop in `context`. */
export function hiddenStatusIds(app: App, viewerId: Id | null, statuses: Status[], context: FilterContext): Set<Id> {
  const hidden = new Set<Id>();
  if (!viewerId || statuses.length === 0) return hidden;
  const rules = filterRulesOf(app, viewerId);
  if (!rules.hides.has(context)) return hidden;
  return readTx(app.db, () => {
    const originals = findLiveStatusesCached(app, statuses.flatMap((s) => (s.reblogOfId ? [s.reblogOfId] : [])));
    const properOf = (s: Status) => (s.reblogOfId ? originals.get(s.reblogOfId) : s);
    const others = statuses.filter((s) => {
      const proper = properOf(s);
      return proper !== undefined && proper.accountId !== viewerId;
    });
    if (others.length === 0) return hidden;
    const media = findMediaByStatusIds(app.db, others.map((s) => properOf(s)!.id));
    for (const s of others) {
      const proper = properOf(s)!;
      if (hiddenIn(matchFilters(rules, s, proper, media.get(proper.id)), context)) hidden.add(s.id);
    }
    return hidden;
  });
}

/** `statuses` without those the viewer's `hide` filters drop in `context`, order kept. */
export function withoutFilterHidden(app: App, viewerId: Id | null, statuses: Status[], context: FilterContext): Status[] {
  const hidden = hiddenStatusIds(app, viewerId, statuses, context);
  return hidden.size ? statuses.filter((s) => !hidden.has(s.id)) : statuses;
}

/** Notifications without those whose status the viewer's `hide` filters drop in `notifications`. */
export function notificationsWithoutFilterHidden(app: App, viewerId: Id, notifications: Notification[]): Notification[] {
  if (!filterRulesOf(app, viewerId).hides.has("notifications")) return notifications;
  const statusIds = notifications.flatMap((n) => (n.statusId ? [n.statusId] : []));
  const statuses = [...findLiveStatusesCached(app, statusIds).values()];
  const hidden = hiddenStatusIds(app, viewerId, statuses, "notifications");
  return hidden.size ? notifications.filter((n) => !n.statusId || !hidden.has(n.statusId)) : notifications;
}
