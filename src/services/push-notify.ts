import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import type { Notification } from "../storage/notifications.ts";
import { listLivePushSubscriptionsOfAccount, type PushSubscription } from "../storage/push-subscriptions.ts";
import { isFollowing } from "../storage/relationship-checks.ts";

/** The job that sends one notification to one subscription (push/deliver.ts). */
export const PUSH_SEND_JOB = "push.send";
/** Mastodon's Web::PushNotificationWorker: `retry: 5`, so six runs in all. */
const PUSH_MAX_ATTEMPTS = 6;

export interface PushSendPayload {
  /** Subscription id. */
  s: Id;
  /** Notification id. */
  n: Id;
}

/**
 * Mastodon's Web::PushSubscription#pushable?: the alert for the type is on, and the policy lets
 * the sender through (`followed`: the recipient follows the sender; `follower`: the sender
 * follows the recipient). Checked when the notification is made and again at delivery.
 */
export function isPushable(app: App, s: PushSubscription, n: Pick<Notification, "type" | "accountId" | "fromAccountId">): boolean {
  if (s.alerts[n.type] !== true) return false;
  switch (s.policy) {
    case "all":
      return true;
    case "none":
      return false;
    case "followed":
      return isFollowing(app.db, n.accountId, n.fromAccountId);
    case "follower":
      return isFollowing(app.db, n.fromAccountId, n.accountId);
  }
}

/**
 * Queues a `push.send` job per subscription of the recipient that wants this notification.
 * Synchronous, inside the notification's transaction: the jobs commit (or roll back) with it.
 */
export function queueWebPush(app: App, n: Notification): void {
  for (const s of listLivePushSubscriptionsOfAccount(app.db, n.accountId, app.now())) {
    if (!isPushable(app, s, n)) continue;
    const payload: PushSendPayload = { s: s.id, n: n.id };
    app.jobs.enqueue(PUSH_SEND_JOB, payload, { maxAttempts: PUSH_MAX_ATTEMPTS });
  }
}
