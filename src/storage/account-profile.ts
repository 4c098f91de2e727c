import { type DB, type Row, stmt, num, json, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { rowToUser, type User } from "./users.ts";

// Account reads and writes used by the accounts API beyond storage/accounts.ts: plain-text
// profile fields (migration 0003), batched user lookups, the follow-request count.

export interface FieldSource {
  name: string;
  value: string;
}

export function findFieldSources(db: DB, accountId: Id): FieldSource[] {
  const r = stmt(db, "SELECT fields_source FROM accounts WHERE id = ?").get(BigInt(accountId)) as Row | undefined;
  return r ? json<FieldSource[]>(r.fields_source, []) : [];
}

export function updateFieldSources(db: DB, accountId: Id, fields: FieldSource[]): void {
  stmt(db, "UPDATE accounts SET fields_source = ? WHERE id = ?").run(JSON.stringify(fields), BigInt(accountId));
}

/** Users of local accounts, keyed by account id, in one query (roles, noindex, hidden states). */
export function findUsersByAccountIds(db: DB, accountIds: Iterable<Id>): Map<Id, User> {
  const out = new Map<Id, User>();
  const list = idListJson(accountIds);
  if (list === "[]") return out;
  const rows = stmt(db, "SELECT * FROM users WHERE account_id IN (SELECT value FROM json_each(?))").all(list) as Row[];
  for (const r of rows) {
    const u = rowToUser(r);
    out.set(u.accountId, u);
  }
  return out;
}

/** Pending follow requests to the account from non-suspended accounts, counted up to `cap`. */
export function countFollowRequestsTo(db: DB, accountId: Id, cap: number): number {
  const r = stmt(
    db,
    `SELECT count(*) AS n FROM (
       SELECT 1 FROM follow_requests fr JOIN accounts a ON a.id = fr.account_id
       WHERE fr.target_account_id = ? AND a.suspended_at IS NULL LIMIT ?)`,
  ).get(BigInt(accountId), cap) as Row;
  return num(r.n);
}
