// Incoming Block (AP §5.8): a remote account blocks a local one. Follows end both ways; the
// block hides the blocker's posts from the local user and stops mentions of it.
import { blockAccount } from "../../services/blocks.ts";
import { str } from "../parse/common.ts";
import { type InboxContext, ignore, localAccountByUri, objectId } from "./context.ts";

export function handleBlock(ctx: InboxContext): void {
  const { app, activity, actor } = ctx;
  const target = localAccountByUri(app, objectId(activity));
  if (!target) return ignore(ctx, "Block of an unknown local account");
  // A repeated Block only updates the stored id.
  blockAccount(app, actor, target, { uri: str(activity.id) });
}
