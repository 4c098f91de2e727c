// What every inbox activity handler gets, and small lookups they share.
import type { App } from "../../app.ts";
import { type Account, findAccountByUri } from "../../storage/accounts.ts";
import { idOf, str } from "../parse/common.ts";
import type { ApObject } from "../types.ts";

export interface InboxContext {
  app: App;
  activity: ApObject;
  /** The account that signed the delivery; the inbox checked that it is the activity's actor. */
  actor: Account;
  /** The local account whose personal inbox received the activity. */
  recipient?: Account;
}

export type InboxHandler = (ctx: InboxContext) => Promise<void> | void;

/** An activity we understood but do nothing with: logged, and the job is done. */
export function ignore(ctx: InboxContext, why: string): void {
  ctx.app.log.debug("inbox: activity ignored", { why, id: str(ctx.activity.id), type: ctx.activity.type, actor: ctx.actor.uri });
}

/** A local account by its actor uri. */
export function localAccountByUri(app: App, uri: string | undefined): Account | undefined {
  if (!uri) return undefined;
  const a = findAccountByUri(app.db, uri);
  return a && a.domain === null ? a : undefined;
}

/** The id of the activity's `object` (a string or an embedded object). */
export const objectId = (activity: ApObject): string | undefined => idOf(activity.object);
