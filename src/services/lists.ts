import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound, unprocessable } from "../errors.ts";
import { type Id, parseId } from "../lib/ids.ts";
import { exceedsCodePoints } from "../lib/code-points.ts";
import { findAccountsByIds } from "../storage/accounts.ts";
import { deleteAccountFromListFeed } from "../storage/feeds.ts";
import { backfillListMember } from "./feeds.ts";
import {
  countListsOf,
  deleteList,
  deleteListAccount,
  findListOf,
  followedOrRequestedAmong,
  insertList,
  insertListAccount,
  type List,
  listListsContaining,
  listListsOf,
  listMembersAmong,
  listMembersPage,
  type MemberRow,
  type RepliesPolicy,
  updateList,
} from "../storage/lists.ts";
import { requireVisibleAccount } from "./account-lookup.ts";

export type { List };

/** Mastodon's List::PER_ACCOUNT_LIMIT (also the seed's limit). */
export const MAX_LISTS = 50;
export const MAX_TITLE = 256;
const POLICIES: readonly string[] = ["followed", "list", "none"];

export interface ListInput {
  title?: string;
  repliesPolicy?: string;
  exclusive?: boolean;
}

/** 404 "Record not found" unless the list exists and belongs to the viewer. */
export function requireOwnList(app: App, viewerId: Id, rawId: unknown): List {
  const id = parseId(rawId);
  const list = id ? findListOf(app.db, viewerId, id) : undefined;
  if (!list) throw notFound();
  return list;
}

/** The viewer's list by a raw id, or undefined (the list stream authorises with it). */
export function findOwnList(app: App, viewerId: Id, rawId: unknown): List | undefined {
  const id = parseId(rawId);
  return id ? findListOf(app.db, viewerId, id) : undefined;
}

function validate(l: { title: string; repliesPolicy: string }, creating: boolean, count: number): void {
  const errors: string[] = [];
  if (l.title.trim() === "") errors.push("Title can't be blank");
  else if (exceedsCodePoints(l.title, MAX_TITLE)) errors.push(`Title is too long (maximum is ${MAX_TITLE} characters)`);
  if (!POLICIES.includes(l.repliesPolicy)) errors.push("Replies policy is not included in the list");
  // A base error: Rails prints it without an attribute name.
  if (creating && count >= MAX_LISTS) errors.push("You have reached the maximum number of lists");
  if (errors.length) throw unprocessable(`Validation failed: ${errors.join(", ")}`);
}

export function createList(app: App, ownerId: Id, input: ListInput): List {
  return tx(app.db, () => {
    const now = app.now();
    const list: List = {
      id: app.ids.next(),
      accountId: ownerId,
      title: input.title ?? "",
      repliesPolicy: (input.repliesPolicy ?? "list") as RepliesPolicy,
      exclusive: input.exclusive ?? false,
      createdAt: now,
      updatedAt: now,
    };
    validate(list, true, countListsOf(app.db, ownerId));
    insertList(app.db, list);
    return list;
  });
}

/** PUT: only the given attributes change. */
export function changeList(app: App, ownerId: Id, rawId: unknown, input: ListInput): List {
  const list = requireOwnList(app, ownerId, rawId);
  const next: List = {
    ...list,
    title: input.title ?? list.title,
    repliesPolicy: (input.repliesPolicy ?? list.repliesPolicy) as RepliesPolicy,
    exclusive: input.exclusive ?? list.exclusive,
    updatedAt: app.now(),
  };
  validate(next, false, 0);
  updateList(app.db, next);
  return next;
}

export function removeList(app: App, ownerId: Id, rawId: unknown): void {
  const list = requireOwnList(app, ownerId, rawId);
  deleteList(app.db, list.id);
}

export function listsOf(app: App, ownerId: Id): List[] {
  return listListsOf(app.db, ownerId);
}

/** GET /api/v1/accounts/:id/lists: the viewer's lists that contain the account. */
export function listsContaining(app: App, ownerId: Id, rawAccountId: unknown): List[] {
  const account = requireVisibleAccount(app, rawAccountId);
  return listListsContaining(app.db, ownerId, account.id);
}

/**
 * Adds accounts to a list. Every id must exist (404 otherwise) and be followed or requested
 * by the owner, or be the owner (Mastodon's ListAccount validation); nothing is added unless
 * all are valid. Each followed member's recent posts are backfilled into the list (see
 * backfillListMember); a requested member's when the request is accepted.
 */
export function addListAccounts(app: App, ownerId: Id, rawListId: unknown, rawIds: string[]): void {
  const list = requireOwnList(app, ownerId, rawListId);
  const ids: Id[] = [];
  for (const raw of rawIds) {
    const id = parseId(raw);
    if (!id) throw notFound();
    if (!ids.includes(id)) ids.push(id);
  }
  if (ids.length === 0) return;
  const found = findAccountsByIds(app.db, ids);
  if (ids.some((id) => !found.has(id))) throw notFound();
  tx(app.db, () => {
    const followed = followedOrRequestedAmong(app.db, ownerId, ids);
    if (ids.some((id) => id !== ownerId && !followed.has(id)))
      throw unprocessable("Validation failed: Account must be an account you follow");
    if (listMembersAmong(app.db, list.id, ids).size > 0) throw unprocessable("Validation failed: Account has already been taken");
    const now = app.now();
    for (const id of ids) insertListAccount(app.db, app.ids.next(), list.id, id, now);
    // After every insert: a reply to another new member passes replies_policy "list".
    for (const id of ids) backfillListMember(app, list, id);
  });
}

/**
 * Removes accounts from a list (unknown ids ignored) and their posts and boosts from its feed
 * (Mastodon's RemoveAccountsFromListService → FeedManager#unmerge_from_list).
 */
export function removeListAccounts(app: App, ownerId: Id, rawListId: unknown, rawIds: string[]): void {
  const list = requireOwnList(app, ownerId, rawListId);
  const ids = rawIds.map((raw) => parseId(raw)).filter((x): x is Id => !!x);
  tx(app.db, () => {
    for (const id of ids) if (deleteListAccount(app.db, list.id, id)) deleteAccountFromListFeed(app.db, list.id, id);
  });
}

/** GET /api/v1/lists/:id/accounts: a page by the hidden membership id; limit null = all. */
export function listMembers(app: App, ownerId: Id, rawListId: unknown, page: { limit: number | null; maxId?: Id; sinceId?: Id }): MemberRow[] {
  const list = requireOwnList(app, ownerId, rawListId);
  if (page.limit === 0) return [];
  return listMembersPage(app.db, list.id, page);
}
