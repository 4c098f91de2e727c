import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import type { ReportCategory } from "./reports.ts";

// What moderators do to reports (Mastodon's Admin::ReportsController, ReportFilter): the
// listing, the resolution and assignment columns, category and rules (migration 0031).

export interface ReportFilter {
  /** resolved / unresolved / both (Mastodon's default: unresolved only). */
  state: "unresolved" | "resolved" | "all";
  accountId?: Id;
  targetAccountId?: Id;
  byTargetDomain?: string;
  targetOrigin?: "local" | "remote";
  maxId?: Id;
  sinceId?: Id;
  minId?: Id;
  limit: number;
}

const idParam = (v: string) => (/^[0-9]{1,19}$/.test(v) ? BigInt(v) : -1n);

/** Ids of the matching reports, newest first. */
export function filterReportIds(db: DB, f: ReportFilter): Id[] {
  const where: string[] = [];
  const params: Record<string, unknown> = { limit: BigInt(f.limit) };
  if (f.state === "unresolved") where.push("r.action_taken_at IS NULL");
  else if (f.state === "resolved") where.push("r.action_taken_at IS NOT NULL");
  if (f.accountId !== undefined) {
    where.push("r.account_id = @accountId");
    params.accountId = idParam(f.accountId);
  }
  if (f.targetAccountId !== undefined) {
    where.push("r.target_account_id = @targetAccountId");
    params.targetAccountId = idParam(f.targetAccountId);
  }
  if (f.byTargetDomain !== undefined) {
    where.push("r.target_account_id IN (SELECT id FROM accounts WHERE lower(domain) = lower(@domain))");
    params.domain = f.byTargetDomain;
  } else if (f.targetOrigin) {
    where.push(`r.target_account_id IN (SELECT id FROM accounts WHERE domain IS ${f.targetOrigin === "local" ? "" : "NOT "}NULL)`);
  }
  let order = "DESC";
  if (f.maxId) {
    where.push("r.id < @maxId");
    params.maxId = BigInt(f.maxId);
  }
  if (f.minId) {
    where.push("r.id > @minId");
    params.minId = BigInt(f.minId);
    order = "ASC";
  } else if (f.sinceId) {
    where.push("r.id > @sinceId");
    params.sinceId = BigInt(f.sinceId);
  }
  const sql = `SELECT r.id FROM reports r ${where.length ? "WHERE " + where.join(" AND ") : ""} ORDER BY r.id ${order} LIMIT @limit`;
  const ids = (stmt(db, sql).all(params) as Row[]).map((r) => str(r.id));
  return order === "ASC" ? ids.reverse() : ids;
}

/** Unresolved reports about an account (an account action resolves them all). */
export function unresolvedReportIdsAbout(db: DB, targetAccountId: Id): Id[] {
  return (stmt(db, "SELECT id FROM reports WHERE target_account_id = ? AND action_taken_at IS NULL ORDER BY id").all(BigInt(targetAccountId)) as Row[]).map((r) =>
    str(r.id),
  );
}

export interface ReportModerationPatch {
  actionTakenAt?: number | null;
  actionTakenByAccountId?: Id | null;
  assignedAccountId?: Id | null;
  category?: ReportCategory;
  ruleIds?: Id[];
}

const COLUMNS: Record<keyof ReportModerationPatch, string> = {
  actionTakenAt: "action_taken_at",
  actionTakenByAccountId: "action_taken_by_account_id",
  assignedAccountId: "assigned_account_id",
  category: "category",
  ruleIds: "rule_ids",
};

export function updateReportModeration(db: DB, id: Id, patch: ReportModerationPatch, now: number): void {
  const keys = (Object.keys(patch) as (keyof ReportModerationPatch)[]).filter((k) => patch[k] !== undefined);
  const params: Record<string, unknown> = { id: BigInt(id), now };
  for (const k of keys) {
    const v = patch[k];
    params[k] = k === "ruleIds" ? JSON.stringify(v) : k.endsWith("AccountId") && v !== null ? BigInt(v as string) : v;
  }
  stmt(db, `UPDATE reports SET ${[...keys.map((k) => `${COLUMNS[k]} = @${k}`), "updated_at = @now"].join(", ")} WHERE id = @id`).run(params);
}
