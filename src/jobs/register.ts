import type { App } from "../app.ts";
import { cleanupOauth } from "./handlers/oauth-cleanup.ts";
import { handleStatusFanout } from "./handlers/status-fanout.ts";
import { handleFeedTrim } from "./handlers/feed-trim.ts";
import { handleFeedMerge } from "./handlers/feed-merge.ts";
import { handleScheduledStatusPublish } from "./handlers/scheduled-status-publish.ts";
import { handlePollEnd } from "./handlers/poll-end.ts";
import { POLL_END_JOB } from "../services/polls.ts";
import { trimTagHistory } from "./handlers/tag-history-trim.ts";
import { registerFederationJobs } from "../federation/register.ts";
import { PUBLISH_JOB } from "../services/scheduled-statuses.ts";
import { registerBackupSchedule } from "../ops/backup-schedule.ts";
import { registerStoragePrune } from "../ops/storage-prune.ts";
import { cleanupMedia, handleMediaProcess, handleMediaRemoveFiles } from "./handlers/media.ts";

const HOUR = 3600_000;

/** Every job handler and periodic task of the server. */
export function registerJobHandlers(app: App): void {
  app.jobs.every("oauth.cleanup", 6 * HOUR, cleanupOauth);
  // Database writes only: batches of fan-outs share one commit (see RegisterOptions.transactional).
  app.jobs.register("status.fanout", handleStatusFanout, { queue: "feeds", transactional: true });
  app.jobs.register("feed.merge", handleFeedMerge, { queue: "feeds", transactional: true });
  app.jobs.every("feeds.trim", HOUR, handleFeedTrim);
  // Its own queue: a backlog of fan-outs or deliveries never holds a post past its time.
  app.jobs.register(PUBLISH_JOB, handleScheduledStatusPublish, { queue: "scheduled", transactional: true });
  // Notifications and the queued Update(Question): database writes only, batched in one commit.
  app.jobs.register(POLL_END_JOB, handlePollEnd, { queue: "feeds", transactional: true });
  app.jobs.every("tag-history.trim", 24 * HOUR, trimTagHistory);
  registerFederationJobs(app);
  registerBackupSchedule(app);
  registerStoragePrune(app);
  // Media processing waits on the worker pool (and, for video, ffmpeg): its own queue.
  app.jobs.register("media.process", handleMediaProcess, { queue: "media" });
  app.jobs.register("media.remove_files", handleMediaRemoveFiles);
  app.jobs.every("media.cleanup", HOUR, cleanupMedia);
}
