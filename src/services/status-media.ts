import type { App } from "../app.ts";
import { unprocessable } from "../errors.ts";
import { type Id, parseId } from "../lib/ids.ts";
import type { MediaAttachment, MediaMeta } from "../storage/media-attachments.ts";
import { attachMedia, findAttachableMedia } from "../storage/media-uploads.ts";
import { checkDescription, parseFocus } from "./media-uploads.ts";

// `media_ids[]` of a new or edited status (Mastodon's PostStatusService#validate_media! and
// UpdateStatusService#validate_media!, with their messages).

export const tooManyFiles = (max: number) => `Cannot attach more than ${max} files`;
const IMAGES_AND_VIDEO = "Cannot attach a video to a post that already contains images";
const NOT_READY = "Cannot attach files that have not finished processing. Try again in a moment!";

/**
 * The uploads a status will carry, in `media_ids[]` order: the author's own, finished, and
 * not attached elsewhere (`statusId`: an edit may keep its own). A status has media or a poll,
 * not both: Mastodon answers that with its too-many-files message.
 */
export function resolveStatusMedia(
  app: App,
  accountId: Id,
  rawIds: string[] | undefined,
  opts: { hasPoll: boolean; statusId: Id | null },
): MediaAttachment[] {
  if (!rawIds || rawIds.length === 0) return [];
  const max = app.config.maxMediaAttachments;
  if (rawIds.length > max || opts.hasPoll) throw unprocessable(tooManyFiles(max));
  const parsed = rawIds.map((raw) => ({ raw, id: parseId(raw) }));
  const wanted = [...new Set(parsed.map((p) => p.id).filter((id): id is Id => id !== undefined))];
  const found = new Map(findAttachableMedia(app.db, accountId, wanted, opts.statusId).map((m) => [m.id, m]));
  const missing = parsed.filter((p) => p.id === undefined || !found.has(p.id)).map((p) => p.raw);
  // The ids as sent (Mastodon's wording), each cut to an id's length: never a megabyte echoed back.
  const shown = missing.map((id) => (id.length > 20 ? `${id.slice(0, 20)}…` : id));
  if (missing.length) throw unprocessable(`Media ${shown.join(", ")} not found or already attached to another post`);
  const media = wanted.map((id) => found.get(id)!);
  if (media.length > 1 && media.some((m) => m.type === "video" || m.type === "audio")) throw unprocessable(IMAGES_AND_VIDEO);
  if (media.some((m) => m.state !== "complete")) throw unprocessable(NOT_READY);
  return media;
}

/** Attaches in order, inside the status's transaction; another post that took one meanwhile is a 422. */
export function attachStatusMedia(app: App, statusId: Id, media: Id[]): void {
  if (media.length === 0) return;
  if (attachMedia(app.db, statusId, media) !== media.length) {
    throw unprocessable(`Media ${media.join(", ")} not found or already attached to another post`);
  }
}

/** One `media_attributes[]` entry of an edit. */
export interface MediaAttributesInput {
  id: string;
  description?: string;
  focus?: string;
}

export interface MediaDetailsChange {
  id: Id;
  description: string | null;
  meta: MediaMeta;
}

/**
 * The alt text and focus changes an edit's `media_attributes[]` make to the status's next
 * media (entries for other ids are ignored, as in Mastodon). Alt text may be set on uploads
 * this edit attaches; on those the status already carries it is fixed (the seed: no update
 * once attached), so changing it is refused. Focus may change (a significant edit).
 */
export function mediaAttributeChanges(next: MediaAttachment[], attached: ReadonlySet<Id>, attrs: MediaAttributesInput[]): MediaDetailsChange[] {
  const byId = new Map(next.map((m) => [m.id, m]));
  const out: MediaDetailsChange[] = [];
  for (const a of attrs) {
    const id = parseId(a.id);
    const m = id ? byId.get(id) : undefined;
    if (!m) continue;
    const given = checkDescription(a.description);
    const description = given === undefined ? m.description : given;
    if (description !== m.description && attached.has(m.id)) {
      throw unprocessable("Validation failed: Description cannot be changed once the media is attached to a post");
    }
    const focus = parseFocus(a.focus);
    const meta = focus ? { ...m.meta, focus } : m.meta;
    if (description !== m.description || JSON.stringify(meta.focus) !== JSON.stringify(m.meta.focus)) out.push({ id: m.id, description, meta });
  }
  return out;
}
