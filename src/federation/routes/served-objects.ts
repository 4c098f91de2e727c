// What the ActivityPub GET routes may serve, and to whom: the lookup layer between the
// routes and storage (routes never read storage themselves).
import type { App } from "../../app.ts";
import { readTx } from "../../db/db.ts";
import { type Id, parseId } from "../../lib/ids.ts";
import { isHiddenLocal } from "../../services/account-lookup.ts";
import { canViewStatus } from "../../services/visibility.ts";
import { type Account, findAccountByHandle, findAccountById } from "../../storage/accounts.ts";
import { findUsersByAccountIds, findUserBadges } from "../../storage/account-profile.ts";
import { type CustomEmoji, findEmojiById } from "../../storage/custom-emojis.ts";
import { isBlocking, isDomainBlocking, isFollowing } from "../../storage/relationship-checks.ts";
import { findStatusById, findStatusesByIds, type Status } from "../../storage/statuses.ts";
import { accountStatusesPage } from "../../storage/timelines.ts";

/** A path parameter, and whether it carried the `.json` suffix that forces JSON (AP §2). */
export interface Param {
  value: string;
  forcedJson: boolean;
}

/**
 * A local account as the actor routes see it: undefined when unknown, or not confirmed or not
 * approved yet (those do not exist for peers). Suspended accounts are returned: their actor is
 * still served, as a minimal document. Local usernames may contain dots, so `alice.json` is
 * read as a JSON request for `alice` only when no user is called `alice.json`.
 */
export function findServedAccount(app: App, rawUsername: string): { account: Account; forcedJson: boolean } | undefined {
  if (rawUsername === "" || rawUsername.length > 64) return undefined;
  return readTx(app.db, () => {
    const exact = visibleLocal(app, rawUsername);
    if (exact) return { account: exact, forcedJson: false };
    if (!rawUsername.endsWith(".json")) return undefined;
    const stripped = visibleLocal(app, rawUsername.slice(0, -".json".length));
    return stripped && { account: stripped, forcedJson: true };
  });
}

/** The user asked search engines not to index their pages (Account.noindex). */
export function wantsNoindex(app: App, account: Account): boolean {
  return account.domain === null && findUserBadges(app.db, [account.id]).get(account.id)?.noindex === true;
}

function visibleLocal(app: App, username: string): Account | undefined {
  const account = findAccountByHandle(app.db, username, null);
  if (!account) return undefined;
  const user = findUsersByAccountIds(app.db, [account.id]).get(account.id);
  return isHiddenLocal(account, user) ? undefined : account;
}

/** A status id parameter; `123.json` forces JSON. */
export function statusIdParam(raw: string): { id: Id; forcedJson: boolean } | undefined {
  const forcedJson = raw.endsWith(".json");
  const id = parseId(forcedJson ? raw.slice(0, -".json".length) : raw);
  return id ? { id, forcedJson } : undefined;
}

/**
 * A live status of `account` that `viewerId` (the verified signer, null: anonymous) may see
 * (Mastodon's StatusPolicy); undefined otherwise, answered like an unknown status.
 */
export function findServedStatus(app: App, account: Account, id: Id, viewerId: Id | null): Status | undefined {
  return readTx(app.db, () => {
    const status = findStatusById(app.db, id);
    if (!status || status.accountId !== account.id) return undefined;
    return canViewStatus(app, viewerId, status) ? status : undefined;
  });
}

/** The original of a boost when the viewer may see it. */
export function findVisibleOriginal(app: App, boost: Status, viewerId: Id | null): Status | undefined {
  if (!boost.reblogOfId) return undefined;
  return readTx(app.db, () => {
    const original = findStatusById(app.db, boost.reblogOfId!);
    return original && canViewStatus(app, viewerId, original) ? original : undefined;
  });
}

/** How an account's collections treat a requester. */
export type Relation = "anonymous" | "follower" | "other" | "blocked";

export function relationTo(app: App, account: Account, viewerId: Id | null): Relation {
  if (!viewerId) return "anonymous";
  return readTx(app.db, () => {
    if (isBlocking(app.db, account.id, viewerId)) return "blocked";
    const viewer = findAccountById(app.db, viewerId);
    if (viewer?.domain && isDomainBlocking(app.db, account.id, viewer.domain)) return "blocked";
    return isFollowing(app.db, viewerId, account.id) ? "follower" : "other";
  });
}

/**
 * A page of the account's posts and boosts that `relation` may see, newest first: public and
 * unlisted for anyone, followers-only too for followers, never direct messages (AP §6 outbox).
 */
export function outboxStatuses(
  app: App,
  account: Account,
  viewerId: Id | null,
  relation: Relation,
  page: { limit: number; maxId?: Id; minId?: Id },
): Status[] {
  if (relation === "blocked" || account.suspendedAt !== null) return [];
  return readTx(app.db, () => {
    const ids = accountStatusesPage(app.db, account.id, viewerId, relation, { excludeDirect: true }, page, app.now());
    return inOrder(ids, findStatusesByIds(app.db, ids));
  });
}

/** Recent public and unlisted posts for the HTML profile page (no replies, no boosts). */
export function recentPublicStatuses(app: App, account: Account, limit: number): Status[] {
  if (account.suspendedAt !== null) return [];
  return readTx(app.db, () => {
    const ids = accountStatusesPage(app.db, account.id, null, "anonymous", { excludeReplies: true, excludeReblogs: true }, { limit }, app.now());
    return inOrder(ids, findStatusesByIds(app.db, ids));
  });
}

/** Pinned statuses, newest pin first (Mastodon allows a handful). */
export function pinnedStatuses(app: App, account: Account): Status[] {
  if (account.suspendedAt !== null) return [];
  return readTx(app.db, () => {
    const ids = accountStatusesPage(app.db, account.id, account.id, "owner", { pinned: true, excludeDirect: true }, { limit: 20 }, app.now());
    return inOrder(ids, findStatusesByIds(app.db, ids));
  });
}

/** An enabled local custom emoji. */
export function findLocalEmoji(app: App, raw: string): CustomEmoji | undefined {
  const id = parseId(raw);
  const emoji = id ? findEmojiById(app.db, id) : undefined;
  return emoji && emoji.domain === null && !emoji.disabled ? emoji : undefined;
}

function inOrder(ids: Id[], found: Map<Id, Status>): Status[] {
  return ids.map((id) => found.get(id)).filter((s): s is Status => s !== undefined);
}
