// Incoming Announce (AP §5.7): a remote boost. Kept when someone here follows the booster or
// the boosted post is ours; only public/unlisted posts (or the booster's own) can be boosted.
import { hasLocalFollowers } from "../../storage/remote-statuses.ts";
import { findStatusByUri, type Status } from "../../storage/statuses.ts";
import { createRemoteBoost } from "../../services/remote-boosts.ts";
import { dateOf, hostOf, idOf, idsOf, isObject, str } from "../parse/common.ts";
import { visibilityFromAddressing } from "../parse/addressing.ts";
import { isNoteLike, parseApNote } from "../parse/note.ts";
import { createRemoteStatus } from "../remote-statuses.ts";
import { resolveStatusByUri } from "../resolve/statuses.ts";
import { type InboxContext, ignore } from "./context.ts";

/** The boosted status: known, embedded by its own author (a self-boost), or fetched from its origin. */
async function originalOf(ctx: InboxContext, uri: string): Promise<Status | undefined> {
  const { app, activity, actor } = ctx;
  const known = findStatusByUri(app.db, uri);
  if (known) return known;
  const obj = activity.object;
  // A followers-only self-boost embeds the Note, which nobody else could fetch: a Create.
  if (isObject(obj) && isNoteLike(obj)) {
    const note = parseApNote(obj);
    if (note.attributedTo === actor.uri && hostOf(note.uri) === hostOf(actor.uri)) return createRemoteStatus(app, note, actor, { fetched: true });
  }
  return resolveStatusByUri(app, uri);
}

export async function handleAnnounce(ctx: InboxContext): Promise<void> {
  const { app, activity, actor } = ctx;
  const uri = str(activity.id);
  const originalUri = idOf(activity.object);
  if (!uri || !originalUri) return ignore(ctx, "Announce without an id or object");
  if (findStatusByUri(app.db, uri)) return ignore(ctx, "boost already known");
  const known = findStatusByUri(app.db, originalUri);
  // Nobody here would see it: no fetch, no row (relays are not supported).
  if (!known?.local && !hasLocalFollowers(app.db, actor.id)) return ignore(ctx, "nobody here follows the booster");

  const original = known ?? (await originalOf(ctx, originalUri));
  if (!original || original.reblogOfId) return ignore(ctx, "boosted status not found");
  const own = original.accountId === actor.id;
  const open = original.visibility === "public" || original.visibility === "unlisted";
  if (!open && !(own && original.visibility === "private")) return ignore(ctx, "boost of a private status");

  const visibility = visibilityFromAddressing(idsOf(activity.to), idsOf(activity.cc), actor.followersUrl);
  // A boost addressed to individuals only (limited) has no timeline to appear in.
  if (visibility === "direct") return ignore(ctx, "boost addressed to nobody");
  createRemoteBoost(app, actor, original, { uri, publishedAt: dateOf(activity.published) ?? app.now(), visibility });
}
