// Which local follow an incoming Accept or Reject answers (AP §5.4): by the Follow's id (ours,
// as stored), else by an embedded Follow whose actor is local and whose object is the sender.
import type { Account } from "../../storage/accounts.ts";
import { findFollowByUri, findFollowRequestByUri } from "../../storage/activity-uris.ts";
import { findAccountById } from "../../storage/accounts.ts";
import { hasType, idOf, isObject } from "../parse/common.ts";
import { type InboxContext, localAccountByUri } from "./context.ts";

/** The local account whose follow (or request) of the actor the activity's object names. */
export function localFollowerAnswered(ctx: InboxContext): Account | undefined {
  const { app, activity, actor } = ctx;
  const obj = activity.object;
  const id = idOf(obj);
  if (id) {
    const record = findFollowRequestByUri(app.db, id) ?? findFollowByUri(app.db, id);
    // Only the followed account may answer a follow.
    if (record && record.targetAccountId === actor.id) {
      const source = findAccountById(app.db, record.accountId);
      if (source?.domain === null) return source;
    }
  }
  if (isObject(obj) && hasType(obj, "Follow") && idOf(obj.object) === actor.uri) return localAccountByUri(app, idOf(obj.actor));
  return undefined;
}

/** True when the object is a Follow or a reference we may resolve to one (not a quote or interaction approval). */
export function mayBeFollow(obj: unknown): boolean {
  return typeof obj === "string" || (isObject(obj) && hasType(obj, "Follow"));
}
