import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { ancestorIds, descendantIds, findStatusesByIds, type Status } from "../storage/statuses.ts";
import { filterVisibleStatuses } from "./status-filter.ts";
import { hiddenStatusIds } from "./filter-hiding.ts";

// Mastodon's context limits: anonymous callers get a bounded thread, users a quasi-unlimited one.
const ANON_ANCESTORS = 40;
const ANON_DESCENDANTS = 60;
const ANON_DEPTH = 20;
const CONTEXT_LIMIT = 4096;

export interface StatusContext {
  ancestors: Status[];
  descendants: Status[];
}

/** Stable move of the self-replies that follow the first other reply up front (Mastodon's promote_by!). */
function promoteSelfReplies(list: Status[]): Status[] {
  const isSelf = (s: Status) => s.inReplyToAccountId === s.accountId;
  const at = list.findIndex((s) => !isSelf(s));
  if (at < 0) return list;
  const rest = list.slice(at);
  return [...list.slice(0, at), ...rest.filter(isSelf), ...rest.filter((s) => !isSelf(s))];
}

/**
 * GET /api/v1/statuses/:id/context: ancestors oldest first, descendants depth-first with the
 * author's self-replies brought forward; only statuses the viewer may see, without authors it
 * blocks or mutes, nor what its `hide` filters drop in `thread`. The status itself must
 * already have been checked as visible.
 */
export function getStatusContext(app: App, viewerId: Id | null, status: Status): StatusContext {
  const anon = viewerId === null;
  const up = status.inReplyToId ? ancestorIds(app.db, status.id, anon ? ANON_ANCESTORS : CONTEXT_LIMIT) : [];
  const down = descendantIds(app.db, status.id, anon ? ANON_DESCENDANTS : CONTEXT_LIMIT, anon ? ANON_DEPTH : CONTEXT_LIMIT);
  const found = findStatusesByIds(app.db, [...up, ...down]);
  const load = (ids: Id[]) => ids.map((id) => found.get(id)).filter((s): s is Status => s !== undefined);
  const ancestors = filterVisibleStatuses(app, viewerId, load(up));
  const descendants = filterVisibleStatuses(app, viewerId, load(down));
  const hidden = hiddenStatusIds(app, viewerId, [...ancestors, ...descendants], "thread");
  const shown = (list: Status[]) => (hidden.size ? list.filter((s) => !hidden.has(s.id)) : list);
  return { ancestors: shown(ancestors), descendants: promoteSelfReplies(shown(descendants)) };
}
