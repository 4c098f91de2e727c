import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import type { Notification } from "../storage/notifications.ts";
import { listLivePushSubscriptionsOfAccount, type PushSubscription } from "../storage/push-subscriptions.ts";
import { isFollowing } from "../storage/relationship-checks.ts";

/**
 * The job that sends notifications to subscriptions (push/deliver.ts). Its payload is a batch,
 * `{ items: PushItem[] }`: the pushes queued in a burst (a post reaching 1,000 followers with
 * notifications on) share a few jobs, each delivered and retried on its own.
 */
export const PUSH_SEND_JOB = "push.send";
/** Pushes per job. */
export const PUSH_BATCH_ITEMS = 100;

export interface PushItem {
  /** Subscription id. */
  s: Id;
  /** Notification id. */
  n: Id;
  /** Attempts made before this one (absent: none). */
  a?: number;
}

export interface PushSendPayload {
  items: PushItem[];
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
 * Queues a push to each subscription of the recipient that wants this notification (an item of
 * a `push.send` job). Synchronous, inside the notification's transaction: the jobs commit (or
 * roll back) with it.
 */
export function queueWebPush(app: App, n: Notification): void {
  for (const s of listLivePushSubscriptionsOfAccount(app.db, n.accountId, app.now())) {
    if (!isPushable(app, s, n)) continue;
    const item: PushItem = { s: s.id, n: n.id };
    app.jobs.enqueueItem(PUSH_SEND_JOB, item, { maxItems: PUSH_BATCH_ITEMS });
  }
}
