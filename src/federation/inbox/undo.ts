// Incoming Undo (AP §5.5): of a Follow, Like, Announce, Block or Accept, embedded or named by
// its id (Mastodon only resolves boosts, follows and blocks by id; a stored Like id works too).
import { insertTombstone } from "../../storage/tombstones.ts";
import { ApiError } from "../../errors.ts";
import type { Account } from "../../storage/accounts.ts";
import { findBlockPairByUri, findFavouriteByUri, findFollowByUri, findFollowRequestByUri } from "../../storage/activity-uris.ts";
import { findAccountById } from "../../storage/accounts.ts";
import { findReblog, findStatusByUri, type Status } from "../../storage/statuses.ts";
import { unblockAccount } from "../../services/blocks.ts";
import { dropFollowByRemote, unfollowAccount } from "../../services/follows.ts";
import { unfavouriteStatus } from "../../services/status-interactions.ts";
import { deleteStatus } from "../../services/statuses.ts";
import { hasType, hostOf, idOf, isObject } from "../parse/common.ts";
import type { ApObject } from "../types.ts";
import { type InboxContext, ignore, localAccountByUri } from "./context.ts";
import { localFollowerAnswered } from "./follow-match.ts";

/** The actor's boost named by the Announce id, else its boost of the Announce's object. */
function boostOf(ctx: InboxContext, announceId: string | undefined, originalUri: string | undefined): Status | undefined {
  const { app, actor } = ctx;
  const byId = announceId ? findStatusByUri(app.db, announceId) : undefined;
  if (byId && byId.accountId === actor.id && byId.reblogOfId) return byId;
  const original = originalUri ? findStatusByUri(app.db, originalUri) : undefined;
  return original ? findReblog(app.db, actor.id, original.id) : undefined;
}

function unfavourite(ctx: InboxContext, statusId: string): void {
  try {
    unfavouriteStatus(ctx.app, ctx.actor, statusId);
  } catch (e) {
    // Not favourited and not visible to the actor: nothing to undo.
    if (!(e instanceof ApiError)) throw e;
  }
}

function localAccount(ctx: InboxContext, id: string): Account | undefined {
  const a = findAccountById(ctx.app.db, id);
  return a?.domain === null ? a : undefined;
}

/** Undo of an embedded activity, by its type. Returns false when the type is not one we undo. */
function undoEmbedded(ctx: InboxContext, obj: ApObject): boolean {
  const { app, actor } = ctx;
  const id = idOf(obj);
  // Only the actor's own activities can be undone by it.
  if (obj.actor !== undefined && idOf(obj.actor) !== actor.uri) {
    ignore(ctx, "Undo of another actor's activity");
    return true;
  }
  if (hasType(obj, "Follow")) {
    const record = id ? (findFollowByUri(app.db, id) ?? findFollowRequestByUri(app.db, id)) : undefined;
    const target = localAccountByUri(app, idOf(obj.object)) ?? (record?.accountId === actor.id ? localAccount(ctx, record.targetAccountId) : undefined);
    if (target) unfollowAccount(app, actor, target);
    else ignore(ctx, "Undo of an unknown Follow");
  } else if (hasType(obj, "Like")) {
    const status = findStatusByUri(app.db, idOf(obj.object) ?? "");
    const fav = id ? findFavouriteByUri(app.db, id) : undefined;
    const statusId = status?.id ?? (fav?.accountId === actor.id ? fav.statusId : undefined);
    if (statusId) unfavourite(ctx, statusId);
    else ignore(ctx, "Undo of an unknown Like");
  } else if (hasType(obj, "Announce")) {
    const boost = boostOf(ctx, id, idOf(obj.object));
    if (boost) deleteStatus(app, boost);
    else ignore(ctx, "Undo of an unknown Announce");
  } else if (hasType(obj, "Block")) {
    const pair = id ? findBlockPairByUri(app.db, id) : undefined;
    const target = localAccountByUri(app, idOf(obj.object)) ?? (pair?.accountId === actor.id ? localAccount(ctx, pair.targetAccountId) : undefined);
    if (target) unblockAccount(app, actor, target);
    else ignore(ctx, "Undo of an unknown Block");
  } else if (hasType(obj, "Accept")) {
    // The actor takes back its acceptance of a local account's follow.
    const source = localFollowerAnswered({ ...ctx, activity: obj });
    if (source) dropFollowByRemote(app, source, actor);
    else ignore(ctx, "Undo of an unknown Accept");
  } else {
    return false;
  }
  return true;
}

/** Undo naming the activity by id only: whatever of the actor's records carries that id. */
function undoByReference(ctx: InboxContext, id: string): void {
  const { app, actor } = ctx;
  const boost = boostOf(ctx, id, undefined);
  if (boost) return deleteStatus(app, boost);
  const record = findFollowByUri(app.db, id) ?? findFollowRequestByUri(app.db, id);
  if (record?.accountId === actor.id) {
    const target = localAccount(ctx, record.targetAccountId);
    if (target) return unfollowAccount(app, actor, target);
  }
  const block = findBlockPairByUri(app.db, id);
  if (block?.accountId === actor.id) {
    const target = localAccount(ctx, block.targetAccountId);
    if (target) return unblockAccount(app, actor, target);
  }
  const fav = findFavouriteByUri(app.db, id);
  if (fav?.accountId === actor.id) return unfavourite(ctx, fav.statusId);
  ignore(ctx, "Undo of an unknown activity");
}

/**
 * An undone activity is dead: if it has not arrived yet (deliveries run in parallel, AP §5.5)
 * or comes again, it is dropped (dispatch.ts). Its id is recorded like a deleted post's. Only
 * ids on the actor's own server: nobody may undo another server's activities.
 */
function rememberUndone(ctx: InboxContext, id: string): void {
  if (hostOf(id) !== hostOf(ctx.actor.uri)) return;
  insertTombstone(ctx.app.db, { uri: id, accountId: ctx.actor.id, createdAt: ctx.app.now() });
}

export function handleUndo(ctx: InboxContext): void {
  const obj = ctx.activity.object;
  const id = idOf(obj);
  if (isObject(obj) && undoEmbedded(ctx, obj)) {
    if (id && obj.actor !== undefined && idOf(obj.actor) === ctx.actor.uri) rememberUndone(ctx, id);
    return;
  }
  if (id) {
    undoByReference(ctx, id);
    rememberUndone(ctx, id);
  } else ignore(ctx, "Undo without an object");
}
