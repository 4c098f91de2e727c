import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { type AccountStanding, findAccountStandings } from "../storage/accounts.ts";
import { statusesMentioning } from "../storage/mentions.ts";
import { followedAmong, hiddenAuthorsAmong, viewersHidingAuthors } from "../storage/relationship-checks.ts";
import { findStatusesByIds, type Status } from "../storage/statuses.ts";
import { findLiveStatusesCached } from "../storage/status-cache.ts";
import { readTx } from "../db/db.ts";

/**
 * Mastodon's StatusFilter over a list (context, multi-get), batched: a fixed number of
 * queries whatever the length. A status stays when the viewer may see it (canViewStatus's
 * rule) and the viewer neither blocks, mutes nor domain-blocks its author; a silenced
 * author's posts only reach followers. The viewer's own statuses always stay. Order is kept.
 * `standings`, when the caller has read them, holds every author's.
 */
export function filterVisibleStatuses(app: App, viewerId: Id | null, statuses: Status[], standings?: Map<Id, AccountStanding>): Status[] {
  if (statuses.length === 0) return [];
  const authorIds = new Set(statuses.map((s) => s.accountId));
  const authors = standings ?? findAccountStandings(app.db, authorIds);
  const others = [...authorIds].filter((id) => id !== viewerId);
  const hidden = viewerId ? hiddenAuthorsAmong(app.db, viewerId, others, app.now()) : new Set<Id>();
  const followed = viewerId ? followedAmong(app.db, viewerId, others) : new Set<Id>();
  const limited = statuses.filter((s) => s.visibility === "private" || s.visibility === "direct").map((s) => s.id);
  const mentioned = viewerId && limited.length ? statusesMentioning(app.db, viewerId, limited) : new Set<Id>();

  const visible = statuses.filter((s) => {
    const author = authors.get(s.accountId);
    if (!author || author.suspendedAt !== null || s.deletedAt !== null) return false;
    if (viewerId === s.accountId) return true;
    if (hidden.has(s.accountId)) return false;
    if (author.silencedAt !== null && !followed.has(s.accountId)) return false;
    if (s.visibility === "public" || s.visibility === "unlisted") return true;
    if (!viewerId) return false;
    if (mentioned.has(s.id)) return true;
    return s.visibility === "private" && followed.has(s.accountId);
  });
  // A boost shows its original: keep it only when the original passes the same filter.
  const originalIds = visible.filter((s) => s.reblogOfId).map((s) => s.reblogOfId!);
  if (originalIds.length === 0) return visible;
  const originals = findStatusesByIds(app.db, originalIds);
  const shown = new Set(filterVisibleStatuses(app, viewerId, [...originals.values()]).map((s) => s.id));
  return visible.filter((s) => !s.reblogOfId || shown.has(s.reblogOfId));
}

/**
 * The timelines' read-time rule (storage/timelines.ts viewerHides: blocked either way, muted,
 * or on a blocked domain; the rule of hiddenAuthorsAmong, which filterVisibleStatuses applies)
 * for one status and many viewers, as the live streams apply it to each event: the viewers who
 * hide its author or, for a boost, its original's author. One query for all the viewers.
 */
export function viewersHidingStatus(app: App, status: Status, viewerIds: Iterable<Id>): Set<Id> {
  return readTx(app.db, () => {
    const authors = [status.accountId];
    if (status.reblogOfId) {
      const original = findLiveStatusesCached(app, [status.reblogOfId]).get(status.reblogOfId);
      if (original) authors.push(original.accountId);
    }
    return viewersHidingAuthors(app.db, viewerIds, authors, app.now());
  });
}

/** Live statuses by id for the live streams (deleted ones are absent). */
export function findLiveStatuses(app: App, ids: Iterable<Id>): Map<Id, Status> {
  return findLiveStatusesCached(app, ids);
}
