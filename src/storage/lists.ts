import { type DB, type Row, stmt, str, num, bool, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { rowToAccount, type Account } from "./accounts.ts";

export type RepliesPolicy = "followed" | "list" | "none";

export interface List {
  id: Id;
  accountId: Id;
  title: string;
  repliesPolicy: RepliesPolicy;
  exclusive: boolean;
  createdAt: number;
  updatedAt: number;
}

function rowToList(r: Row): List {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    title: r.title as string,
    repliesPolicy: r.replies_policy as RepliesPolicy,
    exclusive: bool(r.exclusive),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export function insertList(db: DB, l: List): void {
  stmt(
    db,
    `INSERT INTO lists (id, account_id, title, replies_policy, exclusive, created_at, updated_at)
     VALUES (@id, @account, @title, @policy, @exclusive, @createdAt, @updatedAt)`,
  ).run({
    id: BigInt(l.id),
    account: BigInt(l.accountId),
    title: l.title,
    policy: l.repliesPolicy,
    exclusive: l.exclusive ? 1 : 0,
    createdAt: l.createdAt,
    updatedAt: l.updatedAt,
  });
}

export function updateList(db: DB, l: List): void {
  stmt(db, "UPDATE lists SET title = @title, replies_policy = @policy, exclusive = @exclusive, updated_at = @updatedAt WHERE id = @id").run({
    id: BigInt(l.id),
    title: l.title,
    policy: l.repliesPolicy,
    exclusive: l.exclusive ? 1 : 0,
    updatedAt: l.updatedAt,
  });
}

/** Deleting a list cascades to its members and its feed. */
export function deleteList(db: DB, id: Id): void {
  stmt(db, "DELETE FROM lists WHERE id = ?").run(BigInt(id));
}

export function findListOf(db: DB, accountId: Id, id: Id): List | undefined {
  const r = stmt(db, "SELECT * FROM lists WHERE id = ? AND account_id = ?").get(BigInt(id), BigInt(accountId)) as Row | undefined;
  return r && rowToList(r);
}

export function listListsOf(db: DB, accountId: Id): List[] {
  return (stmt(db, "SELECT * FROM lists WHERE account_id = ? ORDER BY id").all(BigInt(accountId)) as Row[]).map(rowToList);
}

export function countListsOf(db: DB, accountId: Id): number {
  return num((stmt(db, "SELECT count(*) AS n FROM lists WHERE account_id = ?").get(BigInt(accountId)) as Row).n);
}

/** The owner's lists that contain `memberId`. */
export function listListsContaining(db: DB, ownerId: Id, memberId: Id): List[] {
  return (
    stmt(
      db,
      `SELECT l.* FROM list_accounts la JOIN lists l ON l.id = la.list_id
       WHERE la.account_id = ? AND l.account_id = ? ORDER BY l.id`,
    ).all(BigInt(memberId), BigInt(ownerId)) as Row[]
  ).map(rowToList);
}

/** Members among `accountIds` already in the list. */
export function listMembersAmong(db: DB, listId: Id, accountIds: Id[]): Set<Id> {
  const rows = stmt(
    db,
    "SELECT account_id FROM list_accounts WHERE list_id = ? AND account_id IN (SELECT value FROM json_each(?))",
  ).all(BigInt(listId), idListJson(accountIds)) as Row[];
  return new Set(rows.map((r) => str(r.account_id)));
}

export function insertListAccount(db: DB, id: Id, listId: Id, accountId: Id, now: number): void {
  stmt(db, "INSERT INTO list_accounts (id, list_id, account_id, created_at) VALUES (?, ?, ?, ?)").run(
    BigInt(id),
    BigInt(listId),
    BigInt(accountId),
    now,
  );
}

export function deleteListAccount(db: DB, listId: Id, accountId: Id): boolean {
  const r = stmt(db, "DELETE FROM list_accounts WHERE list_id = ? AND account_id = ?").run(BigInt(listId), BigInt(accountId));
  return r.changes > 0;
}

export interface MemberRow {
  cursor: Id;
  account: Account;
}

/**
 * A page of members by the hidden list_accounts id (newest first), suspended accounts left
 * out. `limit` null returns every member (limit=0 in the API).
 */
export function listMembersPage(db: DB, listId: Id, page: { limit: number | null; maxId?: Id; sinceId?: Id }): MemberRow[] {
  const rows = stmt(
    db,
    `SELECT la.id AS cursor_id, a.* FROM list_accounts la JOIN accounts a ON a.id = la.account_id
     WHERE la.list_id = @list AND la.id < @upper AND la.id > @lower AND a.suspended_at IS NULL
     ORDER BY la.id DESC LIMIT @limit`,
  ).all({
    list: BigInt(listId),
    upper: page.maxId ? BigInt(page.maxId) : 9223372036854775807n,
    lower: BigInt(page.sinceId ?? "0"),
    limit: page.limit ?? -1,
  }) as Row[];
  return rows.map((r) => ({ cursor: str(r.cursor_id), account: rowToAccount(r) }));
}

/** Of `targetIds`, those the account follows or has asked to follow. */
export function followedOrRequestedAmong(db: DB, accountId: Id, targetIds: Id[]): Set<Id> {
  const rows = stmt(
    db,
    `SELECT target_account_id AS id FROM follows WHERE account_id = @a AND target_account_id IN (SELECT value FROM json_each(@ids))
     UNION SELECT target_account_id FROM follow_requests WHERE account_id = @a AND target_account_id IN (SELECT value FROM json_each(@ids))`,
  ).all({ a: BigInt(accountId), ids: idListJson(targetIds) }) as Row[];
  return new Set(rows.map((r) => str(r.id)));
}
