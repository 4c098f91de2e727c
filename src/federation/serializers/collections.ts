// Collections of a local actor and of its statuses (AP §6), in Mastodon's shapes.
import type { App } from "../../app.ts";
import type { Id } from "../../lib/ids.ts";
import { type Account } from "../../storage/accounts.ts";
import { followActorUrisPage, repliesPage } from "../../storage/ap-objects.ts";
import type { Status } from "../../storage/statuses.ts";
import type { ApObject } from "../types.ts";
import { toApStatusActivities } from "./activities.ts";
import { ACTIVITY_CONTEXT, BASIC_CONTEXT, NOTE_CONTEXT, withContext } from "./context.ts";
import { toApNotes } from "./note.ts";

export const OUTBOX_PAGE_SIZE = 20;
export const FOLLOWS_PAGE_SIZE = 12;
// Mastodon's RepliesController::DESCENDANTS_LIMIT.
export const REPLIES_PAGE_SIZE = 60;

/** `?a=1&b=2` with keys sorted, as Rails writes the query of its URL helpers. */
function query(base: string, params: Record<string, string | undefined>): string {
  const keys = Object.keys(params)
    .filter((k) => params[k] !== undefined)
    .sort();
  return keys.length ? `${base}?${keys.map((k) => `${k}=${encodeURIComponent(params[k]!)}`).join("&")}` : base;
}

const outboxOf = (a: Account) => a.outboxUrl ?? `${a.uri}/outbox`;

/** The outbox root: counts and links only. */
export function toApOutbox(account: Account): ApObject {
  const id = outboxOf(account);
  return withContext(BASIC_CONTEXT, {
    id,
    type: "OrderedCollection",
    totalItems: account.suspendedAt === null ? account.statusesCount : 0,
    first: `${id}?page=true`,
    last: `${id}?min_id=0&page=true`,
  });
}

/** One outbox page of Create/Announce activities, `statuses` newest first. */
export function toApOutboxPage(app: App, account: Account, statuses: Status[], cursor: { maxId?: Id; minId?: Id }): ApObject {
  const id = outboxOf(account);
  const page: ApObject = {
    id: query(id, { page: "true", max_id: cursor.maxId, min_id: cursor.minId }),
    type: "OrderedCollectionPage",
  };
  if (statuses.length === OUTBOX_PAGE_SIZE) page.next = query(id, { page: "true", max_id: statuses[statuses.length - 1].id });
  if (statuses.length) page.prev = query(id, { page: "true", min_id: statuses[0].id });
  page.partOf = id;
  page.orderedItems = toApStatusActivities(app, statuses);
  return withContext(ACTIVITY_CONTEXT, page);
}

export type FollowDirection = "followers" | "following";

const followCollectionOf = (a: Account, d: FollowDirection) =>
  (d === "followers" ? a.followersUrl : a.followingUrl) ?? `${a.uri}/${d}`;
const followCount = (a: Account, d: FollowDirection) =>
  a.suspendedAt !== null ? 0 : d === "followers" ? a.followersCount : a.followingCount;

/** The followers/following root; hidden collections have no `first` (peers read that as hidden). */
export function toApFollowCollection(account: Account, direction: FollowDirection): ApObject {
  const id = followCollectionOf(account, direction);
  const doc: ApObject = { id, type: "OrderedCollection", totalItems: followCount(account, direction) };
  if (!account.hideCollections) doc.first = `${id}?page=1`;
  return withContext(BASIC_CONTEXT, doc);
}

/** Page `n` (from 1) of actor ids, newest follow first. */
export function toApFollowCollectionPage(app: App, account: Account, direction: FollowDirection, n: number): ApObject {
  const id = followCollectionOf(account, direction);
  // One row more than a page tells whether there is a next one.
  const uris =
    account.suspendedAt !== null
      ? []
      : followActorUrisPage(app.db, account.id, direction, FOLLOWS_PAGE_SIZE + 1, (n - 1) * FOLLOWS_PAGE_SIZE);
  const page: ApObject = { id: `${id}?page=${n}`, type: "OrderedCollectionPage", totalItems: followCount(account, direction) };
  if (uris.length > FOLLOWS_PAGE_SIZE) page.next = `${id}?page=${n + 1}`;
  if (n > 1) page.prev = `${id}?page=${n - 1}`;
  page.partOf = id;
  page.orderedItems = uris.slice(0, FOLLOWS_PAGE_SIZE);
  return withContext(BASIC_CONTEXT, page);
}

/** Pinned posts: full Notes, except that followers-only pins are listed by id only. */
export function toApFeatured(app: App, account: Account, pinned: Status[]): ApObject {
  const distributable = pinned.filter((s) => s.visibility === "public" || s.visibility === "unlisted");
  const notes = new Map(toApNotes(app, distributable, new Map([[account.id, account]])).map((n) => [n.id as string, n]));
  return withContext(NOTE_CONTEXT, {
    id: account.featuredUrl ?? `${account.uri}/collections/featured`,
    type: "OrderedCollection",
    totalItems: pinned.length,
    orderedItems: pinned.map((s) => notes.get(s.uri) ?? s.uri),
  });
}

export interface RepliesQuery {
  /** A page was asked for (`page` present); else the collection with its first page. */
  page: boolean;
  otherAccounts: boolean;
  minId?: Id;
}

/**
 * The replies collection: the author's own replies first, then everyone else's (Mastodon's
 * RepliesController); public and unlisted only. Local replies are embedded as Notes.
 */
export function toApReplies(app: App, status: Status, q: RepliesQuery): ApObject {
  const id = `${status.uri}/replies`;
  const replies = repliesPage(app.db, status.id, status.accountId, q.otherAccounts, q.minId ?? null, REPLIES_PAGE_SIZE);
  const last = replies[replies.length - 1];
  let next: string | null;
  if (q.otherAccounts) {
    next = replies.length < REPLIES_PAGE_SIZE ? null : query(id, { page: "true", only_other_accounts: "true", min_id: last.id });
  } else if (replies.length < REPLIES_PAGE_SIZE) {
    next = query(id, { page: "true", only_other_accounts: "true" });
  } else next = query(id, { page: "true", min_id: last.id });

  const notes = new Map(toApNotes(app, replies.filter((r) => r.local)).map((n) => [n.id as string, n]));
  const page: ApObject = {
    id: query(id, { page: "true", only_other_accounts: q.otherAccounts ? "true" : undefined, min_id: q.minId }),
    type: "CollectionPage",
  };
  if (next) page.next = next;
  page.partOf = id;
  page.items = replies.map((r) => notes.get(r.uri) ?? r.uri);
  if (q.page) return withContext(NOTE_CONTEXT, page);
  return withContext(NOTE_CONTEXT, { id, type: "Collection", first: page });
}

/** `likes` / `shares`: counts only, as Mastodon exposes them. */
export function toApCountCollection(status: Status, kind: "likes" | "shares"): ApObject {
  return withContext(BASIC_CONTEXT, {
    id: `${status.uri}/${kind}`,
    type: "Collection",
    totalItems: kind === "likes" ? status.favouritesCount : status.reblogsCount,
  });
}

/** The instance actor's outbox: it never posts. */
export function toApEmptyOutbox(id: string): ApObject {
  return withContext(BASIC_CONTEXT, { id, type: "OrderedCollection", totalItems: 0, orderedItems: [] });
}
