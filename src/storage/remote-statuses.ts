import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type Account, rowToAccount } from "./accounts.ts";

// SQL that only remote statuses need (federation/remote-statuses.ts and the thread job).

export function isStatusIdTaken(db: DB, id: Id): boolean {
  return !!stmt(db, "SELECT 1 FROM statuses WHERE id = ?").get(BigInt(id));
}

/** Local accounts among actor uris (addressing): one query. */
export function findLocalAccountsByUris(db: DB, uris: string[]): Account[] {
  if (uris.length === 0) return [];
  const rows = stmt(db, "SELECT * FROM accounts WHERE uri IN (SELECT value FROM json_each(?)) AND domain IS NULL").all(
    JSON.stringify(uris),
  ) as Row[];
  return rows.map(rowToAccount);
}

/** True when a local user follows the account (AP §4.3 acceptance filter; remote boosts, §5.7). */
export function hasLocalFollowers(db: DB, accountId: Id): boolean {
  return !!stmt(
    db,
    "SELECT 1 FROM follows f JOIN users u ON u.account_id = f.account_id WHERE f.target_account_id = ? LIMIT 1",
  ).get(BigInt(accountId));
}

/**
 * A mention that gives access without being shown or notified (AP §4.3): an addressee that is
 * not Mention-tagged, the owner of the personal inbox it came through. An existing mention
 * keeps its state.
 */
export function insertSilentMention(db: DB, m: { id: Id; statusId: Id; accountId: Id; createdAt: number }): void {
  stmt(
    db,
    `INSERT INTO mentions (id, status_id, account_id, silent, created_at) VALUES (@id, @statusId, @accountId, 1, @createdAt)
     ON CONFLICT (status_id, account_id) DO NOTHING`,
  ).run({ id: BigInt(m.id), statusId: BigInt(m.statusId), accountId: BigInt(m.accountId), createdAt: m.createdAt });
}

/** The conversation grouping a remote thread by its `context`/`conversation` uri, created on first use. */
export function conversationForUri(db: DB, uri: string, newId: Id, createdAt: number): Id {
  const r = stmt(
    db,
    `INSERT INTO conversations (id, uri, created_at) VALUES (@id, @uri, @createdAt)
     ON CONFLICT (uri) WHERE uri IS NOT NULL DO UPDATE SET uri = excluded.uri RETURNING id`,
  ).get({ id: BigInt(newId), uri, createdAt }) as Row;
  return str(r.id);
}

/** A reply whose parent arrived later joins its thread (the reply's own counters are unchanged). */
export function linkReplyToParent(db: DB, statusId: Id, parent: { id: Id; accountId: Id; conversationId: Id | null }): void {
  stmt(
    db,
    `UPDATE statuses SET in_reply_to_id = @parentId, in_reply_to_account_id = @parentAccountId,
       conversation_id = coalesce(@conversationId, conversation_id)
     WHERE id = @id`,
  ).run({
    id: BigInt(statusId),
    parentId: BigInt(parent.id),
    parentAccountId: BigInt(parent.accountId),
    conversationId: parent.conversationId === null ? null : BigInt(parent.conversationId),
  });
}

/** The origin's likes/shares counts (untrusted, AP §4.2); null leaves a count as it is. */
export function updateUntrustedCounts(db: DB, statusId: Id, favourites: number | null, reblogs: number | null): void {
  stmt(
    db,
    `UPDATE statuses SET untrusted_favourites_count = coalesce(@favourites, untrusted_favourites_count),
       untrusted_reblogs_count = coalesce(@reblogs, untrusted_reblogs_count) WHERE id = @id`,
  ).run({ id: BigInt(statusId), favourites, reblogs });
}

/** Sensitive flag and language of a remote status changed without a new revision (AP §5.2). */
export function updateRemoteStatusFlags(db: DB, statusId: Id, f: { sensitive: boolean; language: string | null }): void {
  stmt(db, "UPDATE statuses SET sensitive = @sensitive, language = @language WHERE id = @id").run({
    id: BigInt(statusId),
    sensitive: f.sensitive ? 1 : 0,
    language: f.language,
  });
}
