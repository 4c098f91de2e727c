import type { App } from "../../app.ts";
import type { Id } from "../../lib/ids.ts";
import { cacheAccountImages, cacheStatusMedia } from "../../federation/remote-media-cache.ts";
import { processAvUpload } from "../../services/media-av.ts";
import { pruneRemoteMedia } from "../../services/remote-media-prune.ts";

/** `media.cache_remote`: local copies of a remote status's attachments (video and audio processed as uploads). */
export async function handleCacheStatusMedia(app: App, payload: { statusId: Id }): Promise<void> {
  await cacheStatusMedia(app, String(payload.statusId), processAvUpload);
}

/** `account.cache_images`: local copies of a remote account's avatar and header. */
export async function handleCacheAccountImages(app: App, payload: { accountId: Id }): Promise<void> {
  await cacheAccountImages(app, String(payload.accountId));
}

/** Periodic: copies nothing shows any more, and the oldest beyond remoteMediaCacheBytes. */
export async function keepRemoteMediaBudget(app: App): Promise<void> {
  const r = await pruneRemoteMedia(app, { maxBytes: app.config.remoteMediaCacheBytes });
  if (r.entries > 0) app.log.info("remote media cache pruned", { entries: r.entries, bytes: r.bytes, remainingBytes: r.remainingBytes });
}
