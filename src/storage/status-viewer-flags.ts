import { type DB, type Row, stmt, str, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export interface ViewerFlags {
  favourited: Set<Id>;
  reblogged: Set<Id>;
  bookmarked: Set<Id>;
  pinned: Set<Id>;
  /** Conversation ids the viewer muted. */
  mutedConversations: Set<Id>;
}

/** The viewer's relation to a page of statuses, in one query (favourites, boosts, bookmarks, pins, muted threads). */
export function loadViewerFlags(db: DB, viewerId: Id, statusIds: Iterable<Id>, conversationIds: Iterable<Id>): ViewerFlags {
  const flags: ViewerFlags = {
    favourited: new Set(),
    reblogged: new Set(),
    bookmarked: new Set(),
    pinned: new Set(),
    mutedConversations: new Set(),
  };
  // Each branch walks the id list and probes the viewer's index once per id. CROSS JOIN
  // keeps that order: SQLite would otherwise scan all the viewer's rows of the table for
  // each id, and `IN (SELECT ...)` builds a temporary index per branch, which costs more.
  // `+@v`: a bare parameter against a column sampled by ANALYZE makes SQLite re-plan the
  // statement on every bind.
  const rows = stmt(
    db,
    `SELECT 'f' AS k, f.status_id AS id FROM json_each(@ids) j CROSS JOIN favourites f ON f.account_id = +@v AND f.status_id = j.value
     UNION ALL
     SELECT 'r', s.reblog_of_id FROM json_each(@ids) j CROSS JOIN statuses s ON s.account_id = +@v AND s.reblog_of_id = j.value
     UNION ALL
     SELECT 'b', b.status_id FROM json_each(@ids) j CROSS JOIN bookmarks b ON b.account_id = +@v AND b.status_id = j.value
     UNION ALL
     SELECT 'p', p.status_id FROM json_each(@ids) j CROSS JOIN status_pins p ON p.account_id = +@v AND p.status_id = j.value
     UNION ALL
     SELECT 'm', m.conversation_id FROM json_each(@convs) j CROSS JOIN conversation_mutes m
       ON m.account_id = +@v AND m.conversation_id = j.value`,
  ).all({ v: BigInt(viewerId), ids: idListJson(new Set(statusIds)), convs: idListJson(new Set(conversationIds)) }) as Row[];
  for (const r of rows) {
    const id = str(r.id);
    if (r.k === "f") flags.favourited.add(id);
    else if (r.k === "r") flags.reblogged.add(id);
    else if (r.k === "b") flags.bookmarked.add(id);
    else if (r.k === "p") flags.pinned.add(id);
    else flags.mutedConversations.add(id);
  }
  return flags;
}

/**
 * loadViewerFlags for several viewers of the same statuses, in one query (a live-stream event
 * rendered for each home it reached). Each branch walks viewers × ids and probes the same
 * indexes as the single-viewer query.
 */
export function loadViewerFlagsOfViewers(db: DB, viewerIds: Id[], statusIds: Iterable<Id>, conversationIds: Iterable<Id>): Map<Id, ViewerFlags> {
  const out = new Map<Id, ViewerFlags>();
  for (const v of viewerIds) {
    out.set(v, { favourited: new Set(), reblogged: new Set(), bookmarked: new Set(), pinned: new Set(), mutedConversations: new Set() });
  }
  const rows = stmt(
    db,
    `SELECT 'f' AS k, w.value AS v, f.status_id AS id FROM json_each(@viewers) w CROSS JOIN json_each(@ids) j CROSS JOIN favourites f ON f.account_id = w.value AND f.status_id = j.value
     UNION ALL
     SELECT 'r', w.value, s.reblog_of_id FROM json_each(@viewers) w CROSS JOIN json_each(@ids) j CROSS JOIN statuses s ON s.account_id = w.value AND s.reblog_of_id = j.value
     UNION ALL
     SELECT 'b', w.value, b.status_id FROM json_each(@viewers) w CROSS JOIN json_each(@ids) j CROSS JOIN bookmarks b ON b.account_id = w.value AND b.status_id = j.value
     UNION ALL
     SELECT 'p', w.value, p.status_id FROM json_each(@viewers) w CROSS JOIN json_each(@ids) j CROSS JOIN status_pins p ON p.account_id = w.value AND p.status_id = j.value
     UNION ALL
     SELECT 'm', w.value, m.conversation_id FROM json_each(@viewers) w CROSS JOIN json_each(@convs) j CROSS JOIN conversation_mutes m
       ON m.account_id = w.value AND m.conversation_id = j.value`,
  ).all({ viewers: idListJson(viewerIds), ids: idListJson(new Set(statusIds)), convs: idListJson(new Set(conversationIds)) }) as Row[];
  for (const r of rows) {
    const flags = out.get(str(r.v));
    if (!flags) continue;
    const id = str(r.id);
    if (r.k === "f") flags.favourited.add(id);
    else if (r.k === "r") flags.reblogged.add(id);
    else if (r.k === "b") flags.bookmarked.add(id);
    else if (r.k === "p") flags.pinned.add(id);
    else flags.mutedConversations.add(id);
  }
  return out;
}
