// https://docs.joinmastodon.org/methods/notifications/#get-policy (v2, accept/filter/drop) and
// https://docs.joinmastodon.org/methods/notifications/#get-policy-v1 (v1, booleans).
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { requireUser } from "../../../auth.ts";
import { readAppParams } from "../../../params.ts";
import {
  getNotificationPolicy,
  installNotificationPolicyCache,
  POLICY_FIELDS,
  type PolicyField,
  updateNotificationPolicy,
  updateNotificationPolicyV1,
  type V1Field,
  V1_FIELDS,
} from "../../../../services/notification-policy.ts";
import { toApiNotificationPolicy, toApiNotificationPolicyV1 } from "../../../../serializers/notification-policy.ts";

const READ = ["read:notifications"];
const WRITE = ["write:notifications"];

export function registerNotificationPolicyRoutes(app: App, r: Router): void {
  installNotificationPolicyCache(app);

  r.get("/api/v2/notifications/policy", (event) => {
    const viewer = requireUser(app, event, ...READ);
    return toApiNotificationPolicy(getNotificationPolicy(app, viewer.account.id));
  });

  // PUT and PATCH (Rails resource routing).
  r.put("/api/v2/notifications/policy", async (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    const p = await readAppParams(app, event);
    const changes: Partial<Record<PolicyField, string>> = {};
    for (const f of POLICY_FIELDS) {
      const v = p.str(f);
      if (v !== undefined) changes[f] = v;
    }
    return toApiNotificationPolicy(updateNotificationPolicy(app, viewer.account.id, changes));
  });

  r.get("/api/v1/notifications/policy", (event) => {
    const viewer = requireUser(app, event, ...READ);
    return toApiNotificationPolicyV1(getNotificationPolicy(app, viewer.account.id));
  });

  r.put("/api/v1/notifications/policy", async (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    const p = await readAppParams(app, event);
    const changes: Partial<Record<V1Field, boolean>> = {};
    for (const f of Object.keys(V1_FIELDS) as V1Field[]) {
      // Rails casts a blank value to nil, which Mastodon's setter reads as false.
      if (p.has(f) && p.str(f) !== undefined) changes[f] = p.bool(f) ?? false;
    }
    return toApiNotificationPolicyV1(updateNotificationPolicyV1(app, viewer.account.id, changes));
  });
}
