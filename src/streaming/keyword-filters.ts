import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import type { Status } from "../services/domain-types.ts";

// THE place where a streamed status meets the viewer's keyword filters (issue 11 part 4;
// streaming.md §7). The v2 filters (warn / hide / blur, a compiled matcher per user, the
// `filtered` field of Status entities) are being built separately; at merge they plug in here:
//
// - `keywordVerdict` answers for one viewer and one status of an `update` or `status.update`
//   event: "hide" drops the event for that viewer; "warn" (or "blur") carries the FilterResult
//   list that becomes the payload's `filtered` (delivery.ts splices it into anonymous payloads;
//   per-viewer payloads get `filtered` from the status serializer itself).
// - `keywordFiltersChanged` is called when `filters_changed` arrives for an account on the
//   bus (services/stream-events.ts publishFiltersChanged, which the filters code's
//   onFiltersChanged(app, accountId) calls after every change): drop any cached matcher.
//
// Until then no status is filtered.

/** The filter context of a stream: home and list streams are "home", public and hashtag ones "public". */
export type FilterContext = "home" | "public";

export type KeywordVerdict = { action: "show" } | { action: "hide" } | { action: "warn"; filtered: unknown[] };

const SHOW: KeywordVerdict = { action: "show" };

export function keywordVerdict(_app: App, _viewerId: Id, _status: Status, _context: FilterContext): KeywordVerdict {
  return SHOW;
}

export function keywordFiltersChanged(_app: App, _accountId: Id): void {}
