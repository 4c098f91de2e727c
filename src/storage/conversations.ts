import { type DB, stmt } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Threads (statuses.conversation_id) and their mutes. The DM view of a thread
// (account_conversations) belongs to the timelines package.

export function insertConversation(db: DB, c: { id: Id; uri: string | null; createdAt: number }): void {
  stmt(db, "INSERT INTO conversations (id, uri, created_at) VALUES (@id, @uri, @createdAt)").run({
    id: BigInt(c.id),
    uri: c.uri,
    createdAt: c.createdAt,
  });
}

export function muteConversation(db: DB, accountId: Id, conversationId: Id): void {
  stmt(db, "INSERT OR IGNORE INTO conversation_mutes (account_id, conversation_id) VALUES (?, ?)").run(BigInt(accountId), BigInt(conversationId));
}

export function unmuteConversation(db: DB, accountId: Id, conversationId: Id): void {
  stmt(db, "DELETE FROM conversation_mutes WHERE account_id = ? AND conversation_id = ?").run(BigInt(accountId), BigInt(conversationId));
}
