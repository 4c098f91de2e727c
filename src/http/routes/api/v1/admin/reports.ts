// https://docs.joinmastodon.org/methods/admin/reports/ — list, show, update, assign_to_self,
// unassign, resolve, reopen (endpoints-admin.md §2). Notes are CLI-only (Mastodon has no REST).
import { getRouterParam } from "h3";
import type { App } from "../../../../../app.ts";
import type { Router } from "../../../../router.ts";
import type { Actor } from "../../../../../admin/actor.ts";
import {
  assignReportToSelf,
  listReportsForModeration,
  reopenReport,
  type Report,
  type ReportFilter,
  requireReport,
  resolveReport,
  unassignReport,
  updateReport,
} from "../../../../../admin/reports.ts";
import { toApiAdminReport, toApiAdminReports } from "../../../../../serializers/admin-report.ts";
import { adminScopes, requirePermission } from "../../../../admin-auth.ts";
import { pageParams, setLinkHeader } from "../../../../pagination.ts";
import { type Params, readAppParams } from "../../../../params.ts";

const READ = adminScopes("read", "reports");
const WRITE = adminScopes("write", "reports");
const KEYS = ["resolved", "unresolved", "account_id", "target_account_id", "by_target_domain", "target_origin"];

/** ReportFilter: unresolved by default, resolved with `resolved`, both with both. */
function filterOf(p: Params): Omit<ReportFilter, "limit"> {
  const resolved = p.bool("resolved") === true;
  const unresolved = p.bool("unresolved") === true;
  const text = (k: string) => p.str(k)?.trim() || undefined;
  const origin = text("target_origin");
  return {
    state: resolved && unresolved ? "all" : resolved ? "resolved" : "unresolved",
    accountId: text("account_id"),
    targetAccountId: text("target_account_id"),
    byTargetDomain: text("by_target_domain"),
    targetOrigin: origin === "local" || origin === "remote" ? origin : undefined,
  };
}

export function registerAdminReportsRoutes(app: App, r: Router): void {
  r.get("/api/v1/admin/reports", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, READ, "manage_reports");
    const k = pageParams(p, 100, 200);
    const reports = listReportsForModeration(app, actor, { ...filterOf(p), ...k });
    setLinkHeader(app, event, p, { cursors: reports.map((x) => x.id), limit: k.limit, keep: KEYS });
    return toApiAdminReports(app, reports, actor.account.id);
  });

  r.get("/api/v1/admin/reports/:id", (event) => {
    const actor = requirePermission(app, event, READ, "manage_reports");
    return toApiAdminReport(app, requireReport(app, getRouterParam(event, "id")), actor.account.id);
  });

  r.put("/api/v1/admin/reports/:id", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, WRITE, "manage_reports");
    const report = requireReport(app, getRouterParam(event, "id"));
    const updated = updateReport(app, actor, report, { category: p.str("category"), ruleIds: p.strArray("rule_ids", { allowScalar: true, max: 100 }) });
    return toApiAdminReport(app, updated, actor.account.id);
  });

  const transition = (path: string, fn: (actor: Actor, report: Report) => Report) =>
    r.post(`/api/v1/admin/reports/:id/${path}`, async (event) => {
      await readAppParams(app, event);
      const actor = requirePermission(app, event, WRITE, "manage_reports");
      return toApiAdminReport(app, fn(actor, requireReport(app, getRouterParam(event, "id"))), actor.account.id);
    });
  transition("assign_to_self", (actor, report) => assignReportToSelf(app, actor, report));
  transition("unassign", (actor, report) => unassignReport(app, actor, report));
  transition("resolve", (actor, report) => resolveReport(app, actor, report));
  transition("reopen", (actor, report) => reopenReport(app, actor, report));
}
