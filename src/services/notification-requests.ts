// Notification requests (Mastodon 4.3): a sender's filtered mentions, waiting for the
// recipient to accept them (they join the notifications, and the sender is let through from
// then on) or dismiss them (they are deleted).
import type { App } from "../app.ts";
import { publishNotificationsMerged } from "./stream-events.ts";
import { tx } from "../db/db.ts";
import { notFound } from "../errors.ts";
import { type Id, parseId } from "../lib/ids.ts";
import { upsertAccountConversation } from "../storage/account-conversations.ts";
import { mentionedAccountIds } from "../storage/feeds.ts";
import type { Keyset } from "../storage/keyset.ts";
import { insertNotificationPermission } from "../storage/notification-policies.ts";
import {
  deleteFilteredNotificationsFrom,
  deleteNotificationRequest,
  filteredDirectMentionStatusIds,
  findNotificationRequest,
  findNotificationRequestsByIds,
  listNotificationRequestsPage,
  type NotificationRequest,
  unfilterNotificationsFrom,
} from "../storage/notification-requests.ts";
import { findStatusById } from "../storage/statuses.ts";

export type { NotificationRequest };

export function listNotificationRequests(app: App, viewerId: Id, page: Keyset): NotificationRequest[] {
  return listNotificationRequestsPage(app.db, viewerId, page);
}

/** One of the viewer's requests; 404 for anyone else's or an unknown id. */
export function getNotificationRequest(app: App, viewerId: Id, rawId: unknown): NotificationRequest {
  const id = parseId(rawId);
  const r = id ? findNotificationRequest(app.db, viewerId, id) : undefined;
  if (!r) throw notFound();
  return r;
}

/**
 * Mastodon's AcceptNotificationRequestService and UnfilterNotificationsWorker, done at once
 * (one sender's filtered notifications are few): the sender gets a permission past every
 * policy, its private mentions join the recipient's conversations, its notifications stop
 * being filtered, and the request goes.
 */
function accept(app: App, r: NotificationRequest): void {
  insertNotificationPermission(app.db, r.accountId, r.fromAccountId, app.now());
  for (const statusId of filteredDirectMentionStatusIds(app.db, r.accountId, r.fromAccountId)) {
    const status = findStatusById(app.db, statusId);
    if (!status?.conversationId) continue;
    upsertAccountConversation(app.db, {
      id: app.ids.next(),
      accountId: r.accountId,
      conversationId: status.conversationId,
      participantIds: [status.accountId, ...mentionedAccountIds(app.db, [status.id])].filter((id) => id !== r.accountId),
      statusId: status.id,
      unread: true,
    });
  }
  unfilterNotificationsFrom(app.db, r.accountId, r.fromAccountId);
  deleteNotificationRequest(app.db, r.id);
  // Mastodon announces the merge when its worker is done; here it is done at commit.
  publishNotificationsMerged(app, r.accountId);
}

/** Mastodon's DismissNotificationRequestService: the request and its filtered notifications go. */
function dismiss(app: App, r: NotificationRequest): void {
  deleteFilteredNotificationsFrom(app.db, r.accountId, r.fromAccountId);
  deleteNotificationRequest(app.db, r.id);
}

export function acceptNotificationRequest(app: App, viewerId: Id, rawId: unknown): void {
  const r = getNotificationRequest(app, viewerId, rawId);
  tx(app.db, () => accept(app, r));
}

export function dismissNotificationRequest(app: App, viewerId: Id, rawId: unknown): void {
  const r = getNotificationRequest(app, viewerId, rawId);
  tx(app.db, () => dismiss(app, r));
}

/**
 * The bulk forms (`id[]`): unknown ids and other people's are ignored. Mastodon's bulk
 * dismiss removes only the requests and leaves their filtered notifications behind, to be
 * counted again by the sender's next request; here it cleans up like the single dismiss.
 */
export function acceptNotificationRequests(app: App, viewerId: Id, rawIds: unknown[]): void {
  bulk(app, viewerId, rawIds, accept);
}

export function dismissNotificationRequests(app: App, viewerId: Id, rawIds: unknown[]): void {
  bulk(app, viewerId, rawIds, dismiss);
}

const MAX_BULK = 1000;

function bulk(app: App, viewerId: Id, rawIds: unknown[], each: (app: App, r: NotificationRequest) => void): void {
  const ids = [...new Set(rawIds.slice(0, MAX_BULK).map((x) => parseId(x)).filter((x): x is Id => x !== undefined))];
  if (ids.length === 0) return;
  tx(app.db, () => {
    for (const r of findNotificationRequestsByIds(app.db, viewerId, ids)) each(app, r);
  });
}

/**
 * Whether accepted requests have all been merged into the notifications. Mastodon merges in
 * the background and clients poll this; here accepting merges before it answers.
 */
export function notificationRequestsMerged(): boolean {
  return true;
}
