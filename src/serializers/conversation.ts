import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { findAccountsByIds } from "../storage/accounts.ts";
import type { AccountConversation } from "../storage/account-conversations.ts";
import { findStatusesByIds } from "../storage/statuses.ts";
import { type ApiAccount, toApiAccounts } from "./account.ts";
import { type ApiStatus, toApiStatuses } from "./status.ts";

// https://docs.joinmastodon.org/entities/Conversation/
export interface ApiConversation {
  id: string;
  unread: boolean;
  accounts: ApiAccount[];
  last_status: ApiStatus | null;
}

/**
 * A page of conversations with batched lookups: one query for every participant, one
 * serializer call for every last status. With no other participant, `accounts` holds the
 * viewer (a note to self).
 */
export function toApiConversations(app: App, list: AccountConversation[], viewerId: Id): ApiConversation[] {
  const accountIds = new Set<Id>([viewerId]);
  for (const c of list) for (const p of c.participantIds) accountIds.add(p);
  const accounts = findAccountsByIds(app.db, [...accountIds]);
  const used = [...accounts.values()];
  const apiAccounts = new Map<Id, ApiAccount>();
  toApiAccounts(app, used).forEach((a, i) => apiAccounts.set(used[i].id, a));

  const statuses = findStatusesByIds(app.db, list.map((c) => c.lastStatusId).filter((x): x is Id => !!x));
  const statusList = [...statuses.values()];
  const apiStatuses = new Map<Id, ApiStatus>();
  toApiStatuses(app, statusList, viewerId).forEach((s, i) => apiStatuses.set(statusList[i].id, s));

  return list.map((c) => {
    const others = c.participantIds.map((id) => apiAccounts.get(id)).filter((a): a is ApiAccount => !!a);
    const self = apiAccounts.get(viewerId);
    return {
      id: c.id,
      unread: c.unread,
      accounts: others.length ? others : self ? [self] : [],
      last_status: (c.lastStatusId && apiStatuses.get(c.lastStatusId)) || null,
    };
  });
}

export function toApiConversation(app: App, c: AccountConversation, viewerId: Id): ApiConversation {
  return toApiConversations(app, [c], viewerId)[0];
}
