import type { App } from "../app.ts";
import { forbidden, notFound, unprocessable } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import { isLanguageCode } from "../lib/iso-639-1.ts";
import type { Account } from "../storage/accounts.ts";
import {
  deleteFollowRequestById,
  deleteFollowRequestNotification,
  findFollowRequest,
  insertFollowRequest,
  listAllFollowRequestsTo,
  listFollowRequestsPage,
} from "../storage/follow-requests.ts";
import {
  adjustFollowCounts,
  deleteFollowById,
  deleteFollowDependents,
  findFollow,
  type FollowOptions,
  type FollowRecord,
  insertFollow,
  listFollowersPage,
  listFollowingPage,
  mergeFollowOptions,
  updateFollowOptions,
} from "../storage/follows.ts";
import { updateFollowUri } from "../storage/activity-uris.ts";
import type { KeysetPage, PageRow } from "../storage/relationship-pages.ts";
import { isBlockedEitherWay, isBlocking, isDomainBlocking } from "../storage/relationship-checks.ts";
import { parseAcct, requireVisibleAccount } from "./account-lookup.ts";
import { resolveAcct } from "./remote-lookup.ts";
import { removeAccountFromFeeds, scheduleFeedMerge } from "./feeds.ts";
import { scheduleFollowBackfill } from "./account-refresh.ts";
import { onFollowAccepted, onFollowRejected, onFollowRequested, onUnfollowed } from "../federation/outbox/hooks.ts";
import { notify } from "./notifications.ts";
import { inTx } from "../db/db.ts";

// Follows and follow requests (Mastodon's FollowService, UnfollowService, AuthorizeFollowService,
// RejectFollowService, RemoveFromFollowersService). Written for any source/target pair, so
// federation can call them with remote actors later.

/** Stored URI of a Follow activity; a request and the follow it becomes share it. */
export const followUri = (app: App, id: Id) => `${app.baseUrl}/follows/${id}`;

/**
 * `languages[]` of a follow: blanks dropped, duplicates collapsed, [] means all (null);
 * undefined when the param was not sent (an existing follow keeps its filter). Codes are
 * checked by followAccount, after the permission checks, as Mastodon validates on save.
 */
export function parseFollowLanguages(raw: string[] | undefined): string[] | null | undefined {
  if (raw === undefined) return undefined;
  const langs = [...new Set(raw.map((l) => l.trim()).filter((l) => l !== ""))];
  return langs.length ? langs : null;
}

/** How a remote follower's Follow arrived: its activity id becomes the record's uri. */
export interface RemoteFollow {
  uri?: string;
}

export interface FollowResult {
  state: "following" | "requested";
  record: FollowRecord;
  /**
   * Mastodon answers an unlocked target (followed by an unsilenced account) as if the follow
   * were already accepted, even while a remote Accept is pending.
   */
  optimistic: boolean;
}

/**
 * POST /api/v1/accounts/:id/follow. Following again (or asking again) is not an error: it
 * updates the options given (`reblogs` applies to the pending request too, so it holds from
 * the start; it only affects boosts delivered afterwards).
 */
