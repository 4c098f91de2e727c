// Incoming Create (AP §5.1): a remote post (Note and the types converted like it).
import { isNoteLike, parseApNote } from "../parse/note.ts";
import { hostOf, isObject } from "../parse/common.ts";
import { createRemoteStatus } from "../remote-statuses.ts";
import { resolveStatusByUri } from "../resolve/statuses.ts";
import { type InboxContext, ignore } from "./context.ts";
import { handleVote } from "./vote.ts";

export async function handleCreate(ctx: InboxContext): Promise<void> {
  const { app, activity, actor, recipient } = ctx;
  const obj = activity.object;
  // A post can only come from its author's server.
  if (typeof obj === "string") {
    if (hostOf(obj) !== hostOf(actor.uri)) return ignore(ctx, "Create of an object on another host");
    await resolveStatusByUri(app, obj);
    return;
  }
  if (isObject(obj) && handleVote(ctx, obj)) return;
  // Anything else (ChatMessage, a vote in a poll we do not have...) is not a status.
  if (!isObject(obj) || !isNoteLike(obj)) return ignore(ctx, "Create of an unsupported object");
  // The activity's to/cc stand in for an object that has none (AP §4.2).
  const note = parseApNote(obj, activity);
  if (hostOf(note.uri) !== hostOf(actor.uri)) return ignore(ctx, "Create of an object on another host");
  // Known already: createRemoteStatus only adds the personal-inbox recipient.
  await createRemoteStatus(app, note, actor, { recipient });
}
