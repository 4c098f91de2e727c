import { type DB, stmt } from "../db/db.ts";

// Activity ids the inbox has accepted (dedupe: a repeated delivery is answered 202 and dropped).

/** Records the id; false when it was already there (a repeat). */
export function rememberActivityId(db: DB, uri: string, now: number): boolean {
  return stmt(db, "INSERT OR IGNORE INTO inbox_activity_ids (uri, received_at) VALUES (?, ?)").run(uri, now).changes > 0;
}

/** Forgets ids received before `before`, at most `limit` of them; returns how many went. */
export function purgeActivityIds(db: DB, before: number, limit: number): number {
  return stmt(
    db,
    "DELETE FROM inbox_activity_ids WHERE uri IN (SELECT uri FROM inbox_activity_ids WHERE received_at < ? ORDER BY received_at LIMIT ?)",
  ).run(before, limit).changes;
}
