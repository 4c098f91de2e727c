import type { App } from "../app.ts";
import { cleanupOauth } from "./handlers/oauth-cleanup.ts";
import { handleStatusFanout } from "./handlers/status-fanout.ts";
import { handleFeedTrim } from "./handlers/feed-trim.ts";
import { handleFeedMerge } from "./handlers/feed-merge.ts";
import { trimTagHistory } from "./handlers/tag-history-trim.ts";
import { registerFederationJobs } from "../federation/register.ts";

const HOUR = 3600_000;

/** Every job handler and periodic task of the server. */
export function registerJobHandlers(app: App): void {
  app.jobs.every("oauth.cleanup", 6 * HOUR, cleanupOauth);
  // Database writes only: batches of fan-outs share one commit (see RegisterOptions.transactional).
  app.jobs.register("status.fanout", handleStatusFanout, { queue: "feeds", transactional: true });
  app.jobs.register("feed.merge", handleFeedMerge, { queue: "feeds", transactional: true });
  app.jobs.every("feeds.trim", HOUR, handleFeedTrim);
  app.jobs.every("tag-history.trim", 24 * HOUR, trimTagHistory);
  registerFederationJobs(app);
}
