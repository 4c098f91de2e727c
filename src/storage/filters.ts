import { type DB, type Row, bool, idListJson, json, num, numOrNull, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Keyword filters (migration 0024): a filter, its keywords and the statuses it names.

export type FilterAction = "warn" | "hide" | "blur";
export type FilterContext = "home" | "notifications" | "public" | "thread" | "account";

export interface Filter {
  id: Id;
  accountId: Id;
  title: string;
  context: FilterContext[];
  action: FilterAction;
  /** ms; null: never expires. */
  expiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface FilterKeyword {
  id: Id;
  filterId: Id;
  keyword: string;
  wholeWord: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface FilterStatus {
  id: Id;
  filterId: Id;
  statusId: Id;
  createdAt: number;
}

function rowToFilter(r: Row): Filter {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    title: r.title as string,
    context: json<FilterContext[]>(r.context, []),
    action: r.action as FilterAction,
    expiresAt: numOrNull(r.expires_at),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

function rowToKeyword(r: Row): FilterKeyword {
  return {
    id: str(r.id),
    filterId: str(r.filter_id),
    keyword: r.keyword as string,
    wholeWord: bool(r.whole_word),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

function rowToFilterStatus(r: Row): FilterStatus {
  return { id: str(r.id), filterId: str(r.filter_id), statusId: str(r.status_id), createdAt: num(r.created_at) };
}

const filterParams = (f: Filter) => ({
  id: BigInt(f.id),
  account: BigInt(f.accountId),
  title: f.title,
  context: JSON.stringify(f.context),
  action: f.action,
  expiresAt: f.expiresAt,
  createdAt: f.createdAt,
  updatedAt: f.updatedAt,
});

export function insertFilter(db: DB, f: Filter): void {
  stmt(
    db,
    `INSERT INTO filters (id, account_id, title, context, action, expires_at, created_at, updated_at)
     VALUES (@id, @account, @title, @context, @action, @expiresAt, @createdAt, @updatedAt)`,
  ).run(filterParams(f));
}

export function updateFilter(db: DB, f: Filter): void {
  stmt(
    db,
    `UPDATE filters SET title = @title, context = @context, action = @action, expires_at = @expiresAt,
       updated_at = @updatedAt WHERE id = @id AND account_id = @account`,
  ).run(filterParams(f));
}

/** Its keywords and statuses go with it. */
export function deleteFilter(db: DB, id: Id): void {
  stmt(db, "DELETE FROM filters WHERE id = ?").run(BigInt(id));
}

export function findFilterOf(db: DB, accountId: Id, id: Id): Filter | undefined {
  const r = stmt(db, "SELECT * FROM filters WHERE id = ? AND account_id = ?").get(BigInt(id), BigInt(accountId)) as Row | undefined;
  return r && rowToFilter(r);
}

export function listFiltersOf(db: DB, accountId: Id): Filter[] {
  return (stmt(db, "SELECT * FROM filters WHERE account_id = ? ORDER BY id").all(BigInt(accountId)) as Row[]).map(rowToFilter);
}

export function countFiltersOf(db: DB, accountId: Id): number {
  return num((stmt(db, "SELECT count(*) AS n FROM filters WHERE account_id = ?").get(BigInt(accountId)) as Row).n);
}

/** The filters that apply now (no expiry, or one still ahead), by id. */
export function listActiveFiltersOf(db: DB, accountId: Id, now: number): Filter[] {
  return (
    stmt(db, "SELECT * FROM filters WHERE account_id = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY id").all(
      BigInt(accountId),
      now,
    ) as Row[]
  ).map(rowToFilter);
}

const keywordParams = (k: FilterKeyword) => ({
  id: BigInt(k.id),
  filter: BigInt(k.filterId),
  keyword: k.keyword,
  wholeWord: k.wholeWord ? 1 : 0,
  createdAt: k.createdAt,
  updatedAt: k.updatedAt,
});

export function insertFilterKeyword(db: DB, k: FilterKeyword): void {
  stmt(
    db,
    `INSERT INTO filter_keywords (id, filter_id, keyword, whole_word, created_at, updated_at)
     VALUES (@id, @filter, @keyword, @wholeWord, @createdAt, @updatedAt)`,
  ).run(keywordParams(k));
}

export function updateFilterKeyword(db: DB, k: FilterKeyword): void {
  stmt(db, "UPDATE filter_keywords SET keyword = @keyword, whole_word = @wholeWord, updated_at = @updatedAt WHERE id = @id").run(
    keywordParams(k),
  );
}

export function deleteFilterKeyword(db: DB, id: Id): void {
  stmt(db, "DELETE FROM filter_keywords WHERE id = ?").run(BigInt(id));
}

/** A keyword of one of the account's filters, with its filter. */
export function findKeywordOf(db: DB, accountId: Id, id: Id): { keyword: FilterKeyword; filter: Filter } | undefined {
  const r = stmt(
    db,
    `SELECT k.id AS k_id, k.keyword, k.whole_word, k.created_at AS k_created_at, k.updated_at AS k_updated_at, f.*
     FROM filter_keywords k JOIN filters f ON f.id = k.filter_id WHERE k.id = ? AND f.account_id = ?`,
  ).get(BigInt(id), BigInt(accountId)) as Row | undefined;
  if (!r) return undefined;
  const keyword = rowToKeyword({ ...r, id: r.k_id, filter_id: r.id, created_at: r.k_created_at, updated_at: r.k_updated_at });
  return { keyword, filter: rowToFilter(r) };
}

/** The keywords of these filters, each list in id order. */
export function listKeywordsOfFilters(db: DB, filterIds: Id[]): Map<Id, FilterKeyword[]> {
  const out = new Map<Id, FilterKeyword[]>();
  if (filterIds.length === 0) return out;
  const rows = stmt(db, "SELECT * FROM filter_keywords WHERE filter_id IN (SELECT value FROM json_each(?)) ORDER BY id").all(
    idListJson(filterIds),
  ) as Row[];
  for (const r of rows) {
    const k = rowToKeyword(r);
    let list = out.get(k.filterId);
    if (!list) out.set(k.filterId, (list = []));
    list.push(k);
  }
  return out;
}

export function countKeywordsOfFilter(db: DB, filterId: Id): number {
  return num((stmt(db, "SELECT count(*) AS n FROM filter_keywords WHERE filter_id = ?").get(BigInt(filterId)) as Row).n);
}

export function countKeywordsOfAccount(db: DB, accountId: Id): number {
  return num(
    (
      stmt(db, "SELECT count(*) AS n FROM filter_keywords k JOIN filters f ON f.id = k.filter_id WHERE f.account_id = ?").get(
        BigInt(accountId),
      ) as Row
    ).n,
  );
}

export function insertFilterStatus(db: DB, s: FilterStatus): void {
  stmt(db, "INSERT INTO filter_statuses (id, filter_id, status_id, created_at) VALUES (?, ?, ?, ?)").run(
    BigInt(s.id),
    BigInt(s.filterId),
    BigInt(s.statusId),
    s.createdAt,
  );
}

export function deleteFilterStatus(db: DB, id: Id): void {
  stmt(db, "DELETE FROM filter_statuses WHERE id = ?").run(BigInt(id));
}

export function filterStatusExists(db: DB, filterId: Id, statusId: Id): boolean {
  return stmt(db, "SELECT 1 FROM filter_statuses WHERE filter_id = ? AND status_id = ?").get(BigInt(filterId), BigInt(statusId)) !== undefined;
}

/** A status entry of one of the account's filters, with its filter's id. */
export function findFilterStatusOf(db: DB, accountId: Id, id: Id): FilterStatus | undefined {
  const r = stmt(
    db,
    `SELECT s.* FROM filter_statuses s JOIN filters f ON f.id = s.filter_id WHERE s.id = ? AND f.account_id = ?`,
  ).get(BigInt(id), BigInt(accountId)) as Row | undefined;
  return r && rowToFilterStatus(r);
}

/** The status entries of these filters, each list in id order. */
export function listStatusesOfFilters(db: DB, filterIds: Id[]): Map<Id, FilterStatus[]> {
  const out = new Map<Id, FilterStatus[]>();
  if (filterIds.length === 0) return out;
  const rows = stmt(db, "SELECT * FROM filter_statuses WHERE filter_id IN (SELECT value FROM json_each(?)) ORDER BY id").all(
    idListJson(filterIds),
  ) as Row[];
  for (const r of rows) {
    const s = rowToFilterStatus(r);
    let list = out.get(s.filterId);
    if (!list) out.set(s.filterId, (list = []));
    list.push(s);
  }
  return out;
}

export function countFilterStatusesOfAccount(db: DB, accountId: Id): number {
  return num(
    (
      stmt(db, "SELECT count(*) AS n FROM filter_statuses s JOIN filters f ON f.id = s.filter_id WHERE f.account_id = ?").get(
        BigInt(accountId),
      ) as Row
    ).n,
  );
}
