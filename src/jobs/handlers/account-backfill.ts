import type { App } from "../../app.ts";
import { backfillAccountPosts } from "../../federation/outbox-backfill.ts";
import { parseId } from "../../lib/ids.ts";
import { mergeIntoFeeds } from "../../services/feeds.ts";
import { findAccountById } from "../../storage/accounts.ts";
import { addAsyncRefreshResults, deleteAsyncRefreshesBefore, FINISHED_REFRESH_TTL_MS, finishAsyncRefresh } from "../../storage/async-refreshes.ts";

/**
 * `account.backfill` {accountId, refreshId, pins?, ownerId?} (services/account-refresh.ts
 * enqueues it): the account's recent outbox posts (and with `pins` its featured collection)
 * stored as backfill; with `ownerId`, an accepted follow, they are then merged into that
 * follower's home and lists by the feed rules (mutes, blocks, languages, exclusive lists),
 * without notifications or stream events. Bounded by outboxBackfillTimeout and the
 * per-host politeness of the backfill jobs.
 */
export async function handleAccountBackfill(app: App, payload: { accountId?: unknown; refreshId?: unknown; pins?: unknown; ownerId?: unknown }): Promise<void> {
  const refreshId = typeof payload?.refreshId === "string" ? payload.refreshId : "";
  const accountId = parseId(payload?.accountId);
  const ownerId = payload?.ownerId === undefined ? undefined : parseId(payload.ownerId);
  try {
    const account = accountId ? findAccountById(app.db, accountId) : undefined;
    if (!account) return;
    const c = app.config;
    await backfillAccountPosts(app, account, AbortSignal.timeout(c.outboxBackfillTimeout * 1000), {
      maxPosts: ownerId ? c.followBackfillMaxPosts : c.profileBackfillMaxPosts,
      pins: payload?.pins === true,
      onStored: (n) => addAsyncRefreshResults(app.db, refreshId, n),
    });
    // The merge's own rules require the follow to still exist.
    if (ownerId) mergeIntoFeeds(app, ownerId, account.id);
  } finally {
    finishAsyncRefresh(app.db, refreshId, app.now());
    // Rows are kept as long as the longer interval needs them (threads share the table).
    const keep = Math.max(FINISHED_REFRESH_TTL_MS, app.config.threadBackfillInterval * 1000, app.config.profileBackfillInterval * 1000);
    deleteAsyncRefreshesBefore(app.db, app.now() - keep);
  }
}
