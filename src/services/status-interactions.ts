import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { forbidden, notFound, unprocessable } from "../errors.ts";
import { parseId, type Id } from "../lib/ids.ts";
import { localStatusUrl } from "../lib/urls.ts";
import type { Account } from "../storage/accounts.ts";
import { deleteBookmark, insertBookmark } from "../storage/bookmarks.ts";
import { muteConversation, unmuteConversation } from "../storage/conversations.ts";
import { deleteFavourite, insertFavourite } from "../storage/favourites.ts";
import { statusesMentioning } from "../storage/mentions.ts";
import { isBlocking } from "../storage/relationship-checks.ts";
import { countPins, deletePin, insertPin, isPinned } from "../storage/status-pins.ts";
import {
  adjustAuthorStatusesCount,
  adjustStatusCounter,
  findReblog,
  findStatusById,
  insertStatus,
  type Status,
  type Visibility,
} from "../storage/statuses.ts";
import type { User } from "../storage/users.ts";
import { onFavourited, onPinChanged, onStatusCreated, onUnfavourited } from "../federation/outbox/hooks.ts";
import { indexStatuses } from "../search/status-index.ts";
import { findFavouriteId } from "../storage/favourites.ts";
import { notify } from "./notifications.ts";
import { deleteStatus, requireVisibleStatus } from "./statuses.ts";
import { canViewStatus } from "./visibility.ts";

export const MAX_PINNED = 5;

/**
 * A local account's favourite, bookmark or boost of a status changed: the status enters or
 * leaves that account's search library (Mastodon's searchable_by). Remote accounts have none.
 */
function inLibraryOf(app: App, account: Account, status: Status): void {
  if (account.domain === null) indexStatuses(app.db, [status.id]);
}

/** The boosted post of a boost, the status itself otherwise (Mastodon's `proper`). */
export function properStatus(app: App, s: Status): Status {
  return s.reblogOfId ? (findStatusById(app.db, s.reblogOfId) ?? s) : s;
}

/**
 * A status the viewer wants to act on (favourite, boost). A viewer who blocks the author can
 * still see the post; Mastodon refuses the action itself with 403 "This action is not allowed".
 */
function requireActionable(app: App, viewerId: Id, rawId: unknown): Status {
  const id = parseId(rawId);
  const status = id ? findStatusById(app.db, id) : undefined;
  if (!status) throw notFound();
  const proper = properStatus(app, status);
  if (canViewStatus(app, viewerId, status) && (proper === status || canViewStatus(app, viewerId, proper))) return status;
  if (isBlocking(app.db, viewerId, proper.accountId) && !isBlocking(app.db, proper.accountId, viewerId)) {
    const open = proper.visibility === "public" || proper.visibility === "unlisted";
    if (open || statusesMentioning(app.db, viewerId, [proper.id]).has(proper.id)) throw forbidden();
  }
  throw notFound("Not Found");
}

/**
 * POST /api/v1/statuses/:id/favourite: returns the requested status (a boost is favourited
 * through its original). `via.uri`: a remote Like's id, stored for Undo by reference.
 */
export function favouriteStatus(app: App, viewer: Account, rawId: unknown, via: { uri?: string } = {}): Status {
  const status = requireActionable(app, viewer.id, rawId);
  const target = properStatus(app, status);
  if (isBlocking(app.db, viewer.id, target.accountId)) throw forbidden();
  tx(app.db, () => {
    const now = app.now();
    const favouriteId = app.ids.next();
    if (!insertFavourite(app.db, { id: favouriteId, accountId: viewer.id, statusId: target.id, createdAt: now, uri: via.uri })) return;
    adjustStatusCounter(app.db, target.id, "favourites_count", 1);
    notify(app, { type: "favourite", recipientId: target.accountId, fromAccountId: viewer.id, statusId: target.id });
    onFavourited(app, favouriteId, viewer.id, target);
    inLibraryOf(app, viewer, target);
  });
  return findStatusById(app.db, status.id)!;
}

