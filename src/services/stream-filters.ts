import type { App } from "../app.ts";
import { readTx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { filterRulesOf, type FilterMatch, hiddenFrom, matchFilters } from "../storage/filter-rules.ts";
import type { FilterContext } from "../storage/filters.ts";
import { findMediaByStatusIds } from "../storage/media-attachments.ts";
import { findPollsByIds } from "../storage/polls.ts";
import { findLiveStatusesCached } from "../storage/status-cache.ts";
import type { Status } from "../storage/statuses.ts";

// Keyword filters for live streams (issue 11 part 4): the same matches the timelines compute
// (storage/filter-rules.ts), for one status and every viewer an event reaches. The status's
// text, media descriptions and poll options are read once; each viewer's compiled rules are
// cached, so a viewer without filters costs a map look-up.

export interface StreamFilterVerdict {
  /** A `hide` filter of the viewer drops the event in this context. */
  hidden: boolean;
  /** The viewer's matches (the payload's `filtered`); empty when none. */
  matches: readonly FilterMatch[];
}

const SHOW: StreamFilterVerdict = Object.freeze({ hidden: false, matches: Object.freeze([]) as readonly FilterMatch[] });

/** Each viewer's verdict on `status` in `context` (home and list streams: "home"; public and hashtag ones: "public"). */
export function streamFilterVerdicts(app: App, status: Status, viewerIds: Iterable<Id>, context: FilterContext): Map<Id, StreamFilterVerdict> {
  const out = new Map<Id, StreamFilterVerdict>();
  const withRules: Id[] = [];
  for (const v of viewerIds) {
    if (filterRulesOf(app, v).filters.length === 0) out.set(v, SHOW);
    else withRules.push(v);
  }
  if (withRules.length === 0) return out;
  readTx(app.db, () => {
    const proper = status.reblogOfId ? findLiveStatusesCached(app, [status.reblogOfId]).get(status.reblogOfId) : status;
    if (!proper) return;
    const media = findMediaByStatusIds(app.db, [proper.id]).get(proper.id);
    const pollOptions = proper.pollId ? (findPollsByIds(app.db, [proper.pollId]).get(proper.pollId)?.options ?? null) : null;
    for (const v of withRules) {
      const matches = matchFilters(filterRulesOf(app, v), status, proper, media, pollOptions);
      out.set(v, matches.length ? { hidden: hiddenFrom(v, matches, proper, context), matches } : SHOW);
    }
  });
  return out;
}
