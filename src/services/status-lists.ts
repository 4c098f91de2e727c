import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import type { Account } from "../storage/accounts.ts";
import { pageBookmarkedStatuses } from "../storage/bookmarks.ts";
import { pageFavouritedStatuses, pageFavouritingAccounts } from "../storage/favourites.ts";
import type { Keyset } from "../storage/keyset.ts";
import { pageRebloggingAccounts } from "../storage/reblogs.ts";
import type { Status } from "../storage/statuses.ts";

// Paged lists around statuses. Each row carries its hidden cursor (the bookmark, favourite or
// boost id) for the Link header; a limit of 0 is an empty page.

export type Paged<T> = { cursor: Id; item: T }[];

export function listBookmarks(app: App, viewerId: Id, k: Keyset): Paged<Status> {
  if (k.limit === 0) return [];
  return pageBookmarkedStatuses(app.db, viewerId, k).map((r) => ({ cursor: r.cursor, item: r.status }));
}

export function listFavourites(app: App, viewerId: Id, k: Keyset): Paged<Status> {
  if (k.limit === 0) return [];
  return pageFavouritedStatuses(app.db, viewerId, k).map((r) => ({ cursor: r.cursor, item: r.status }));
}

// reblogged_by and favourited_by page with max_id/since_id only (Mastodon's paginate_by_max_id).
export function listRebloggedBy(app: App, statusId: Id, viewerId: Id | null, k: Keyset): Paged<Account> {
  if (k.limit === 0) return [];
  return pageRebloggingAccounts(app.db, statusId, viewerId, { ...k, minId: undefined }, app.now()).map((r) => ({ cursor: r.cursor, item: r.account }));
}

export function listFavouritedBy(app: App, statusId: Id, viewerId: Id | null, k: Keyset): Paged<Account> {
  if (k.limit === 0) return [];
  return pageFavouritingAccounts(app.db, statusId, viewerId, { ...k, minId: undefined }, app.now()).map((r) => ({ cursor: r.cursor, item: r.account }));
}
