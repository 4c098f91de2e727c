import { type DB, type Row, idListJson, stmt, str, strOrNull, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Account warnings ("strikes", Mastodon's AccountWarning) and their presets (migration 0031).

export type WarningAction = "none" | "disable" | "mark_statuses_as_sensitive" | "delete_statuses" | "sensitive" | "silence" | "suspend";

export interface AccountWarning {
  id: Id;
  /** The moderator (null once their account is gone). */
  accountId: Id | null;
  targetAccountId: Id;
  action: WarningAction;
  text: string;
  reportId: Id | null;
  statusIds: Id[] | null;
  createdAt: number;
}

function rowToWarning(r: Row): AccountWarning {
  return {
    id: str(r.id),
    accountId: strOrNull(r.account_id),
    targetAccountId: str(r.target_account_id),
    action: r.action as WarningAction,
    text: r.text as string,
    reportId: strOrNull(r.report_id),
    statusIds: r.status_ids === null ? null : (JSON.parse(r.status_ids as string) as Id[]),
    createdAt: num(r.created_at),
  };
}

export function insertAccountWarning(db: DB, w: AccountWarning): void {
  stmt(
    db,
    `INSERT INTO account_warnings (id, account_id, target_account_id, action, text, report_id, status_ids, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    BigInt(w.id),
    w.accountId === null ? null : BigInt(w.accountId),
    BigInt(w.targetAccountId),
    w.action,
    w.text,
    w.reportId === null ? null : BigInt(w.reportId),
    w.statusIds === null ? null : JSON.stringify(w.statusIds),
    w.createdAt,
    w.createdAt,
  );
}

export function findAccountWarningsByIds(db: DB, ids: Iterable<Id>): Map<Id, AccountWarning> {
  const out = new Map<Id, AccountWarning>();
  const list = idListJson(ids);
  if (list === "[]") return out;
  for (const r of stmt(db, "SELECT * FROM account_warnings WHERE id IN (SELECT value FROM json_each(?))").all(list) as Row[]) {
    const w = rowToWarning(r);
    out.set(w.id, w);
  }
  return out;
}

/** An account's warnings, newest first. */
export function listAccountWarnings(db: DB, targetAccountId: Id): AccountWarning[] {
  return (stmt(db, "SELECT * FROM account_warnings WHERE target_account_id = ? ORDER BY id DESC").all(BigInt(targetAccountId)) as Row[]).map(rowToWarning);
}

export interface WarningPreset {
  id: Id;
  title: string;
  text: string;
  createdAt: number;
}

const rowToPreset = (r: Row): WarningPreset => ({ id: str(r.id), title: r.title as string, text: r.text as string, createdAt: num(r.created_at) });

export function insertWarningPreset(db: DB, p: WarningPreset): void {
  stmt(db, "INSERT INTO account_warning_presets (id, title, text, created_at, updated_at) VALUES (?, ?, ?, ?, ?)").run(BigInt(p.id), p.title, p.text, p.createdAt, p.createdAt);
}

export function findWarningPreset(db: DB, id: Id): WarningPreset | undefined {
  if (!/^[0-9]{1,19}$/.test(id)) return undefined;
  const r = stmt(db, "SELECT * FROM account_warning_presets WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToPreset(r);
}

export function listWarningPresets(db: DB): WarningPreset[] {
  return (stmt(db, "SELECT * FROM account_warning_presets ORDER BY title, id").all() as Row[]).map(rowToPreset);
}

export function deleteWarningPreset(db: DB, id: Id): void {
  stmt(db, "DELETE FROM account_warning_presets WHERE id = ?").run(BigInt(id));
}
