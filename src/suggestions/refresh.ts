// The periodic task suggestions.refresh: the global ranking of follow suggestions computed by a
// read, then stored in one short transaction (Mastodon refreshes its follow_recommendations
// view on a schedule too), so writers never wait for the computation.
import type { App } from "../app.ts";
import { readTx, tx } from "../db/db.ts";
import { rankFollowRecommendations, replaceFollowRecommendations } from "../storage/suggestions.ts";

export const SUGGESTIONS_REFRESH_TASK = "suggestions.refresh";
export const SUGGESTIONS_REFRESH_EVERY_MS = 60 * 60_000;

/** Mastodon's window (30 days) and threshold (5 followers, 5 interactions). */
const WINDOW_MS = 30 * 86_400_000;
const MINIMUM = 5;

/** Returns how many accounts the global sources rank. */
export function refreshSuggestions(app: App): number {
  const ranked = readTx(app.db, () => rankFollowRecommendations(app.db, app.now(), WINDOW_MS, MINIMUM));
  tx(app.db, () => replaceFollowRecommendations(app.db, ranked));
  return ranked.length;
}
