import type { App } from "../app.ts";
import { readTx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { filterRulesOf, hiddenFrom, matchFilters } from "../storage/filter-rules.ts";
import type { FilterContext } from "../storage/filters.ts";
import { findMediaByStatusIds } from "../storage/media-attachments.ts";
import { findLiveStatusesCached } from "../storage/status-cache.ts";
import type { Status } from "../storage/statuses.ts";

// `hide` filters drop what they match on the server: from home (and lists), notifications and
// the other contexts a filter names (the seed's "irreversible"; entities-other.md "Filters").
// They apply when a page is read, so a changed, removed or expired filter takes effect at once
// and nothing is lost for good; `warn` and `blur` only annotate `filtered`. Timelines, profiles
// and notifications drop them as their page is rendered, from the matches computed for
// `filtered` (serializers/status.ts `hideIn`); other lists of statuses use hiddenStatusIds.
// The rule itself is storage/filter-rules.ts hiddenFrom (never the viewer's own posts).

/** The ids among `statuses` that the viewer's `hide` filters drop in `context`. */
export function hiddenStatusIds(app: App, viewerId: Id | null, statuses: Status[], context: FilterContext): Set<Id> {
  const hidden = new Set<Id>();
  if (!viewerId || statuses.length === 0) return hidden;
  const rules = filterRulesOf(app, viewerId);
  if (!rules.hides.has(context)) return hidden;
  return readTx(app.db, () => {
    const originals = findLiveStatusesCached(app, statuses.flatMap((s) => (s.reblogOfId ? [s.reblogOfId] : [])));
    const pairs = statuses.flatMap((s) => {
      const proper = s.reblogOfId ? originals.get(s.reblogOfId) : s;
      return proper && proper.accountId !== viewerId ? [{ s, proper }] : [];
    });
    const media = findMediaByStatusIds(app.db, pairs.map((p) => p.proper.id));
    for (const { s, proper } of pairs) {
      if (hiddenFrom(viewerId, matchFilters(rules, s, proper, media.get(proper.id)), proper, context)) hidden.add(s.id);
    }
    return hidden;
  });
}