/** Unfavourite works on a post the caller favourited even if it can no longer see it (as Mastodon). */
export function unfavouriteStatus(app: App, viewer: Account, rawId: unknown): Status {
  const id = parseId(rawId);
  const found = id ? findStatusById(app.db, id) : undefined;
  if (!found) throw notFound();
  const target = properStatus(app, found);
  const removed = tx(app.db, () => {
    const favouriteId = findFavouriteId(app.db, viewer.id, target.id);
    if (!favouriteId) return false;
    onUnfavourited(app, favouriteId, viewer.id, target);
    deleteFavourite(app.db, viewer.id, target.id);
    adjustStatusCounter(app.db, target.id, "favourites_count", -1);
    inLibraryOf(app, viewer, target);
    return true;
  });
  if (!removed) requireVisibleStatus(app, viewer.id, found.id);
  return findStatusById(app.db, found.id)!;
}

const BOOST_VISIBILITIES: readonly Visibility[] = ["public", "unlisted", "private"];

/**
 * POST /api/v1/statuses/:id/reblog: returns the boost (the existing one when already boosted).
 * Direct posts and other people's private posts cannot be boosted.
 */
export function reblogStatus(app: App, viewer: { account: Account; user: User | null }, rawId: unknown, visibilityParam?: string): Status {
  const me = viewer.account;
  const original = properStatus(app, requireActionable(app, me.id, rawId));
  if (isBlocking(app.db, me.id, original.accountId)) throw forbidden();
  if (original.visibility === "direct" || (original.visibility === "private" && original.accountId !== me.id)) throw forbidden();
  let visibility: Visibility;
  // Boosting one's own private post keeps it private (Mastodon: a hidden post keeps its visibility).
  if (original.visibility === "private") visibility = "private";
  else if (visibilityParam) {
    // Mastodon validates a boost's visibility: public, unlisted or private only.
    if (!BOOST_VISIBILITIES.includes(visibilityParam as Visibility)) throw unprocessable("Validation failed: Visibility is not included in the list");
    visibility = visibilityParam as Visibility;
  } else visibility = viewer.user?.defaultPrivacy === "direct" ? "private" : (viewer.user?.defaultPrivacy ?? "public");
  if (visibility === "public" && me.silencedAt !== null) visibility = "unlisted";

  const db = app.db;
  return tx(db, () => {
    const existing = findReblog(db, me.id, original.id);
    if (existing) return existing;
    const now = app.now();
    const id = app.ids.next();
    // Mastodon's boost ids: the Announce activity's id, and the booster's status page.
    return storeBoost(app, {
      id,
      booster: me,
      original,
      uri: `${me.uri}/statuses/${id}/activity`,
      url: me.domain === null ? localStatusUrl(app.baseUrl, me.username, id) : null,
      visibility,
      createdAt: now,
    });
  });
}

export interface BoostRow {
  id: Id;
  booster: Account;
  original: Status;
  uri: string;
  url: string | null;
  visibility: Visibility;
  createdAt: number;
}

/**
 * Stores a boost with what comes with it: the row, counters, fan-out job, the reblog
 * notification and the outbox hook (which does nothing for a remote booster). Local boosts
 * (reblogStatus) and remote ones (an incoming Announce) share it. Inside the caller's tx.
 */
export function storeBoost(app: App, b: BoostRow): Status {
  const db = app.db;
  insertStatus(db, {
    id: b.id,
    accountId: b.booster.id,
    local: b.booster.domain === null,
    uri: b.uri,
    url: b.url,
    text: "",
    content: "",
    spoilerText: "",
    sensitive: false,
    visibility: b.visibility,
    language: null,
    inReplyToId: null,
    inReplyToAccountId: null,
    inReplyToUri: null,
    reblogOfId: b.original.id,
    conversationId: null,
    applicationId: null,
    createdAt: b.createdAt,
  });
  adjustStatusCounter(db, b.original.id, "reblogs_count", 1);
  adjustAuthorStatusesCount(db, b.booster.id, 1, b.createdAt);
  app.jobs.enqueue("status.fanout", { statusId: b.id });
  notify(app, { type: "reblog", recipientId: b.original.accountId, fromAccountId: b.booster.id, statusId: b.original.id });
  inLibraryOf(app, b.booster, b.original);
  const boost = findStatusById(db, b.id)!;
  onStatusCreated(app, boost);
  return boost;
}

