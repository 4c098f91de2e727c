import { type DB, type Row, stmt, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export type MarkerTimeline = "home" | "notifications";

export interface Marker {
  timeline: MarkerTimeline;
  lastReadId: string;
  version: number;
  updatedAt: number;
}

function rowToMarker(r: Row): Marker {
  return {
    timeline: r.timeline as MarkerTimeline,
    lastReadId: r.last_read_id as string,
    version: num(r.version),
    updatedAt: num(r.updated_at),
  };
}

export function findMarkers(db: DB, accountId: Id): Marker[] {
  return (stmt(db, "SELECT * FROM markers WHERE account_id = ?").all(BigInt(accountId)) as Row[]).map(rowToMarker);
}

/**
 * Saves a marker. Like Rails' optimistic lock_version: a new marker starts at version 0 and
 * every change increments it; saving the same position again changes nothing.
 */
export function saveMarker(db: DB, accountId: Id, timeline: MarkerTimeline, lastReadId: string, now: number): void {
  stmt(
    db,
    `INSERT INTO markers (account_id, timeline, last_read_id, version, updated_at)
     VALUES (@account, @timeline, @lastReadId, 0, @now)
     ON CONFLICT (account_id, timeline) DO UPDATE SET
       last_read_id = excluded.last_read_id, version = version + 1, updated_at = excluded.updated_at
     WHERE last_read_id <> excluded.last_read_id`,
  ).run({ account: BigInt(accountId), timeline, lastReadId, now });
}
