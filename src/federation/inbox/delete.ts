// Incoming Delete (AP §5.3): an actor deleting itself, or one of its posts.
import { purgeRemoteAccount } from "../../services/remote-accounts.ts";
import { isObject, str } from "../parse/common.ts";
import { deleteRemoteStatus } from "../remote-statuses.ts";
import { type InboxContext, ignore, objectId } from "./context.ts";

export function handleDelete(ctx: InboxContext): void {
  const { app, activity, actor } = ctx;
  const id = objectId(activity);
  if (!id) return ignore(ctx, "Delete without an object");
  if (id === actor.uri) {
    // The account and all its content go (the row stays, suspended: see purgeRemoteAccount).
    purgeRemoteAccount(app, actor);
    return;
  }
  // The object may be a string, a Tombstone or the full Note; OStatus-era posts are named by atomUri.
  deleteRemoteStatus(app, id, actor);
  const atomUri = isObject(activity.object) ? str(activity.object.atomUri) : undefined;
  if (atomUri && atomUri !== id) deleteRemoteStatus(app, atomUri, actor);
}
