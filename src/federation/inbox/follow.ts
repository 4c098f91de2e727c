// Incoming Follow (AP §5.4): a remote account asks to follow a local one.
import { isBlockedEitherWay, isDomainBlocking } from "../../storage/relationship-checks.ts";
import { followAccount, refuseRemoteFollow } from "../../services/follows.ts";
import { str } from "../parse/common.ts";
import { instanceActorUri } from "../instance-actor.ts";
import { type InboxContext, ignore, localAccountByUri, objectId } from "./context.ts";

export function handleFollow(ctx: InboxContext): void {
  const { app, activity, actor } = ctx;
  const followId = str(activity.id);
  const targetUri = objectId(activity);
  // The instance actor is no account row and follows nobody back; Mastodon answers Reject,
  // which needs an outbox path of its own (relays are not supported yet).
  if (targetUri === instanceActorUri(app)) return ignore(ctx, "Follow of the instance actor");
  const target = localAccountByUri(app, targetUri);
  if (!target || target.suspendedAt !== null) return ignore(ctx, "Follow of an unknown local account");
  // Accept and Reject name the Follow by its id: without one nobody could answer it.
  if (!followId) return ignore(ctx, "Follow without an id");

  if (
    isBlockedEitherWay(app.db, target.id, actor.id) ||
    (actor.domain !== null && isDomainBlocking(app.db, target.id, actor.domain)) ||
    target.movedToAccountId !== null
  ) {
    refuseRemoteFollow(app, actor, target, followId);
    return;
  }
  // Locked target (or silenced follower): a request and a follow_request notification.
  // Otherwise the follow is made and the outbox hook sends Accept; a follow that already
  // exists gets Accept again for the new id.
  followAccount(app, actor, target, {}, { uri: followId });
}
