import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";

// The jobs that copy remote media here (federation/remote-media-cache.ts does the work). Their
// names and enqueueing live down here so that federation (a status or an actor arrives) and
// services (a local reader opens a status whose copy was pruned) can both ask for a copy.

export const CACHE_STATUS_MEDIA_JOB = "media.cache_remote";
export const CACHE_ACCOUNT_IMAGES_JOB = "account.cache_images";
export const REMOTE_MEDIA_QUEUE = "remote-media";

/** Enqueues the copy of a remote status's attachments (inside the transaction that stores them). */
export function enqueueStatusMediaCache(app: App, statusId: Id): void {
  if (app.config.cacheRemoteMedia) app.jobs.enqueue(CACHE_STATUS_MEDIA_JOB, { statusId }, { queue: REMOTE_MEDIA_QUEUE });
}

/** Enqueues the copy of a remote account's avatar and header. */
export function enqueueAccountImagesCache(app: App, accountId: Id): void {
  if (app.config.cacheRemoteMedia) app.jobs.enqueue(CACHE_ACCOUNT_IMAGES_JOB, { accountId }, { queue: REMOTE_MEDIA_QUEUE });
}
