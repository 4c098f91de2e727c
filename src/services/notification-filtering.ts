// What the recipient's notification policy says about one notification: Mastodon 4.3's
// NotifyService::DropCondition (its policy part) and FilterCondition.
import type { App } from "../app.ts";
import { permissionBits } from "../lib/permissions.ts";
import type { Id } from "../lib/ids.ts";
import type { Account } from "../storage/accounts.ts";
import {
  answersPrivateMentionOf,
  followStartedAt,
  hasNotificationPermission,
  localRoleOf,
  type PolicyAction,
} from "../storage/notification-policies.ts";
import { isFollowing } from "../storage/relationship-checks.ts";
import type { Status } from "../storage/statuses.ts";
import { notificationPolicyOf } from "./notification-policy.ts";

const DAY = 86_400_000;
// NotifyService::BaseCondition thresholds.
const NEW_ACCOUNT_MS = 30 * DAY;
const NEW_FOLLOWER_MS = 3 * DAY;
// How far up a thread a private mention may answer the recipient's own (Mastodon's depth_limit).
const THREAD_DEPTH = 100;

/** Notification::PROPERTIES[type][:filterable]: the types a policy can hold back. */
const FILTERABLE = new Set(["mention", "reblog", "follow", "follow_request", "favourite"]);

// Mastodon's UserRole#bypass_block?: a highlighted role with a moderation permission that
// outranks the recipient's role (Flags::CATEGORIES[:moderation], or administrator).
const MODERATION_BITS = permissionBits([
  "administrator", "view_dashboard", "view_audit_log", "manage_users", "manage_user_access", "delete_user_data",
  "manage_reports", "manage_appeals", "manage_federation", "manage_blocks", "manage_taxonomies", "manage_invites",
]);

export interface PolicyInput {
  type: string;
  recipientId: Id;
  sender: Account;
  /** The notification's status (mentions: the mentioning post). */
  status: Status | null;
}

/**
 * accept, filter or drop. Cheap for the common case: a relationship is looked up only when
 * a policy field that needs it is not `accept` (the defaults need one only for limited
 * senders and direct mentions), and the exemptions only when a rule applies. Synchronous:
 * runs inside notify()'s transaction.
 */
export function policyVerdict(app: App, n: PolicyInput): PolicyAction {
  if (!FILTERABLE.has(n.type)) return "accept";
  const policy = notificationPolicyOf(app, n.recipientId);
  const db = app.db;
  const sender = n.sender;
  let following: boolean | undefined;
  const notFollowing = () => !(following ??= isFollowing(db, n.recipientId, sender.id));
  const conditions: [PolicyAction, () => boolean][] = [
    [policy.for_limited_accounts, () => sender.silencedAt !== null && notFollowing()],
    [policy.for_not_following, notFollowing],
    [
      policy.for_not_followers,
      () => {
        const since = followStartedAt(db, sender.id, n.recipientId);
        return since === undefined || since > app.now() - NEW_FOLLOWER_MS;
      },
    ],
    [policy.for_new_accounts, () => sender.createdAt > app.now() - NEW_ACCOUNT_MS && notFollowing()],
    [policy.for_private_mentions, () => isUnsolicitedPrivateMention(app, n) && notFollowing()],
  ];
  // Dropping wins over filtering, as in Mastodon (DropCondition runs first).
  let verdict: PolicyAction = "accept";
  search: for (const wanted of ["drop", "filter"] as const) {
    for (const [action, applies] of conditions) {
      if (action === wanted && applies()) {
        verdict = wanted;
        break search;
      }
    }
  }
  // The exemptions, looked up only when some rule applies: an accepted request, and staff.
  if (verdict === "accept") return verdict;
  if (hasNotificationPermission(db, n.recipientId, sender.id)) return "accept";
  if (n.type === "mention" && fromStaff(app, sender, n.recipientId)) return "accept";
  return verdict;
}

/** A direct mention that does not answer one the recipient sent the sender. */
function isUnsolicitedPrivateMention(app: App, n: PolicyInput): boolean {
  const s = n.status;
  if (n.type !== "mention" || !s || s.visibility !== "direct" || s.limited) return false;
  return s.inReplyToId === null || !answersPrivateMentionOf(app.db, s.inReplyToId, n.recipientId, n.sender.id, THREAD_DEPTH);
}

function fromStaff(app: App, sender: Account, recipientId: Id): boolean {
  if (sender.domain !== null) return false;
  const role = localRoleOf(app.db, sender.id);
  if (!role || !role.highlighted || (role.permissions & MODERATION_BITS) === 0) return false;
  const theirs = localRoleOf(app.db, recipientId);
  return !theirs || role.position > theirs.position;
}
