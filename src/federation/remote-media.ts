// Media of remote statuses: rows that point at the origin's files (nothing is downloaded), none
// at all for domains whose media the admin rejects (AP §4.5, §7).
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import type { Account } from "../storage/accounts.ts";
import { type MediaAttachment, type MediaMeta, type NewRemoteMedia } from "../storage/media-attachments.ts";
import { domainPolicy } from "./domain-policy.ts";
import type { ParsedAttachment } from "./parse/note.ts";

export type RemoteMediaDraft = Omit<NewRemoteMedia, "statusId" | "createdAt">;

function metaOf(a: ParsedAttachment): MediaMeta {
  const meta: MediaMeta = {};
  if (a.width !== null && a.height !== null) meta.original = { width: a.width, height: a.height };
  if (a.focus) meta.focus = { x: a.focus[0], y: a.focus[1] };
  return meta;
}

/** True when the author's domain may not bring media (or emojis) here. */
export function mediaRejected(app: App, author: Account): boolean {
  return author.domain !== null && domainPolicy(app, author.domain).rejectMedia;
}

/** New media rows for a status's attachments, in the author's order (ids are drawn in order). */
export function remoteMediaDrafts(app: App, author: Account, attachments: ParsedAttachment[]): RemoteMediaDraft[] {
  if (attachments.length === 0 || mediaRejected(app, author)) return [];
  return attachments.map((a) => ({
    id: app.ids.next(),
    accountId: author.id,
    type: a.type,
    contentType: a.mediaType,
    remoteUrl: a.url,
    thumbnailRemoteUrl: a.thumbnailUrl,
    description: a.description,
    blurhash: a.blurhash,
    meta: metaOf(a),
  }));
}

export type MediaChange =
  /** Same files in the same order: only their details may have changed. */
  | { kind: "same"; updates: { id: Id; description: string | null; blurhash: string | null; meta: MediaMeta }[]; significant: boolean }
  /** Files added, removed or reordered: the old rows are detached and new ones created. */
  | { kind: "replace"; drafts: RemoteMediaDraft[] };

/**
 * What an explicit edit does to a status's media. A changed alt text or focus counts as a
 * significant change (a new revision), as in Mastodon.
 */
export function remoteMediaChange(app: App, author: Account, current: MediaAttachment[], next: ParsedAttachment[]): MediaChange {
  const wanted = mediaRejected(app, author) ? [] : next;
  const sameFiles = current.length === wanted.length && current.every((m, i) => m.remoteUrl === wanted[i].url);
  if (!sameFiles) return { kind: "replace", drafts: remoteMediaDrafts(app, author, wanted) };
  let significant = false;
  const updates = current.map((m, i) => {
    const a = wanted[i];
    const meta = metaOf(a);
    if (m.description !== a.description || JSON.stringify(m.meta.focus) !== JSON.stringify(meta.focus)) significant = true;
    return { id: m.id, description: a.description, blurhash: a.blurhash, meta };
  });
  return { kind: "same", updates, significant };
}
