// https://docs.joinmastodon.org/entities/NotificationRequest/
import type { App } from "../app.ts";
import { readSnapshot } from "../storage/read-snapshot.ts";
import type { Id } from "../lib/ids.ts";
import { isoTime } from "../lib/iso-time.ts";
import type { NotificationRequest } from "../storage/notification-requests.ts";
import { findLiveStatusesCached } from "../storage/status-cache.ts";
import { type ApiAccount, embeddedAccounts } from "./account.ts";
import { type ApiStatus, toApiStatuses } from "./status.ts";

export interface ApiNotificationRequest {
  id: string;
  created_at: string;
  updated_at: string;
  /** A string in Mastodon's JSON. */
  notifications_count: string;
  account: ApiAccount;
  last_status: ApiStatus | null;
}

/** Requests in input order, batched; one whose sender has gone is left out. */
export function toApiNotificationRequests(app: App, requests: NotificationRequest[], viewerId: Id): ApiNotificationRequest[] {
  return readSnapshot(app, () => {
    const accounts = embeddedAccounts(app, new Set(requests.map((r) => r.fromAccountId)));
    const found = findLiveStatusesCached(app, new Set(requests.flatMap((r) => r.lastStatusId ?? [])));
    const list = [...found.values()];
    const statuses = new Map<Id, ApiStatus>();
    toApiStatuses(app, list, viewerId).forEach((s, i) => statuses.set(list[i].id, s));
    return requests.flatMap((r) => {
      const account = accounts.get(r.fromAccountId);
      if (!account) return [];
      return [
        {
          id: r.id,
          created_at: isoTime(r.createdAt),
          updated_at: isoTime(r.updatedAt),
          notifications_count: String(r.notificationsCount),
          account: account.json,
          last_status: (r.lastStatusId && statuses.get(r.lastStatusId)) || null,
        },
      ];
    });
  });
}
