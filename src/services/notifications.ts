import type { App } from "../app.ts";
import { inTx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { findAccountById } from "../storage/accounts.ts";
import {
  insertNotification,
  isFollowingOrRequested,
  isNotifiableLocalAccount,
  latestGroupKey,
  localMentionedAccountIds,
  localNotifyingFollowers,
  localReblogerIds,
  mentionTouchesHiddenAccount,
  notificationExists,
  type Notification,
} from "../storage/notifications.ts";
import {
  isBlockedEitherWay,
  isConversationMuted,
  isDomainBlocking,
  isMuting,
  isMutingNotifications,
} from "../storage/relationship-checks.ts";
import { findStatusById, type Status } from "../storage/statuses.ts";
import { upsertNotificationRequest } from "../storage/notification-requests.ts";
import { policyVerdict } from "./notification-filtering.ts";
import { queueWebPush } from "./push-notify.ts";
import { publishNotification } from "./stream-events.ts";
import { canViewStatus } from "./visibility.ts";

export type NotificationType =
  | "mention"
  | "status"
  | "reblog"
  | "follow"
  | "follow_request"
  | "favourite"
  | "poll"
  | "update"
  | "admin.sign_up"
  | "admin.report"
  | "moderation_warning";

export const NOTIFICATION_TYPES: readonly NotificationType[] = [
  "mention",
  "status",
  "reblog",
  "follow",
  "follow_request",
  "favourite",
  "poll",
  "update",
  "admin.sign_up",
  "admin.report",
  "moderation_warning",
];

export interface NewNotification {
  type: NotificationType;
  recipientId: Id;
  fromAccountId: Id;
  statusId?: Id | null;
  /** admin.report: the report. */
  reportId?: Id | null;
  /** moderation_warning: the warning (the sender is the warned account itself). */
  accountWarningId?: Id | null;
}

const STATUS_TYPES = new Set<NotificationType>(["mention", "status", "reblog", "favourite", "poll", "update"]);
// One notification per activity: repeating the action (favouriting again, following again)
// must not add a second one. `update` is per edit; `poll` per poll end.
const ONCE_PER_ACTIVITY = new Set<NotificationType>(["mention", "status", "reblog", "favourite", "follow", "follow_request"]);
/** Notification::GROUPABLE_NOTIFICATION_TYPES: the types that get a shared group key. */
export const GROUPABLE_TYPES: ReadonlySet<string> = new Set<NotificationType>(["favourite", "reblog", "follow", "admin.sign_up"]);
const GROUP_SPAN_HOURS = 12;
const HOUR = 3_600_000;

/**
 * Creates a notification unless a rule forbids it (recipient not local, self-notification,
 * recipient blocks/mutes-with-notifications the sender or blocks its domain, muted
 * conversation for mention/reblog/favourite, the recipient's policy drops it), filtered
 * when the policy says so. Synchronous: may run inside a tx().
 * Returns whether one was created (filtered or not).
 *
 * The rules are Mastodon's NotifyService#blocked?, plus: a block in either direction stops
 * it, and a notification about a status the recipient may not see is never made.
 */
export function notify(app: App, n: NewNotification): boolean {
  const db = app.db;
  const now = app.now();
  if (!isNotifiableLocalAccount(db, n.recipientId)) return false;
  if (n.recipientId === n.fromAccountId && n.type !== "poll" && n.type !== "moderation_warning") return false;
  const sender = findAccountById(db, n.fromAccountId);
  // A suspended account is still told why (its warning), as Mastodon's suspension notice is.
  if (!sender || (sender.suspendedAt !== null && n.type !== "moderation_warning")) return false;

  // Staff notifications (a new report) are work, not social: a moderator's own blocks and
  // mutes must not hide a report about the account they blocked.
  if (!n.type.startsWith("admin.") && n.type !== "moderation_warning") {
    // Mastodon lets a domain-blocked sender through when the recipient follows (or asked to follow) it.
    const followingSender = () => isFollowingOrRequested(db, n.recipientId, n.fromAccountId);
    if (sender.domain && isDomainBlocking(db, n.recipientId, sender.domain) && !followingSender()) return false;
    if (isBlockedEitherWay(db, n.recipientId, n.fromAccountId)) return false;
    if (isMutingNotifications(db, n.recipientId, n.fromAccountId, now)) return false;
  }

  let statusId: Id | null = null;
  let status: Status | undefined;
  if (STATUS_TYPES.has(n.type)) {
    if (!n.statusId) return false;
    status = findStatusById(db, n.statusId);
    // Reblog and favourite notifications are about the original post, never the boost row.
    if (status?.reblogOfId) status = findStatusById(db, status.reblogOfId);
    if (!status) return false;
    if (isConversationMuted(db, n.recipientId, status.conversationId)) return false;
    if (!canViewStatus(app, n.recipientId, status)) return false;
    if (n.type === "mention" && mentionTouchesHiddenAccount(db, n.recipientId, status.id, now)) return false;
    // `status` notifications follow the home feed: any active mute of the author hides them.
    if (n.type === "status" && isMuting(db, n.recipientId, status.accountId, now)) return false;
    statusId = status.id;
  }

  if (ONCE_PER_ACTIVITY.has(n.type) && notificationExists(db, n.type, n.recipientId, n.fromAccountId, statusId)) return false;

  // The recipient's notification policy (Mastodon 4.3): a limited sender, a stranger's
  // private mention... is accepted, kept aside (filtered) or dropped.
  const verdict = policyVerdict(app, { type: n.type, recipientId: n.recipientId, sender, status: status ?? null });
  if (verdict === "drop") return false;
  const filtered = verdict === "filter";

  const notification: Notification = {
    id: app.ids.next(),
    accountId: n.recipientId,
    fromAccountId: n.fromAccountId,
    type: n.type,
    statusId,
    reportId: n.reportId ?? null,
    // Filtered notifications are never grouped.
    groupKey: GROUPABLE_TYPES.has(n.type) && !filtered ? groupKey(app, n.recipientId, n.type, statusId, now) : null,
    filtered,
    accountWarningId: n.accountWarningId ?? null,
    createdAt: now,
  };
  insertNotification(db, notification);
  if (filtered) {
    // Mastodon opens a notification request for filtered mentions only.
    if (n.type === "mention" && statusId) {
      upsertNotificationRequest(db, { id: app.ids.next(), accountId: n.recipientId, fromAccountId: n.fromAccountId, statusId, now });
    }
  } else {
    // Only what the policy lets through is pushed and streamed (Mastodon's NotifyService); a
    // filtered one waits in its request. Web Push is a job queued in this transaction (durable);
    // streams hear of it after the commit.
    queueWebPush(app, notification);
    publishNotification(app, n.recipientId, notification.id);
  }
  return true;
}

/**
 * Mastodon 4.3's group key: "<type>[-<status id>]-<hour bucket>", where a new notification
 * joins the recipient's previous bucket of the same prefix while that is under 12 hours old.
 */
function groupKey(app: App, recipientId: Id, type: NotificationType, statusId: Id | null, now: number): string {
  const prefix = (type === "favourite" || type === "reblog") && statusId ? `${type}-${statusId}` : type;
  let bucket = Math.floor(now / HOUR);
  const previous = latestGroupKey(app.db, recipientId, prefix);
  if (previous) {
    const prevBucket = Number(previous.slice(prefix.length + 1));
    if (Number.isFinite(prevBucket) && bucket < prevBucket + GROUP_SPAN_HOURS) bucket = prevBucket;
  }
  return `${prefix}-${bucket}`;
}

/** Notifications a newly published status causes: mentions, and `status` for followers with notify on. */
export function notifyNewStatus(app: App, status: Status): void {
  if (status.reblogOfId) return; // a boost notifies its original's author through notify("reblog")
  inTx(app.db, () => {
    for (const recipientId of localMentionedAccountIds(app.db, status.id)) {
      notify(app, { type: "mention", recipientId, fromAccountId: status.accountId, statusId: status.id });
    }
    // Mastodon's FeedInsertWorker#notify?: no replies to others; direct posts reach only the
    // mentioned, who got a mention above.
    if (status.visibility === "direct") return;
    const reply = status.inReplyToId !== null || status.inReplyToAccountId !== null;
    if (reply && status.inReplyToAccountId !== status.accountId) return;
    for (const f of localNotifyingFollowers(app.db, status.accountId)) {
      // The follow's language filter keeps the post out of that home feed, so no notification either.
      if (f.languages?.length && status.language && !f.languages.includes(status.language)) continue;
      notify(app, { type: "status", recipientId: f.accountId, fromAccountId: status.accountId, statusId: status.id });
    }
  });
}

/** `update` notifications to local accounts that boosted an edited status. */
export function notifyStatusUpdate(app: App, status: Status): void {
  if (status.reblogOfId) return;
  inTx(app.db, () => {
    for (const recipientId of localReblogerIds(app.db, status.id)) {
      notify(app, { type: "update", recipientId, fromAccountId: status.accountId, statusId: status.id });
    }
  });
}
