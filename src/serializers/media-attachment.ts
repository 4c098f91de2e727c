// https://docs.joinmastodon.org/entities/MediaAttachment/ (entities-core.md "MediaAttachment").
import type { App } from "../app.ts";
import { mediaStore } from "../media/store.ts";
import type { MediaAttachment, MediaSize } from "../storage/media-attachments.ts";

export interface ApiMediaAttachment {
  id: string;
  type: MediaAttachment["type"];
  url: string | null;
  preview_url: string | null;
  remote_url: string | null;
  preview_remote_url: string | null;
  text_url: null;
  meta: Record<string, unknown>;
  description: string | null;
  blurhash: string | null;
}

const sizeOf = (s: MediaSize) => ({ width: s.width, height: s.height, size: `${s.width}x${s.height}`, aspect: s.width / s.height });

function metaOf(m: MediaAttachment): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const { original, small, focus } = m.meta;
  if (original) meta.original = sizeOf(original);
  if (small) meta.small = sizeOf(small);
  // A remote file is shown as it is (not resized): clients lay out with `small`.
  else if (original && m.file === null && m.remoteUrl !== null) meta.small = sizeOf(original);
  if (focus) meta.focus = { x: focus.x, y: focus.y };
  return meta;
}

/**
 * A stored file is served by the media store; a remote one that was not downloaded is shown
 * at its origin (url = remote_url), with its own thumbnail as preview, else the image itself.
 * `url` is null until an upload is processed.
 */
export function toApiMediaAttachment(app: App, m: MediaAttachment): ApiMediaAttachment {
  const store = mediaStore(app);
  const local = (file: string | null) => (file ? store.url(file) : null);
  const url = m.state === "complete" ? (local(m.file) ?? m.remoteUrl) : null;
  const preview = local(m.thumbnailFile) ?? local(m.smallFile) ?? m.thumbnailRemoteUrl ?? (m.type === "image" && m.file === null ? m.remoteUrl : null);
  return {
    id: m.id,
    type: m.type,
    url,
    preview_url: preview,
    remote_url: m.remoteUrl,
    preview_remote_url: m.thumbnailRemoteUrl,
    text_url: null,
    meta: metaOf(m),
    description: m.description,
    blurhash: m.blurhash,
  };
}
