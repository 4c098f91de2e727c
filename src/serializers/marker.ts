import type { Marker, MarkerTimeline } from "../storage/markers.ts";

// https://docs.joinmastodon.org/entities/Marker/ — `version` is a number, ids are strings.
export interface ApiMarker {
  last_read_id: string;
  version: number;
  updated_at: string;
}

export function toApiMarkers(markers: Partial<Record<MarkerTimeline, Marker>>): Record<string, ApiMarker> {
  const out: Record<string, ApiMarker> = {};
  for (const [timeline, m] of Object.entries(markers)) {
    if (!m) continue;
    out[timeline] = { last_read_id: m.lastReadId, version: m.version, updated_at: new Date(m.updatedAt).toISOString() };
  }
  return out;
}
