// Incoming Reject (AP §5.4): the remote account refused a local account's follow request, or
// removed an existing local follower.
import { dropFollowByRemote } from "../../services/follows.ts";
import { type InboxContext, ignore } from "./context.ts";
import { localFollowerAnswered, mayBeFollow } from "./follow-match.ts";

export function handleReject(ctx: InboxContext): void {
  const { app, activity, actor } = ctx;
  if (!mayBeFollow(activity.object)) return ignore(ctx, "Reject of something other than a Follow");
  const source = localFollowerAnswered(ctx);
  if (!source) return ignore(ctx, "Reject of an unknown follow");
  dropFollowByRemote(app, source, actor);
}
