// https://docs.joinmastodon.org/entities/MediaAttachment/ (entities-core.md "MediaAttachment").
import type { App } from "../app.ts";
import { mediaUrl } from "../lib/urls.ts";
import type { MediaAttachment } from "../storage/media-attachments.ts";

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

function metaOf(m: MediaAttachment): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const o = m.meta.original;
  if (o) {
    const size = { width: o.width, height: o.height, size: `${o.width}x${o.height}`, aspect: o.width / o.height };
    meta.original = size;
    // The preview is the original file itself (remote media are not resized); clients lay out with `small`.
    if (m.file === null) meta.small = size;
  }
  if (m.meta.focus) meta.focus = { x: m.meta.focus.x, y: m.meta.focus.y };
  return meta;
}

/**
 * A stored file is served from here; a remote one that was not downloaded is shown at its
 * origin (url = remote_url), with its own thumbnail as preview, else the image itself.
 */
export function toApiMediaAttachment(app: App, m: MediaAttachment): ApiMediaAttachment {
  const local = (file: string | null) => (file ? mediaUrl(app.baseUrl, file) : null);
  const url = local(m.file) ?? m.remoteUrl;
  const preview = local(m.thumbnailFile) ?? m.thumbnailRemoteUrl ?? (m.type === "image" ? url : null);
  return {
    id: m.id,
    type: m.type,
    url: m.processing ? null : url,
    preview_url: preview,
    remote_url: m.remoteUrl,
    preview_remote_url: m.thumbnailRemoteUrl,
    text_url: null,
    meta: metaOf(m),
    description: m.description,
    blurhash: m.blurhash,
  };
}