/** POST /api/v1/statuses/:id/unreblog: removes the caller's boost; returns the original. */
export function unreblogStatus(app: App, viewer: Account, rawId: unknown): Status {
  const id = parseId(rawId);
  const found = id ? findStatusById(app.db, id) : undefined;
  if (!found) throw notFound();
  const original = properStatus(app, found);
  const boost = findReblog(app.db, viewer.id, original.id);
  if (boost) deleteStatus(app, boost);
  else requireVisibleStatus(app, viewer.id, original.id);
  return findStatusById(app.db, original.id)!;
}

export function bookmarkStatus(app: App, viewer: Account, rawId: unknown): Status {
  const status = requireVisibleStatus(app, viewer.id, rawId);
  const target = properStatus(app, status);
  tx(app.db, () => {
    insertBookmark(app.db, { id: app.ids.next(), accountId: viewer.id, statusId: target.id, createdAt: app.now() });
    inLibraryOf(app, viewer, target);
  });
  return status;
}

/** Like unfavourite, works on a bookmarked post that is no longer visible. */
export function unbookmarkStatus(app: App, viewer: Account, rawId: unknown): Status {
  const id = parseId(rawId);
  const found = id ? findStatusById(app.db, id) : undefined;
  if (!found) throw notFound();
  const target = properStatus(app, found);
  const removed = tx(app.db, () => {
    if (!deleteBookmark(app.db, viewer.id, target.id)) return false;
    inLibraryOf(app, viewer, target);
    return true;
  });
  if (!removed) return requireVisibleStatus(app, viewer.id, found.id);
  return found;
}

/** POST /api/v1/statuses/:id/pin, with Mastodon's StatusPinValidator messages. */
export function pinStatus(app: App, viewer: Account, rawId: unknown): Status {
  const status = requireVisibleStatus(app, viewer.id, rawId);
  const db = app.db;
  return tx(db, () => {
    const errors: string[] = [];
    if (status.reblogOfId) errors.push("A boost cannot be pinned");
    if (status.accountId !== viewer.id) errors.push("Someone else's post cannot be pinned");
    if (status.visibility === "direct") errors.push("Posts that are only visible to mentioned users cannot be pinned");
    if (viewer.domain === null && countPins(db, viewer.id) >= MAX_PINNED) errors.push("You have already pinned the maximum number of posts");
    if (errors.length) throw unprocessable(`Validation failed: ${errors.join(", ")}`);
    if (isPinned(db, viewer.id, status.id)) throw unprocessable("Duplicate record");
    insertPin(db, { id: app.ids.next(), accountId: viewer.id, statusId: status.id, createdAt: app.now() });
    onPinChanged(app, "Add", viewer, status);
    return status;
  });
}

export function unpinStatus(app: App, viewer: Account, rawId: unknown): Status {
  const status = requireVisibleStatus(app, viewer.id, rawId);
  tx(app.db, () => {
    if (!isPinned(app.db, viewer.id, status.id)) return;
    deletePin(app.db, viewer.id, status.id);
    onPinChanged(app, "Remove", viewer, status);
  });
  return status;
}

/**
 * Mutes (or unmutes) notifications from the status's thread; 422 when it has none (as
 * Mastodon, the status's own thread: a boost belongs to none).
 */
export function setConversationMute(app: App, viewer: Account, rawId: unknown, mute: boolean): Status {
  const status = requireVisibleStatus(app, viewer.id, rawId);
  const conversationId = status.conversationId;
  if (!conversationId) throw unprocessable("Validation failed: Conversation must exist");
  if (mute) muteConversation(app.db, viewer.id, conversationId);
  else unmuteConversation(app.db, viewer.id, conversationId);
  return status;
}
