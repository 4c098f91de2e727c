// Incoming Accept (AP §5.4): the remote account accepted a local account's follow request.
import { findFollowRequest } from "../../storage/follow-requests.ts";
import { authorizeFollowRequest } from "../../services/follows.ts";
import { type InboxContext, ignore } from "./context.ts";
import { localFollowerAnswered, mayBeFollow } from "./follow-match.ts";

export function handleAccept(ctx: InboxContext): void {
  const { app, activity, actor } = ctx;
  // GoToSocial also accepts replies and likes (interaction policies): nothing to do for those.
  if (!mayBeFollow(activity.object)) return ignore(ctx, "Accept of something other than a Follow");
  const source = localFollowerAnswered(ctx);
  if (!source) return ignore(ctx, "Accept of an unknown follow");
  if (!findFollowRequest(app.db, source.id, actor.id)) return ignore(ctx, "follow already accepted");
  // The request becomes a follow, keeping its uri and options.
  authorizeFollowRequest(app, actor, source.id);
}
