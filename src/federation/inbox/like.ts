// Incoming Like (AP §5.6, §5.13): a favourite of a local post. Misskey's reactions arrive as
// Likes with `content`/`_misskey_reaction`: they count as plain favourites, as on Mastodon.
import { findStatusByUri } from "../../storage/statuses.ts";
import { favouriteStatus } from "../../services/status-interactions.ts";
import { str } from "../parse/common.ts";
import { type InboxContext, ignore, objectId } from "./context.ts";

export function handleLike(ctx: InboxContext): void {
  const { app, activity, actor } = ctx;
  const status = findStatusByUri(app.db, objectId(activity) ?? "");
  // A boost's own uri names no post of ours to like (favouriting it would like the original).
  if (!status || !status.local || status.reblogOfId) return ignore(ctx, "Like of something other than a local status");
  // The Like's id is kept so that an Undo naming it finds the favourite. Repeats are no-ops.
  favouriteStatus(app, actor, status.id, { uri: str(activity.id) });
}
