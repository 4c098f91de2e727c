import { type DB, type Row, stmt, str, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type Account, rowToAccount } from "./accounts.ts";

// Mentions of a status. A mention removed by an edit is kept `silent` (Mastodon does the same):
// it still addresses the account (a direct post stays visible to it) but is no longer shown.

export function insertMention(db: DB, m: { id: Id; statusId: Id; accountId: Id; createdAt: number }): void {
  stmt(
    db,
    `INSERT INTO mentions (id, status_id, account_id, silent, created_at) VALUES (@id, @statusId, @accountId, 0, @createdAt)
     ON CONFLICT (status_id, account_id) DO UPDATE SET silent = 0`,
  ).run({ id: BigInt(m.id), statusId: BigInt(m.statusId), accountId: BigInt(m.accountId), createdAt: m.createdAt });
}

/** Account ids with an active (shown) mention in the status. */
export function activeMentionAccountIds(db: DB, statusId: Id): Id[] {
  const rows = stmt(db, "SELECT account_id FROM mentions WHERE status_id = ? AND silent = 0 ORDER BY id").all(BigInt(statusId)) as Row[];
  return rows.map((r) => str(r.account_id));
}

/** Silences the status's mentions of accounts not in `keep` (an edit removed them from the text). */
export function silenceMentionsExcept(db: DB, statusId: Id, keep: Id[]): void {
  stmt(
    db,
    "UPDATE mentions SET silent = 1 WHERE status_id = @id AND silent = 0 AND account_id NOT IN (SELECT value FROM json_each(@keep))",
  ).run({ id: BigInt(statusId), keep: idListJson(keep) });
}

/** Shown mentions of several statuses with their accounts, in mention order; one query. */
export function findMentionedAccounts(db: DB, statusIds: Iterable<Id>): Map<Id, Account[]> {
  const out = new Map<Id, Account[]>();
  const json = idListJson(statusIds);
  if (json === "[]") return out;
  const rows = stmt(
    db,
    `SELECT m.status_id AS mention_status_id, a.* FROM mentions m JOIN accounts a ON a.id = m.account_id
     WHERE m.status_id IN (SELECT value FROM json_each(?)) AND m.silent = 0 ORDER BY m.id`,
  ).all(json) as Row[];
  for (const r of rows) {
    const sid = str(r.mention_status_id);
    let list = out.get(sid);
    if (!list) out.set(sid, (list = []));
    list.push(rowToAccount(r));
  }
  return out;
}

/** Status ids among `statusIds` that mention `accountId` (silent mentions included: they address). */
export function statusesMentioning(db: DB, accountId: Id, statusIds: Iterable<Id>): Set<Id> {
  const rows = stmt(
    db,
    "SELECT status_id FROM mentions WHERE account_id = ? AND status_id IN (SELECT value FROM json_each(?))",
  ).all(BigInt(accountId), idListJson(statusIds)) as Row[];
  return new Set(rows.map((r) => str(r.status_id)));
}