export function followAccount(app: App, source: Account, target: Account, options: FollowOptions, via: RemoteFollow = {}): FollowResult {
  if (source.id === target.id) throw forbidden("Following your own account is not allowed");
  if (target.suspendedAt !== null) throw notFound();
  if (
    isBlockedEitherWay(app.db, source.id, target.id) ||
    target.movedToAccountId !== null ||
    (target.domain !== null && isDomainBlocking(app.db, source.id, target.domain))
  ) {
    throw forbidden();
  }
  if (options.languages?.some((l) => !isLanguageCode(l))) throw unprocessable("Validation failed: Languages is invalid");
  const optimistic = !target.locked && source.silencedAt === null;
  const now = app.now();
  return inTx(app.db, () => {
    const existing = findFollow(app.db, source.id, target.id);
    if (existing) {
      const updated = { ...mergeFollowOptions(existing, options), uri: via.uri ?? existing.uri };
      updateFollowOptions(app.db, "follows", updated, now);
      if (via.uri) {
        // A remote follower that asks again lost our Accept: send it again, for the new id (AP §5.4).
        updateFollowUri(app.db, "follows", updated.id, via.uri, now);
        onFollowAccepted(app, updated);
      }
      return { state: "following", record: updated, optimistic };
    }
    const pending = findFollowRequest(app.db, source.id, target.id);
    if (pending) {
      const updated = { ...mergeFollowOptions(pending, options), uri: via.uri ?? pending.uri };
      updateFollowOptions(app.db, "follow_requests", updated, now);
      if (via.uri) updateFollowUri(app.db, "follow_requests", updated.id, via.uri, now);
      return { state: "requested", record: updated, optimistic };
    }
    const id = app.ids.next();
    const record: FollowRecord = {
      id,
      accountId: source.id,
      targetAccountId: target.id,
      showReblogs: options.showReblogs ?? true,
      notify: options.notify ?? false,
      languages: options.languages ?? null,
      uri: via.uri ?? followUri(app, id),
      createdAt: now,
      updatedAt: now,
    };
    // A remote target answers with Accept later, so it starts as a request like a locked one.
    if (target.locked || source.silencedAt !== null || target.domain !== null) {
      insertFollowRequest(app.db, record);
      notify(app, { type: "follow_request", recipientId: target.id, fromAccountId: source.id });
      onFollowRequested(app, record);
      return { state: "requested", record, optimistic };
    }
    insertFollow(app.db, record);
    adjustFollowCounts(app.db, source.id, target.id, 1);
    notify(app, { type: "follow", recipientId: target.id, fromAccountId: source.id });
    onFollowAccepted(app, record);
    scheduleFeedMerge(app, source.id, target.id);
    return { state: "following", record, optimistic };
  });
}

/** Ends a follow inside the caller's transaction: row, counters and the rows that hang on it. */
export function endFollow(app: App, follow: FollowRecord): void {
  deleteFollowById(app.db, follow.id);
  adjustFollowCounts(app.db, follow.accountId, follow.targetAccountId, -1);
  deleteFollowDependents(app.db, follow.accountId, follow.targetAccountId);
}

/** Drops a pending request (withdrawn, rejected, blocked) inside the caller's transaction. */
export function endFollowRequest(app: App, request: FollowRecord): void {
  deleteFollowRequestById(app.db, request.id);
  deleteFollowRequestNotification(app.db, request.accountId, request.targetAccountId);
}

/** After a follow, block or mute: the target's posts leave the owner's feeds (local owners have feeds). */
export function clearFeeds(app: App, owner: Account, targetId: Id): void {
  if (owner.domain === null) removeAccountFromFeeds(app, owner.id, targetId);
}

/** POST /api/v1/accounts/:id/unfollow: removes the follow or withdraws the pending request. Idempotent. */
export function unfollowAccount(app: App, source: Account, target: Account): void {
  const ended = inTx(app.db, () => {
    const follow = findFollow(app.db, source.id, target.id);
    if (follow) {
      onUnfollowed(app, follow);
      endFollow(app, follow);
    }
    const request = findFollowRequest(app.db, source.id, target.id);
    if (request) {
      onUnfollowed(app, request);
      endFollowRequest(app, request);
    }
    return !!follow;
  });
  if (ended) clearFeeds(app, source, target.id);
}

/** POST /api/v1/accounts/:id/remove_from_followers: `follower` no longer follows `owner`. */
export function removeFromFollowers(app: App, owner: Account, follower: Account): void {
  const ended = inTx(app.db, () => {
    const follow = findFollow(app.db, follower.id, owner.id);
    if (follow) {
      onFollowRejected(app, follow);
      endFollow(app, follow);
    }
    return !!follow;
  });
  if (ended) clearFeeds(app, follower, owner.id);
}

/**
 * The remote target ended `source`'s follow or request (Reject, Undo Accept): both go, and
 * nothing is sent back, as the other side already knows.
 */
export function dropFollowByRemote(app: App, source: Account, target: Account): void {
  const ended = inTx(app.db, () => {
    const follow = findFollow(app.db, source.id, target.id);
    if (follow) endFollow(app, follow);
    const request = findFollowRequest(app.db, source.id, target.id);
    if (request) endFollowRequest(app, request);
    return !!follow;
  });
  if (ended) clearFeeds(app, source, target.id);
}

