import { type DB, type Row, stmt, str, strOrNull, bool, json } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

/** A direct-message conversation as one participant sees it (GET /api/v1/conversations). */
export interface AccountConversation {
  id: Id;
  accountId: Id;
  conversationId: Id;
  /** The other participants' account ids. */
  participantIds: Id[];
  lastStatusId: Id | null;
  unread: boolean;
}

function rowToAccountConversation(r: Row): AccountConversation {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    conversationId: str(r.conversation_id),
    participantIds: json<unknown[]>(r.participant_ids, []).map((x) => String(x)),
    lastStatusId: strOrNull(r.last_status_id),
    unread: bool(r.unread),
  };
}

/**
 * Records a new direct status in a participant's conversation (Mastodon's
 * AccountConversation.add_status): creates the row if needed (again after a DELETE), merges
 * the participants, moves last_status forward and sets `unread` (false for the sender).
 * Returns the row's id.
 */
export function upsertAccountConversation(
  db: DB,
  c: { id: Id; accountId: Id; conversationId: Id; participantIds: Id[]; statusId: Id; unread: boolean },
): Id {
  const existing = stmt(db, "SELECT participant_ids FROM account_conversations WHERE account_id = ? AND conversation_id = ?").get(
    BigInt(c.accountId),
    BigInt(c.conversationId),
  ) as Row | undefined;
  const merged = new Set<string>(existing ? json<unknown[]>(existing.participant_ids, []).map(String) : []);
  for (const p of c.participantIds) merged.add(p);
  merged.delete(c.accountId);
  const id = stmt(
    db,
    `INSERT INTO account_conversations (id, account_id, conversation_id, participant_ids, last_status_id, unread)
     VALUES (@id, @account, @conversation, @participants, @status, @unread)
     ON CONFLICT (account_id, conversation_id) DO UPDATE SET
       participant_ids = excluded.participant_ids,
       last_status_id = CASE WHEN last_status_id IS NULL OR excluded.last_status_id > last_status_id
                             THEN excluded.last_status_id ELSE last_status_id END,
       unread = excluded.unread
     RETURNING id`,
  )
    .pluck()
    .get({
    id: BigInt(c.id),
    account: BigInt(c.accountId),
    conversation: BigInt(c.conversationId),
    participants: JSON.stringify([...merged]),
    status: BigInt(c.statusId),
    unread: c.unread ? 1 : 0,
  });
  return str(id);
}

export interface ConversationPage {
  limit: number;
  maxId?: Id;
  sinceId?: Id;
  minId?: Id;
}

const MAX_BIGINT = 9223372036854775807n;

/**
 * A page of the account's conversations by last status id (the cursor Mastodon uses), newest
 * first; with min_id the scan goes upwards from the cursor and is reversed.
 */
export function listAccountConversations(db: DB, accountId: Id, page: ConversationPage): AccountConversation[] {
  if (page.limit <= 0) return [];
  const ascending = page.minId !== undefined;
  const p = {
    account: BigInt(accountId),
    upper: page.maxId ? BigInt(page.maxId) : MAX_BIGINT,
    lower: BigInt(page.minId ?? page.sinceId ?? "0"),
    limit: page.limit,
  };
  const sql = `SELECT * FROM account_conversations
    WHERE account_id = @account AND last_status_id < @upper AND last_status_id > @lower
    ORDER BY last_status_id ${ascending ? "ASC" : "DESC"} LIMIT @limit`;
  const rows = (stmt(db, sql).all(p) as Row[]).map(rowToAccountConversation);
  return ascending ? rows.reverse() : rows;
}

export function findAccountConversation(db: DB, accountId: Id, id: Id): AccountConversation | undefined {
  const r = stmt(db, "SELECT * FROM account_conversations WHERE id = ? AND account_id = ?").get(BigInt(id), BigInt(accountId)) as
    | Row
    | undefined;
  return r && rowToAccountConversation(r);
}

export function setAccountConversationUnread(db: DB, id: Id, unread: boolean): void {
  stmt(db, "UPDATE account_conversations SET unread = ? WHERE id = ?").run(unread ? 1 : 0, BigInt(id));
}

export function deleteAccountConversation(db: DB, id: Id): void {
  stmt(db, "DELETE FROM account_conversations WHERE id = ?").run(BigInt(id));
}
