// Incoming Update (AP §5.2): an actor's profile, or an edit of a remote post.
import { findStatusByUri } from "../../storage/statuses.ts";
import { hostOf, idOf, isObject } from "../parse/common.ts";
import { isActorDocument, parseApActor } from "../parse/actor.ts";
import { isNoteLike, parseApNote } from "../parse/note.ts";
import { updateRemoteStatus } from "../remote-statuses.ts";
import { resolveAccountByUri, upsertRemoteAccount } from "../resolve/accounts.ts";
import { scheduleFeaturedTagsSync } from "../resolve/featured-tags.ts";
import { type InboxContext, ignore } from "./context.ts";

export async function handleUpdate(ctx: InboxContext): Promise<void> {
  const { app, activity, actor } = ctx;
  const obj = activity.object;
  if (!isObject(obj)) {
    // An Update naming the actor by id: fetch the profile again.
    if (idOf(obj) === actor.uri) await resolveAccountByUri(app, actor.uri, { refresh: true });
    else ignore(ctx, "Update without an embedded object");
    return;
  }
  if (isActorDocument(obj)) {
    // Only an actor can update itself.
    if (idOf(obj) !== actor.uri) return ignore(ctx, "Update of another actor");
    const parsed = parseApActor(obj);
    // A new username needs its handle verified through WebFinger again: refetch instead.
    if (parsed.username.toLowerCase() !== actor.username.toLowerCase()) await resolveAccountByUri(app, actor.uri, { refresh: true });
    else scheduleFeaturedTagsSync(app, upsertRemoteAccount(app, parsed, actor.domain!));
    return;
  }
  if (!isNoteLike(obj)) return ignore(ctx, "Update of an unsupported object");
  // The activity's to/cc stand in for an object that has none (AP §4.2).
  const note = parseApNote(obj, activity);
  if (hostOf(note.uri) !== hostOf(actor.uri)) return ignore(ctx, "Update of an object on another host");
  // A suspended actor may edit what we have, never bring in something new.
  if (actor.suspendedAt !== null && !findStatusByUri(app.db, note.uri)) return ignore(ctx, "Update of an unknown status by a suspended actor");
  await updateRemoteStatus(app, note, actor);
}
