import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { unprocessable } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import { findMarkers, type Marker, type MarkerTimeline, saveMarker } from "../storage/markers.ts";

export type { Marker, MarkerTimeline };
export const MARKER_TIMELINES: readonly MarkerTimeline[] = ["home", "notifications"];

/** The requested markers that exist, keyed by timeline. */
export function getMarkers(app: App, accountId: Id, timelines: string[]): Partial<Record<MarkerTimeline, Marker>> {
  const wanted = new Set(timelines);
  const out: Partial<Record<MarkerTimeline, Marker>> = {};
  for (const m of findMarkers(app.db, accountId)) if (wanted.has(m.timeline)) out[m.timeline] = m;
  return out;
}

/**
 * Saves the given positions (other timeline names are ignored, as Mastodon slices them) in
 * one transaction and returns the saved markers. last_read_id is a status or notification id.
 */
export function setMarkers(app: App, accountId: Id, input: Partial<Record<MarkerTimeline, string | undefined>>): Partial<Record<MarkerTimeline, Marker>> {
  const given = MARKER_TIMELINES.filter((t) => t in input);
  for (const t of given) {
    const v = input[t];
    if (v === undefined || !/^\d{1,19}$/.test(v.trim())) throw unprocessable("Validation failed: Last read can't be blank");
  }
  tx(app.db, () => {
    const now = app.now();
    for (const t of given) saveMarker(app.db, accountId, t, input[t]!.trim(), now);
  });
  return getMarkers(app, accountId, given);
}
