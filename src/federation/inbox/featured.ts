// Incoming Add / Remove (AP §5.10): pinning and unpinning on the actor's featured collection,
// and featuring a hashtag. Mastodon sends a Hashtag to the `featured` collection too and tells
// the two apart by the object's type; its `featuredTags` collection is accepted as well.
import { findStatusByUri, type Status } from "../../storage/statuses.ts";
import { pinStatus, unpinStatus } from "../../services/status-interactions.ts";
import { hasType, hostOf, idOf, isObject } from "../parse/common.ts";
import { addRemoteFeaturedTag, parseHashtag, type RemoteHashtag, removeRemoteFeaturedTag } from "../resolve/featured-tags.ts";
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
  if (isObject(obj) && hasType(obj, "Hashtag")) return undefined; // featuredHashtag's
  const uri = idOf(obj);
  let status = uri ? findStatusByUri(app.db, uri) : undefined;
  if (!status && fetch && uri && hostOf(uri) === hostOf(actor.uri)) status = await resolveStatusByUri(app, uri);
  if (!status || status.accountId !== actor.id || status.reblogOfId) {
    ignore(ctx, "not a status of the actor");
    return undefined;
  }
  return status;
}

/** The Hashtag of an Add / Remove on the actor's featured or featuredTags collection. */
function featuredHashtag(ctx: InboxContext): RemoteHashtag | undefined {
  const { activity, actor } = ctx;
  if (!isObject(activity.object) || !hasType(activity.object, "Hashtag")) return undefined;
  const target = idOf(activity.target);
  if (!target || (target !== actor.featuredUrl && target !== actor.featuredTagsUrl)) return undefined;
  const tag = parseHashtag(activity.object);
  if (!tag) ignore(ctx, "not a valid hashtag");
  return tag;
}

export async function handleAdd(ctx: InboxContext): Promise<void> {
  const tag = featuredHashtag(ctx);
  if (tag) return addRemoteFeaturedTag(ctx.app, ctx.actor, tag);
  const status = await featuredStatus(ctx, true);
  // Already pinned, or a direct post: pinStatus refuses (ApiError), which the dispatcher logs.
  if (status) pinStatus(ctx.app, ctx.actor, status.id);
}

export async function handleRemove(ctx: InboxContext): Promise<void> {
  const tag = featuredHashtag(ctx);
  if (tag) return removeRemoteFeaturedTag(ctx.app, ctx.actor, tag);
  const status = await featuredStatus(ctx, false);
  if (status) unpinStatus(ctx.app, ctx.actor, status.id);
}
