// https://docs.joinmastodon.org/entities/MediaAttachment/ (entities-core.md "MediaAttachment").
import type { App } from "../app.ts";
import { mediaStore } from "../media/store.ts";
import type { MediaAttachment, MediaAvOriginal, MediaSize } from "../storage/media-attachments.ts";

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

/** An image's size, or a remote file's (width and height only), rather than a probed video or audio file. */
const isSize = (o: MediaSize | MediaAvOriginal): o is MediaSize =>
  typeof o.width === "number" && typeof o.height === "number" && !("frameRate" in o || "duration" in o || "bitrate" in o);

/** "0:01:28.65", the legacy `length`. */
function lengthOf(seconds: number): string {
  const cs = Math.round(seconds * 100);
  const h = Math.floor(cs / 360_000);
  const m = Math.floor((cs % 360_000) / 6000);
  const sec = (cs % 6000) / 100;
  return `${h}:${String(m).padStart(2, "0")}:${sec.toFixed(2).padStart(5, "0")}`;
}

/**
 * Video, gifv and audio: `original` as Mastodon 4 writes it (width, height, frame_rate,
 * duration, bitrate of the stored file), and the top-level keys of the documented entity
 * (length, duration, fps, size, width, height, aspect) that clients still read: Tusky shows
 * `meta.duration` on its video and audio previews.
 */
function avMetaOf(o: MediaAvOriginal, meta: Record<string, unknown>): void {
  const original: Record<string, unknown> = {};
  if (o.width !== undefined && o.height !== undefined) Object.assign(original, { width: o.width, height: o.height });
  if (o.frameRate !== undefined) original.frame_rate = o.frameRate;
  if (o.duration !== undefined) original.duration = o.duration;
  if (o.bitrate !== undefined) original.bitrate = o.bitrate;
  if (o.duration !== undefined) Object.assign(meta, { length: lengthOf(o.duration), duration: o.duration });
  if (o.frameRate !== undefined) {
    const [n, d] = o.frameRate.split("/").map(Number);
    if (n > 0 && d > 0) meta.fps = Math.round(n / d);
  }
  if (o.width !== undefined && o.height !== undefined) Object.assign(meta, sizeOf({ width: o.width, height: o.height }));
  meta.original = original;
}

function metaOf(m: MediaAttachment): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const { original, small, focus } = m.meta;
  if (original && isSize(original)) meta.original = sizeOf(original);
  else if (original) avMetaOf(original, meta);
  if (small) meta.small = sizeOf(small);
  // A remote file is shown as it is (not resized): clients lay out with `small`.
  else if (original && isSize(original) && m.file === null && m.remoteUrl !== null) meta.small = sizeOf(original);
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
