import { type DB, type Row, stmt, str, strOrNull, num, numOrNull, bool, json, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Reports (Mastodon's Report): by local users (POST /api/v1/reports) and from remote Flags.

export type ReportCategory = "spam" | "legal" | "violation" | "other";

export interface Report {
  id: Id;
  /** The reporter: a local user's account, or the remote account (often an instance actor) that sent the Flag. */
  accountId: Id;
  targetAccountId: Id;
  statusIds: Id[];
  ruleIds: Id[];
  comment: string;
  category: ReportCategory;
  forwarded: boolean;
  /** The Flag's id, sent or received. */
  uri: string | null;
  actionTakenAt: number | null;
  /** Who resolved it (migration 0031). */
  actionTakenByAccountId: Id | null;
  assignedAccountId: Id | null;
  createdAt: number;
  updatedAt: number;
}

function rowToReport(r: Row): Report {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    targetAccountId: str(r.target_account_id),
    statusIds: json<Id[]>(r.status_ids, []),
    ruleIds: json<Id[]>(r.rule_ids, []),
    comment: r.comment as string,
    category: r.category as ReportCategory,
    forwarded: bool(r.forwarded),
    uri: (r.uri as string | null) ?? null,
    actionTakenAt: numOrNull(r.action_taken_at),
    actionTakenByAccountId: strOrNull(r.action_taken_by_account_id),
    assignedAccountId: strOrNull(r.assigned_account_id),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** Reports by id, one query (notification pages). */
export function findReportsByIds(db: DB, ids: Iterable<Id>): Map<Id, Report> {
  const out = new Map<Id, Report>();
  const list = idListJson(ids);
  if (list === "[]") return out;
  for (const r of stmt(db, "SELECT * FROM reports WHERE id IN (SELECT value FROM json_each(?))").all(list) as Row[]) {
    const report = rowToReport(r);
    out.set(report.id, report);
  }
  return out;
}

export type NewReport = Omit<Report, "actionTakenAt" | "actionTakenByAccountId" | "assignedAccountId" | "updatedAt">;

export function insertReport(db: DB, r: NewReport): void {
  stmt(
    db,
    `INSERT INTO reports (id, account_id, target_account_id, status_ids, rule_ids, comment, category, forwarded, uri,
       created_at, updated_at)
     VALUES (@id, @accountId, @targetId, @statusIds, @ruleIds, @comment, @category, @forwarded, @uri, @createdAt, @createdAt)`,
  ).run({
    id: BigInt(r.id),
    accountId: BigInt(r.accountId),
    targetId: BigInt(r.targetAccountId),
    // Ids are kept as JSON strings: never JS numbers.
    statusIds: JSON.stringify(r.statusIds),
    ruleIds: JSON.stringify(r.ruleIds),
    comment: r.comment,
    category: r.category,
    forwarded: r.forwarded ? 1 : 0,
    uri: r.uri,
    createdAt: r.createdAt,
  });
}

export function findReportById(db: DB, id: Id): Report | undefined {
  const r = stmt(db, "SELECT * FROM reports WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToReport(r);
}

export function findReportByUri(db: DB, uri: string): Report | undefined {
  const r = stmt(db, "SELECT * FROM reports WHERE uri = ?").get(uri) as Row | undefined;
  return r && rowToReport(r);
}

/** Reports about an account, oldest first (moderation views, tests). */
export function listReportsAbout(db: DB, targetAccountId: Id): Report[] {
  const rows = stmt(db, "SELECT * FROM reports WHERE target_account_id = ? ORDER BY id").all(BigInt(targetAccountId)) as Row[];
  return rows.map(rowToReport);
}
