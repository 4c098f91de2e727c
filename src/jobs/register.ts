import type { App } from "../app.ts";
import { cleanupOauth } from "./handlers/oauth-cleanup.ts";
import { handleStatusFanout } from "./handlers/status-fanout.ts";
import { handleFeedTrim } from "./handlers/feed-trim.ts";
import { handleFeedMerge } from "./handlers/feed-merge.ts";
import { handleScheduledStatusPublish } from "./handlers/scheduled-status-publish.ts";
import { registerFederationJobs } from "../federation/register.ts";
import { PUBLISH_JOB } from "../services/scheduled-statuses.ts";
import { PUSH_SEND_JOB } from "../services/push-notify.ts";
import { handlePushSend } from "../push/deliver.ts";

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
  // Its own queue: a burst of Web Push deliveries never waits behind federation.
  app.jobs.register(PUSH_SEND_JOB, handlePushSend, { queue: "push" });
  registerFederationJobs(app);
}
