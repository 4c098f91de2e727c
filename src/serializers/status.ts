// PLACEHOLDER: signatures fixed; implemented by the statuses work package.
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import type { Status } from "../storage/statuses.ts";

export type ApiStatus = Record<string, unknown> & { id: string };

/**
 * Mastodon's Status entities for a page of statuses, in input order, as seen by `viewerId`
 * (null: anonymous, so the viewer flags are omitted). All lookups are batched: a page costs
 * a fixed number of queries whatever its length.
 */
export function toApiStatuses(_app: App, statuses: Status[], _viewerId: Id | null): ApiStatus[] {
  return statuses.map((s) => ({ id: s.id }));
}

export function toApiStatus(app: App, status: Status, viewerId: Id | null): ApiStatus {
  return toApiStatuses(app, [status], viewerId)[0];
}
