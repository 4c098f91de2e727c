// Incoming Add / Remove (AP §5.10): pinning and unpinning on the actor's featured collection.
// Featured hashtags (Hashtag objects) are not kept yet.
import { findStatusByUri, type Status } from "../../storage/statuses.ts";
import { pinStatus, unpinStatus } from "../../services/status-interactions.ts";
import { hasType, hostOf, idOf, isObject } from "../parse/common.ts";
import { resolveStatusByUri } from "../resolve/statuses.ts";
import { type InboxContext, ignore } from "./context.ts";

/** The actor's own status named by the object, when the target is its featured collection. */
async function featuredStatus(ctx: InboxContext, fetch: boolean): Promise<Status | undefined> {
  const { app, activity, actor } = ctx;
  if (!actor.featuredUrl || idOf(activity.target) !== actor.featuredUrl) {
    ignore(ctx, "target is not the actor's featured collection");
    return undefined;
  }
  const obj = activity.object;
  if (isObject(obj) && hasType(obj, "Hashtag")) {
    ignore(ctx, "featured hashtags are not supported");
    return undefined;
  }
  const uri = idOf(obj);
  let status = uri ? findStatusByUri(app.db, uri) : undefined;
  if (!status && fetch && uri && hostOf(uri) === hostOf(actor.uri)) status = await resolveStatusByUri(app, uri);
  if (!status || status.accountId !== actor.id || status.reblogOfId) {
    ignore(ctx, "not a status of the actor");
    return undefined;
  }
  return status;
}

export async function handleAdd(ctx: InboxContext): Promise<void> {
  const status = await featuredStatus(ctx, true);
  // Already pinned, or a direct post: pinStatus refuses (ApiError), which the dispatcher logs.
  if (status) pinStatus(ctx.app, ctx.actor, status.id);
}

export async function handleRemove(ctx: InboxContext): Promise<void> {
  const status = await featuredStatus(ctx, false);
  if (status) unpinStatus(ctx.app, ctx.actor, status.id);
}
