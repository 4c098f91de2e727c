// https://docs.joinmastodon.org/methods/reports/
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { requireUser } from "../../../auth.ts";
import { readAppParams } from "../../../params.ts";
import { toApiReport } from "../../../../serializers/report.ts";
import { createReport } from "../../../../services/reports.ts";

export function registerReportsRoutes(app: App, r: Router): void {
  r.post("/api/v1/reports", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "write", "write:reports");
    const { report, target } = createReport(app, viewer.account, {
      accountId: p.str("account_id"),
      statusIds: p.strArray("status_ids", { allowScalar: true }) ?? [],
      comment: p.str("comment") ?? "",
      forward: p.bool("forward") ?? false,
      category: p.str("category")?.trim(),
      ruleIds: p.strArray("rule_ids", { allowScalar: true }) ?? [],
    });
    return toApiReport(app, report, target);
  });
}
