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
  const rows = stmt(
    db,
    `SELECT 'f' AS k, status_id AS id FROM favourites WHERE account_id = @v AND status_id IN (SELECT value FROM json_each(@ids))
     UNION ALL
     SELECT 'r', reblog_of_id FROM statuses WHERE account_id = @v AND reblog_of_id IN (SELECT value FROM json_each(@ids))
     UNION ALL
     SELECT 'b', status_id FROM bookmarks WHERE account_id = @v AND status_id IN (SELECT value FROM json_each(@ids))
     UNION ALL
     SELECT 'p', status_id FROM status_pins WHERE account_id = @v AND status_id IN (SELECT value FROM json_each(@ids))
     UNION ALL
     SELECT 'm', conversation_id FROM conversation_mutes WHERE account_id = @v AND conversation_id IN (SELECT value FROM json_each(@convs))`,
  ).all({ v: BigInt(viewerId), ids: idListJson(statusIds), convs: idListJson(conversationIds) }) as Row[];
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
