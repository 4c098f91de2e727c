import type { App } from "../app.ts";
import { cleanupOauth } from "./handlers/oauth-cleanup.ts";
import { handleStatusFanout } from "./handlers/status-fanout.ts";
import { handleFeedTrim } from "./handlers/feed-trim.ts";
import { handleFeedMerge } from "./handlers/feed-merge.ts";
import { registerFederationJobs } from "../federation/register.ts";
import { cleanupMedia, handleMediaProcess, handleMediaRemoveFiles } from "./handlers/media.ts";

const HOUR = 3600_000;

/** Every job handler and periodic task of the server. */
export function registerJobHandlers(app: App): void {
  app.jobs.every("oauth.cleanup", 6 * HOUR, cleanupOauth);
  // Database writes only: batches of fan-outs share one commit (see RegisterOptions.transactional).
  app.jobs.register("status.fanout", handleStatusFanout, { queue: "feeds", transactional: true });
  app.jobs.register("feed.merge", handleFeedMerge, { queue: "feeds", transactional: true });
  app.jobs.every("feeds.trim", HOUR, handleFeedTrim);
  registerFederationJobs(app);
  // Media processing waits on the worker pool (and, for video, ffmpeg): its own queue.
  app.jobs.register("media.process", handleMediaProcess, { queue: "media" });
  app.jobs.register("media.remove_files", handleMediaRemoveFiles);
  app.jobs.every("media.cleanup", HOUR, cleanupMedia);
}
