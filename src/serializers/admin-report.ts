// https://docs.joinmastodon.org/entities/Admin_Report/ (entities-admin.md § Admin::Report)
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { isoTime } from "../lib/iso-time.ts";
import type { Report } from "../storage/reports.ts";
import { listRules } from "../storage/rules.ts";
import { findStatusesByIds } from "../storage/statuses.ts";
import { type ApiAdminAccount, adminAccountsById } from "./admin-account.ts";
import { type ApiRule, toApiRule } from "./rule.ts";
import { type ApiStatus, toApiStatuses } from "./status.ts";

export interface ApiAdminReport {
  id: string;
  action_taken: boolean;
  action_taken_at: string | null;
  category: string;
  comment: string;
  forwarded: boolean;
  created_at: string;
  updated_at: string;
  account: ApiAdminAccount;
  target_account: ApiAdminAccount;
  assigned_account: ApiAdminAccount | null;
  action_taken_by_account: ApiAdminAccount | null;
  statuses: ApiStatus[];
  rules: ApiRule[];
}

/**
 * A page of Admin::Report entities in input order: the accounts of the whole page in one
 * batch, the statuses as the moderator sees them (whatever their visibility).
 */
export function toApiAdminReports(app: App, reports: Report[], viewerId: Id): ApiAdminReport[] {
  if (reports.length === 0) return [];
  const accountIds = reports.flatMap((r) => [r.accountId, r.targetAccountId, r.assignedAccountId, r.actionTakenByAccountId].filter((x): x is Id => x !== null));
  const accounts = adminAccountsById(app, accountIds);
  const statuses = findStatusesByIds(app.db, reports.flatMap((r) => r.statusIds));
  const rendered = new Map<Id, ApiStatus>();
  const list = [...statuses.values()];
  toApiStatuses(app, list, viewerId).forEach((s, i) => rendered.set(list[i].id, s));
  const rules = new Map(listRules(app.db).map((r) => [r.id, r]));
  return reports.map((r) => ({
    id: r.id,
    action_taken: r.actionTakenAt !== null,
    action_taken_at: r.actionTakenAt === null ? null : isoTime(r.actionTakenAt),
    category: r.category,
    comment: r.comment,
    forwarded: r.forwarded,
    created_at: isoTime(r.createdAt),
    updated_at: isoTime(r.updatedAt),
    account: accounts.get(r.accountId)!,
    target_account: accounts.get(r.targetAccountId)!,
    assigned_account: r.assignedAccountId ? (accounts.get(r.assignedAccountId) ?? null) : null,
    action_taken_by_account: r.actionTakenByAccountId ? (accounts.get(r.actionTakenByAccountId) ?? null) : null,
    statuses: r.statusIds.flatMap((id) => (rendered.has(id) ? [rendered.get(id)!] : [])),
    rules: r.ruleIds.flatMap((id) => (rules.has(id) ? [toApiRule(rules.get(id)!)] : [])),
  }));
}

export function toApiAdminReport(app: App, report: Report, viewerId: Id): ApiAdminReport {
  return toApiAdminReports(app, [report], viewerId)[0];
}
