import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

/**
 * The uris of a thread's public and unlisted posts (no boosts, none by suspended accounts),
 * oldest first, after the id `afterId`: the items of a FEP-7888 context collection.
 */
export function publicConversationUris(db: DB, conversationId: Id, afterId: Id, limit: number): { id: Id; uri: string }[] {
  const rows = stmt(
    db,
    `SELECT s.id, s.uri FROM statuses s JOIN accounts a ON a.id = s.account_id
     WHERE s.conversation_id = @c AND s.id > @after AND s.deleted_at IS NULL AND s.reblog_of_id IS NULL
       AND s.visibility IN ('public', 'unlisted') AND a.suspended_at IS NULL
     ORDER BY s.id LIMIT @limit`,
  ).all({ c: BigInt(conversationId), after: BigInt(afterId), limit }) as Row[];
  return rows.map((r) => ({ id: str(r.id), uri: r.uri as string }));
}