/**
 * A remote Follow that the local target refuses without storing it (blocked, moved): Reject
 * of the Follow with its own id (AP §5.4).
 */
export function refuseRemoteFollow(app: App, source: Account, target: Account, uri: string): void {
  const now = app.now();
  const record: FollowRecord = {
    id: app.ids.next(),
    accountId: source.id,
    targetAccountId: target.id,
    showReblogs: true,
    notify: false,
    languages: null,
    uri,
    createdAt: now,
    updatedAt: now,
  };
  inTx(app.db, () => onFollowRejected(app, record));
}

/** Turns a request into a follow with the same uri and options, and tells the target. */
function acceptRequest(app: App, request: FollowRecord): void {
  endFollowRequest(app, request);
  if (!findFollow(app.db, request.accountId, request.targetAccountId)) {
    const now = app.now();
    insertFollow(app.db, { ...request, id: app.ids.next(), createdAt: now, updatedAt: now });
    adjustFollowCounts(app.db, request.accountId, request.targetAccountId, 1);
    scheduleFeedMerge(app, request.accountId, request.targetAccountId);
    // A remote account's recent posts are fetched too, then merged the same way (issue 19).
    scheduleFollowBackfill(app, request.accountId, request.targetAccountId);
  }
  onFollowAccepted(app, request);
  // Mastodon's FollowRequestsController#authorize notifies the target of the new follower.
  notify(app, { type: "follow", recipientId: request.targetAccountId, fromAccountId: request.accountId });
}

/** POST /api/v1/follow_requests/:account_id/authorize. 404 without a pending request. */
export function authorizeFollowRequest(app: App, target: Account, requesterId: Id): void {
  inTx(app.db, () => {
    const request = findFollowRequest(app.db, requesterId, target.id);
    if (!request) throw notFound();
    acceptRequest(app, request);
  });
}

/** POST /api/v1/follow_requests/:account_id/reject. 404 without a pending request. */
export function rejectFollowRequest(app: App, target: Account, requesterId: Id): void {
  inTx(app.db, () => {
    const request = findFollowRequest(app.db, requesterId, target.id);
    if (!request) throw notFound();
    onFollowRejected(app, request);
    endFollowRequest(app, request);
  });
}

/** Accepts every pending follow request to the account (called when it becomes unlocked). */
export function authorizeAllFollowRequests(app: App, accountId: Id): void {
  inTx(app.db, () => {
    for (const request of listAllFollowRequestsTo(app.db, accountId)) acceptRequest(app, request);
  });
}

/**
 * POST /api/v1/follows (the old remote-follow endpoint): `uri` is `user`, `user@domain` or
 * `@user@domain`; an unknown remote handle is resolved first (WebFinger). Returns the
 * followed account; following again is not an error.
 */
export async function followByHandle(app: App, source: Account, uri: string | undefined): Promise<Account> {
  const handle = parseAcct(app, uri ?? "");
  if (!handle) throw notFound();
  const found = await resolveAcct(app, handle);
  if (!found) throw notFound();
  const target = requireVisibleAccount(app, found.id);
  followAccount(app, source, target, {});
  return target;
}

/** Followers and following lists: empty when hidden, suspended, or the owner blocks the viewer. */
function collectionHidden(app: App, owner: Account, viewerId: Id | null): boolean {
  if (owner.suspendedAt !== null) return true;
  if (owner.hideCollections && viewerId !== owner.id) return true;
  return viewerId !== null && isBlocking(app.db, owner.id, viewerId);
}

export function listFollowers(app: App, owner: Account, viewerId: Id | null, page: KeysetPage): PageRow[] {
  if (collectionHidden(app, owner, viewerId)) return [];
  return listFollowersPage(app.db, owner.id, viewerId === owner.id ? null : viewerId, page, app.now());
}

export function listFollowing(app: App, owner: Account, viewerId: Id | null, page: KeysetPage): PageRow[] {
  if (collectionHidden(app, owner, viewerId)) return [];
  return listFollowingPage(app.db, owner.id, viewerId === owner.id ? null : viewerId, page, app.now());
}

export function listFollowRequests(app: App, target: Account, page: KeysetPage): PageRow[] {
  return listFollowRequestsPage(app.db, target.id, page);
}
