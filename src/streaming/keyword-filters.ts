import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import type { Status } from "../services/domain-types.ts";
import { type StreamFilterVerdict, streamFilterVerdicts } from "../services/stream-filters.ts";
import { toApiFilterResult } from "../serializers/filter.ts";

// THE place where a streamed status meets the viewers' keyword filters (issue 11 part 4;
// streaming.md §7), with the timelines' own matching (services/stream-filters.ts):
// - "hide" drops the event for that viewer;
// - "warn" (or "blur") matches become the payload's `filtered`: per-viewer payloads (home and
//   list streams) get it from the status serializer itself; delivery.ts splices it into the
//   anonymous payloads of public and hashtag streams, as Mastodon's streaming server does.
// Changes to a user's filters forget their compiled rules (services/filters.ts onFiltersChanged,
// which also publishes `filters_changed`), so the next event is matched against the new ones.

/** The filter context of a stream: home and list streams are "home", public and hashtag ones "public". */
export type FilterContext = "home" | "public";

export type KeywordVerdict = { action: "show" } | { action: "hide" } | { action: "warn"; filtered: unknown[] };

const SHOW: KeywordVerdict = { action: "show" };

/** Each viewer's verdict on one status in one context. */
export function keywordVerdicts(app: App, status: Status, viewerIds: Iterable<Id>, context: FilterContext): Map<Id, KeywordVerdict> {
  const out = new Map<Id, KeywordVerdict>();
  for (const [v, verdict] of streamFilterVerdicts(app, status, viewerIds, context)) out.set(v, toVerdict(verdict));
  return out;
}

function toVerdict(v: StreamFilterVerdict): KeywordVerdict {
  if (v.hidden) return { action: "hide" };
  if (v.matches.length === 0) return SHOW;
  return { action: "warn", filtered: v.matches.map(toApiFilterResult) };
}
