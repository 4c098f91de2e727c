// The notification policy (Mastodon 4.3): read, changed through v2's accept/filter/drop values
// or v1's booleans, and looked up by notify() for every notification made.
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { deepFreeze, findRowCache, installRowCache, type RowCacheSpec } from "../storage/row-cache.ts";
import { unprocessable } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import {
  DEFAULT_POLICY,
  findNotificationPolicy,
  type NotificationPolicy,
  pendingRequestsSummary,
  POLICY_FIELDS,
  type PolicyAction,
  type PolicyField,
  type PolicyView,
  upsertNotificationPolicy,
  type V1Field,
  V1_FIELDS,
} from "../storage/notification-policies.ts";

export type { NotificationPolicy, PolicyAction, PolicyField, PolicyView, V1Field };
export { POLICY_FIELDS, V1_FIELDS };

// NotificationPolicy::MAX_MEANINGFUL_COUNT
const SUMMARY_CAP = 100;

// Policies by recipient, kept until the row changes (storage/row-cache.ts). Filled by reads outside
// write transactions; notify() runs inside one, where a miss is one primary-key lookup.
const POLICIES: RowCacheSpec = { name: "notification-policies", max: 10_000, watches: [["notification_policies", "account_id"]] };

/** Installs the policy cache (once, outside transactions, when the HTTP app is made). */
export function installNotificationPolicyCache(app: App): void {
  installRowCache(app, POLICIES);
}

/** The recipient's policy, the defaults when none was saved. Shared: do not modify. */
export function notificationPolicyOf(app: App, accountId: Id): Readonly<NotificationPolicy> {
  const cache = findRowCache<Readonly<NotificationPolicy>>(app, POLICIES);
  cache?.sync();
  const hit = cache?.get(accountId);
  if (hit) return hit;
  const p = deepFreeze(findNotificationPolicy(app.db, accountId) ?? { ...DEFAULT_POLICY });
  cache?.set(accountId, p);
  return p;
}

export function getNotificationPolicy(app: App, accountId: Id): PolicyView {
  const policy = notificationPolicyOf(app, accountId);
  const s = pendingRequestsSummary(app.db, accountId, SUMMARY_CAP);
  return { policy, pendingRequests: s.requests, pendingNotifications: s.notifications };
}

const ACTIONS = new Set<string>(["accept", "filter", "drop"]);

/**
 * PATCH /api/v2/notifications/policy: each given field set to accept, filter or drop; an
 * unknown value changes nothing and is a 422 (Mastodon answers 500 there: its enum raises).
 */
export function updateNotificationPolicy(app: App, accountId: Id, changes: Partial<Record<PolicyField, string>>): PolicyView {
  const next = { ...notificationPolicyOf(app, accountId) };
  for (const f of POLICY_FIELDS) {
    const v = changes[f];
    if (v === undefined) continue;
    if (!ACTIONS.has(v)) throw unprocessable(`'${v.slice(0, 50)}' is not a valid ${f}`);
    next[f] = v as PolicyAction;
  }
  tx(app.db, () => upsertNotificationPolicy(app.db, accountId, next, app.now()));
  return getNotificationPolicy(app, accountId);
}

/** PATCH /api/v1/notifications/policy: true sets `filter`, false `accept` (Mastodon's compat setters). */
export function updateNotificationPolicyV1(app: App, accountId: Id, changes: Partial<Record<V1Field, boolean>>): PolicyView {
  const v2: Partial<Record<PolicyField, string>> = {};
  for (const [k, f] of Object.entries(V1_FIELDS) as [V1Field, PolicyField][]) {
    const v = changes[k];
    if (v !== undefined) v2[f] = v ? "filter" : "accept";
  }
  return updateNotificationPolicy(app, accountId, v2);
}
