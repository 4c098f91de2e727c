import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { ffmpegTools } from "../media/ffmpeg.ts";
import { enqueueStatusMediaCache } from "../media/remote-cache-jobs.ts";
import { hasUncachedRemoteMedia } from "../storage/remote-media-cache.ts";
import type { Status } from "../storage/statuses.ts";

// Copies on demand: a pruned copy (services/remote-media-prune.ts) is made again when a local
// reader opens the status (GET /api/v1/statuses/:id). At most one request per status and hour
// from this process, so a popular status does not fill the queue while its copy is made.

const KEY = "media:copy-requests";
const WINDOW_MS = 3_600_000;
const MAX_TRACKED = 10_000;

export function requestRemoteMediaCopy(app: App, status: Status): void {
  if (status.local || !app.config.cacheRemoteMedia) return;
  let asked = app.cache.get(KEY) as Map<Id, number> | undefined;
  if (!asked) app.cache.set(KEY, (asked = new Map()));
  const now = app.now();
  const last = asked.get(status.id);
  if (last !== undefined && now - last < WINDOW_MS) return;
  if (!hasUncachedRemoteMedia(app.db, status.id, ffmpegTools(app) !== undefined)) return;
  if (asked.size >= MAX_TRACKED) asked.delete(asked.keys().next().value!);
  asked.set(status.id, now);
  enqueueStatusMediaCache(app, status.id);
}
