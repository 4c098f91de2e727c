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
import { handleThreadBackfill } from "../federation/thread-backfill.ts";
import { THREAD_BACKFILL_JOB } from "../services/thread-refresh.ts";
import { handleAccountBackfill } from "./handlers/account-backfill.ts";
import { ACCOUNT_BACKFILL_JOB } from "../services/account-refresh.ts";
import { PUBLISH_JOB } from "../services/scheduled-statuses.ts";
import { AUTHOR_JOB, REBUILD_JOB } from "../search/status-index.ts";
import { handleSearchAuthor, handleSearchRebuild } from "./handlers/search-index.ts";
import { handleAccountPurge, PURGE_JOB, purgeExpiredSuspensions } from "../admin/account-purge.ts";
import { DOMAIN_SUSPEND_JOB, handleDomainSuspension } from "../admin/domain-accounts.ts";
import { DOMAIN_PURGE_JOB, handleDomainPurge } from "../admin/domain-purge.ts";
import { DOMAIN_DROP_MEDIA_JOB, handleDomainMediaDrop } from "../admin/domain-media.ts";
import { refreshTrends, REFRESH_EVERY_MS, REFRESH_TASK } from "../trends/refresh.ts";
import { refreshSuggestions, SUGGESTIONS_REFRESH_EVERY_MS, SUGGESTIONS_REFRESH_TASK } from "../suggestions/refresh.ts";
import { registerBackupSchedule } from "../ops/backup-schedule.ts";
import { registerStoragePrune } from "../ops/storage-prune.ts";
import { registerDashboardSampler } from "../ops/dashboard-samples.ts";
import { cleanupMedia, handleMediaProcess, handleMediaRemoveFiles } from "./handlers/media.ts";
import { handleCardFetch } from "./handlers/card-fetch.ts";
import { CARD_FETCH_JOB } from "../services/preview-cards.ts";
import { handleCacheAccountImages, handleCacheStatusMedia, keepRemoteMediaBudget } from "./handlers/remote-media.ts";
import { CACHE_ACCOUNT_IMAGES_JOB, CACHE_STATUS_MEDIA_JOB, REMOTE_MEDIA_QUEUE } from "../federation/remote-media-cache.ts";
import { PUSH_SEND_JOB } from "../services/push-notify.ts";
import { purgeExpiredIpBlocks } from "../services/ip-blocks.ts";
import { handlePushSend } from "../push/deliver.ts";
import { handleAnnouncementBroadcast, handleAnnouncementExpire, handleAnnouncementPublish } from "./handlers/announcements.ts";
import { ANNOUNCEMENT_BROADCAST_JOB, ANNOUNCEMENT_EXPIRE_JOB, ANNOUNCEMENT_PUBLISH_JOB } from "../services/announcements.ts";
import { handleMailSend } from "./handlers/mail-send.ts";
import { MAIL_SEND_JOB } from "../mail/queue.ts";
import { IMPORT_JOB, processImport } from "../services/csv-import.ts";
import { ARCHIVE_CLEANUP_TASK, ARCHIVE_JOB, cleanupArchives } from "../services/account-archives.ts";
import { handleArchiveBuild } from "./handlers/archive-build.ts";
import { POST_IMPORT_JOB, processPostImport } from "../services/post-import.ts";

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
  // Data of suspended accounts: removed on request or after 30 days, a batch per run.
  app.jobs.register(PURGE_JOB, handleAccountPurge);
  app.jobs.every("accounts.purge_suspended", 6 * HOUR, purgeExpiredSuspensions);
  app.jobs.every("ip_blocks.cleanup", HOUR, purgeExpiredIpBlocks);
  // A suspended domain's known accounts, a batch per run, each then purged as above.
  app.jobs.register(DOMAIN_SUSPEND_JOB, handleDomainSuspension);
  // `roost domains purge`: a domain's accounts removed outright, a batch per run, each as above.
  app.jobs.register(DOMAIN_PURGE_JOB, handleDomainPurge);
  app.jobs.register(DOMAIN_DROP_MEDIA_JOB, handleDomainMediaDrop);
  // Its own queue: a burst of Web Push deliveries never waits behind federation.
  app.jobs.register(PUSH_SEND_JOB, handlePushSend, { queue: "push" });
  // Notifications and the queued Update(Question): database writes only, batched in one commit.
  app.jobs.register(POLL_END_JOB, handlePollEnd, { queue: "feeds", transactional: true });
  // The status index's background work (src/search/DESIGN.md): its own queue, so a long
  // rebuild never delays fan-outs or deliveries.
  app.jobs.register(REBUILD_JOB, handleSearchRebuild, { queue: "search" });
  app.jobs.register(AUTHOR_JOB, handleSearchAuthor, { queue: "search" });
  app.jobs.every(REFRESH_TASK, REFRESH_EVERY_MS, (a) => void refreshTrends(a));
  app.jobs.every(SUGGESTIONS_REFRESH_TASK, SUGGESTIONS_REFRESH_EVERY_MS, async (a) => {
    await refreshSuggestions(a);
  });
  app.jobs.every("tag-history.trim", 24 * HOUR, trimTagHistory);
  registerFederationJobs(app);
  // Its own queue: a thread walk waits on other servers (bounded by threadBackfillTimeout).
  app.jobs.register(THREAD_BACKFILL_JOB, handleThreadBackfill, { queue: "backfill" });
  // Profiles and accepted follows of remote accounts: the same queue (outboxBackfillTimeout).
  app.jobs.register(ACCOUNT_BACKFILL_JOB, handleAccountBackfill, { queue: "backfill" });
  registerBackupSchedule(app);
  registerStoragePrune(app);
  registerDashboardSampler(app);
  // Media processing waits on the worker pool (and, for video, ffmpeg): its own queue.
  app.jobs.register("media.process", handleMediaProcess, { queue: "media" });
  app.jobs.register("media.remove_files", handleMediaRemoveFiles);
  app.jobs.every("media.cleanup", HOUR, cleanupMedia);
  // Waits on other sites (up to 10 s a page): its own queue, so it never holds media or feeds.
  app.jobs.register(CARD_FETCH_JOB, handleCardFetch, { queue: "cards" });
  // Copies of remote media: their own queue, so a slow peer never holds up uploads.
  app.jobs.register(CACHE_STATUS_MEDIA_JOB, handleCacheStatusMedia, { queue: REMOTE_MEDIA_QUEUE });
  app.jobs.register(CACHE_ACCOUNT_IMAGES_JOB, handleCacheAccountImages, { queue: REMOTE_MEDIA_QUEUE });
  app.jobs.every("media.cache_budget", HOUR, keepRemoteMediaBudget);
  // Announcements at their times, and staff's changes told to the streams: beside scheduled posts.
  app.jobs.register(ANNOUNCEMENT_PUBLISH_JOB, handleAnnouncementPublish, { queue: "scheduled", transactional: true });
  app.jobs.register(ANNOUNCEMENT_EXPIRE_JOB, handleAnnouncementExpire, { queue: "scheduled", transactional: true });
  app.jobs.register(ANNOUNCEMENT_BROADCAST_JOB, handleAnnouncementBroadcast, { queue: "scheduled", transactional: true });
  // Its own queue: a slow or failing mail server never holds up anything else.
  app.jobs.register(MAIL_SEND_JOB, handleMailSend, { queue: "mail" });
  // Its own queue: an import's remote look-ups are slow and must not hold up deliveries.
  app.jobs.register(IMPORT_JOB, processImport, { queue: "imports" });
  app.jobs.register(ARCHIVE_JOB, handleArchiveBuild, { queue: "imports" });
  // A batch of posts per run, re-enqueued while posts remain: CSV imports get their turn.
  app.jobs.register(POST_IMPORT_JOB, processPostImport, { queue: "imports" });
  app.jobs.every(ARCHIVE_CLEANUP_TASK, 6 * HOUR, cleanupArchives);
}
