// Incoming Move (AP §5.11): the actor moved to another account, which must name it in
// alsoKnownAs. Local followers follow the new account and leave the old one.
import { moveRemoteAccount } from "../../services/account-moves.ts";
import { idOf } from "../parse/common.ts";
import { resolveAccountByUri } from "../resolve/accounts.ts";
import { type InboxContext, ignore, objectId } from "./context.ts";

export async function handleMove(ctx: InboxContext): Promise<void> {
  const { app, activity, actor } = ctx;
  if (objectId(activity) !== actor.uri) return ignore(ctx, "Move of another account");
  const targetUri = idOf(activity.target);
  if (!targetUri || targetUri === actor.uri) return ignore(ctx, "Move without a target");
  // Fetched again: the target's alsoKnownAs must be current, not what we stored long ago.
  const target = await resolveAccountByUri(app, targetUri, { refresh: true });
  if (!target || target.suspendedAt !== null || target.movedToAccountId !== null) return ignore(ctx, "Move target unavailable");
  if (!target.alsoKnownAs.includes(actor.uri)) return ignore(ctx, "Move target does not list the actor in alsoKnownAs");
  if (moveRemoteAccount(app, actor, target) === undefined) ignore(ctx, "account moved less than a week ago");
}
