import type { App } from "../app.ts";
import type { Account } from "../storage/accounts.ts";
import type { Report, ReportCategory } from "../storage/reports.ts";
import { type ApiAccount, toApiAccount } from "./account.ts";

/** Mastodon's Report entity (the user-facing one). */
export interface ApiReport {
  id: string;
  action_taken: boolean;
  action_taken_at: string | null;
  category: ReportCategory;
  comment: string;
  forwarded: boolean;
  created_at: string;
  status_ids: string[] | null;
  rule_ids: string[] | null;
  collection_ids: string[];
  target_account: ApiAccount;
}

export function toApiReport(app: App, report: Report, target: Account): ApiReport {
  return {
    id: report.id,
    action_taken: report.actionTakenAt !== null,
    action_taken_at: report.actionTakenAt !== null ? new Date(report.actionTakenAt).toISOString() : null,
    category: report.category,
    comment: report.comment,
    forwarded: report.forwarded,
    created_at: new Date(report.createdAt).toISOString(),
    status_ids: report.statusIds.length ? report.statusIds : null,
    rule_ids: report.ruleIds.length ? report.ruleIds : null,
    collection_ids: [],
    target_account: toApiAccount(app, target),
  };
}
