// `inbox.process`: one verified activity, dispatched by type to its handler (AP §7 step 6).
import type { App } from "../../app.ts";
import { hasTombstone } from "../../storage/tombstones.ts";
import { ApiError, PermanentJobError } from "../../errors.ts";
import { findAccountById } from "../../storage/accounts.ts";
import { str, typesOf } from "../parse/common.ts";
import { FederationError } from "../types.ts";
import { handleAccept } from "./accept.ts";
import { handleAnnounce } from "./announce.ts";
import { handleBlock } from "./block.ts";
import type { InboxContext, InboxHandler } from "./context.ts";
import { handleCreate } from "./create.ts";
import { handleDelete } from "./delete.ts";
import { handleAdd, handleRemove } from "./featured.ts";
import { handleFlag } from "./flag.ts";
import { handleFollow } from "./follow.ts";
import type { InboxJobPayload } from "./intake.ts";
import { handleLike } from "./like.ts";
import { handleMove } from "./move.ts";
import { handleReject } from "./reject.ts";
import { handleUndo } from "./undo.ts";
import { handleUpdate } from "./update.ts";

const HANDLERS: Record<string, InboxHandler> = {
  Accept: handleAccept,
  Add: handleAdd,
  Announce: handleAnnounce,
  Block: handleBlock,
  Create: handleCreate,
  Delete: handleDelete,
  Flag: handleFlag,
  Follow: handleFollow,
  Like: handleLike,
  Move: handleMove,
  Reject: handleReject,
  Remove: handleRemove,
  Undo: handleUndo,
  Update: handleUpdate,
};

/** What a suspended remote account may still send: taking things back (AP §7 step 5). */
export const ALLOWED_FROM_SUSPENDED: ReadonlySet<string> = new Set(["Delete", "Reject", "Undo", "Update"]);
/** Activities an Undo takes back: one undone before it arrived is never applied. */
const UNDOABLE: ReadonlySet<string> = new Set(["Follow", "Like", "Announce", "Block", "Accept"]);

/**
 * Runs the handler of the activity's type. Unknown types (EmojiReact, ChatMessage,
 * collections of activities...) are ignored. A service refusing the action (ApiError) or a
 * permanently unusable document ends the job; network failures throw, so it is retried.
 */
export async function processInboxActivity(app: App, payload: InboxJobPayload): Promise<void> {
  const actor = findAccountById(app.db, payload.signerId);
  if (!actor) throw new PermanentJobError(`inbox.process: signer ${payload.signerId} is gone`);
  const recipient = payload.recipientId ? findAccountById(app.db, payload.recipientId) : undefined;
  const activity = payload.activity;
  const type = typesOf(activity).find((t) => t in HANDLERS);
  const about = { id: str(activity.id), type: activity.type, actor: actor.uri };
  if (!type) return app.log.debug("inbox: unsupported activity type", about);
  // Checked again here: the account may have been suspended after the activity was accepted.
  if (actor.suspendedAt !== null && !ALLOWED_FROM_SUSPENDED.has(type)) return app.log.info("inbox: dropped, actor suspended", about);
  // Deliveries run in parallel, so an Undo can overtake what it undoes (AP §5.5).
  if (UNDOABLE.has(type) && about.id && hasTombstone(app.db, about.id)) return app.log.info("inbox: dropped, undone before it arrived", about);

  const ctx: InboxContext = { app, activity, actor, recipient };
  try {
    await HANDLERS[type](ctx);
  } catch (e) {
    if (e instanceof ApiError) return app.log.info("inbox: refused", { ...about, error: e.error });
    if (e instanceof FederationError && e.permanent) throw new PermanentJobError(`${type}: ${e.message}`);
    throw e;
  }
}
