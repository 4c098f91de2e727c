import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

/**
 * The uris of a thread's public and unlisted posts (no boosts), oldest first, after the id
 * `afterId`: the items of a FEP-7888 context collection. Uses statuses_conversation.
 */
export function publicConversationUris(db: DB, conversationId: Id, afterId: Id, limit: number): { id: Id; uri: string }[] {
  const rows = stmt(
    db,
    `SELECT id, uri FROM statuses
     WHERE conversation_id = @c AND id > @after AND deleted_at IS NULL AND reblog_of_id IS NULL
       AND visibility IN ('public', 'unlisted')
     ORDER BY id LIMIT @limit`,
  ).all({ c: BigInt(conversationId), after: BigInt(afterId), limit }) as Row[];
  return rows.map((r) => ({ id: str(r.id), uri: r.uri as string }));
}
