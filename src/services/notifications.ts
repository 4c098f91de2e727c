// PLACEHOLDER: signatures fixed; implemented by the notifications work package.
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import type { Status } from "../storage/statuses.ts";

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
  | "admin.report";

export interface NewNotification {
  type: NotificationType;
  recipientId: Id;
  fromAccountId: Id;
  statusId?: Id | null;
}

/**
 * Creates a notification unless a rule forbids it (recipient not local, self-notification,
 * recipient blocks/mutes-with-notifications the sender or blocks its domain, muted
 * conversation for mention/reblog/favourite). Synchronous: may run inside a tx().
 * Returns whether one was created.
 */
export function notify(_app: App, _n: NewNotification): boolean {
  return false;
}

/** Notifications a newly published status causes: mentions, and `status` for followers with notify on. */
export function notifyNewStatus(_app: App, _status: Status): void {}

/** `update` notifications to local accounts that boosted an edited status. */
export function notifyStatusUpdate(_app: App, _status: Status): void {}
