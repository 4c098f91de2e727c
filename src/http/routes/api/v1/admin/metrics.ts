// https://docs.joinmastodon.org/methods/admin/measures/, /dimensions/, /retention/
// (endpoints-admin.md; Mastodon's Api::V1::Admin::{Measures,Dimensions,Retention}Controller:
// admin:read and the view_dashboard permission).
import type { App } from "../../../../../app.ts";
import type { Router } from "../../../../router.ts";
import { dayRange, type KeyOptions, readDimensions, readMeasures, readRetention } from "../../../../../admin/metrics.ts";
import { storageUse } from "../../../../../ops/storage-prune.ts";
import { toApiAdminCohort, toApiAdminDimension, toApiAdminMeasure } from "../../../../../serializers/admin-metrics.ts";
import { requirePermission } from "../../../../admin-auth.ts";
import { type Params, readAppParams } from "../../../../params.ts";

const READ = ["admin:read"];
/** More keys than there are measures is a client bug; answering each once is enough. */
const MAX_KEYS = 32;

const keysOf = (p: Params): string[] => [...new Set(p.strArray("keys", { allowScalar: true, max: MAX_KEYS }) ?? [])];

/** `tag_accounts[id]=…`, `instance_accounts[domain]=…`: the scalars of the key's hash. */
const keyOptions =
  (p: Params): KeyOptions =>
  (key) => {
    const o = p.obj(key);
    return o ? { id: o.str("id"), domain: o.str("domain") } : undefined;
  };

export function registerAdminMetricsRoutes(app: App, r: Router): void {
  r.post("/api/v1/admin/measures", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, READ, "view_dashboard");
    const range = dayRange(p.str("start_at"), p.str("end_at"));
    return readMeasures(app, actor, keysOf(p), range, keyOptions(p)).map(toApiAdminMeasure);
  });

  r.post("/api/v1/admin/dimensions", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, READ, "view_dashboard");
    const range = dayRange(p.str("start_at"), p.str("end_at"));
    const ctx = { spaceUsage: () => storageUse(app) };
    return readDimensions(app, actor, keysOf(p), range, p.int("limit"), keyOptions(p), ctx).map(toApiAdminDimension);
  });

  r.post("/api/v1/admin/retention", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, READ, "view_dashboard");
    const range = dayRange(p.str("start_at"), p.str("end_at"));
    return readRetention(app, actor, range, p.str("frequency")).map(toApiAdminCohort);
  });
}
