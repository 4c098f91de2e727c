// https://docs.joinmastodon.org/entities/NotificationPolicy/ (v2) and its v1 boolean form.
import { POLICY_FIELDS, type PolicyView, V1_FIELDS } from "../storage/notification-policies.ts";

const summary = (v: PolicyView) => ({
  pending_requests_count: v.pendingRequests,
  pending_notifications_count: v.pendingNotifications,
});

export function toApiNotificationPolicy(v: PolicyView): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of POLICY_FIELDS) out[f] = v.policy[f];
  out.summary = summary(v);
  return out;
}

/** REST::V1::NotificationPolicySerializer: a field is "filtered" whenever it does not accept. */
export function toApiNotificationPolicyV1(v: PolicyView): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(V1_FIELDS)) out[k] = v.policy[f] !== "accept";
  out.summary = summary(v);
  return out;
}
