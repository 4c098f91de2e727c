// Background completion of remote threads (issue 19 part 1): the `thread.backfill` job
// (federation/thread-backfill.ts) fetches missing ancestors and replies; this decides when it
// runs and tracks it as an AsyncRefresh (Mastodon 4.4+: `Mastodon-Async-Refresh` on
// GET /api/v1/statuses/:id/context, polled at GET /api/v1_alpha/async_refreshes/:id).
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { randomToken } from "../lib/crypto.ts";
import {
  type AsyncRefresh,
  findAsyncRefreshById,
  findAsyncRefreshByKey,
  FINISHED_REFRESH_TTL_MS,
  startAsyncRefresh,
} from "../storage/async-refreshes.ts";
import { findStatusById, type Status } from "../storage/statuses.ts";
import { findAccountById } from "../storage/accounts.ts";
import { isBlocking, isDomainBlocking } from "../storage/relationship-checks.ts";

export const THREAD_BACKFILL_JOB = "thread.backfill";
/** Mastodon's AsyncRefreshesConcern default. */
export const ASYNC_REFRESH_RETRY_SECONDS = 3;

export const threadRefreshKey = (statusId: Id) => `context:${statusId}`;

/** A running row whose job died with the process (it never finished) no longer counts. */
function isLive(app: App, r: AsyncRefresh): boolean {
  return r.status === "running" && r.createdAt > app.now() - 2 * app.config.threadBackfillTimeout * 1000;
}

/** Nothing is fetched on behalf of a viewer who blocks the post's author or its domain. */
function blocksAuthor(app: App, viewerId: Id, status: Status): boolean {
  if (isBlocking(app.db, viewerId, status.accountId)) return true;
  const author = findAccountById(app.db, status.accountId);
  return !!author && (author.suspendedAt !== null || isDomainBlocking(app.db, viewerId, author.domain));
}

/** The thread has something remote: the status or a stored ancestor, or a parent still unknown. */
function hasRemoteParts(app: App, status: Status, thread: Status[]): boolean {
  if (!status.local || (status.inReplyToUri !== null && status.inReplyToId === null)) return true;
  return thread.some((s) => !s.local || (s.inReplyToId === null && s.inReplyToUri !== null));
}

/**
 * The refresh of `status`'s thread: the running one, or a new one (job enqueued) when a
 * signed-in viewer asks, backfill is on, the thread has remote parts and it was not refreshed
 * within threadBackfillInterval. An anonymous viewer never starts one. `thread`: the posts
 * of the context already loaded (saves a query).
 */
export function refreshThread(app: App, viewerId: Id | null, status: Status, thread: Status[] = []): AsyncRefresh | undefined {
  const key = threadRefreshKey(status.id);
  const last = findAsyncRefreshByKey(app.db, key);
  if (last && isLive(app, last)) return last;
  if (viewerId === null || !app.config.threadBackfill || blocksAuthor(app, viewerId, status)) return undefined;
  if (last?.finishedAt && last.finishedAt > app.now() - app.config.threadBackfillInterval * 1000) return undefined;
  if (!hasRemoteParts(app, status, thread)) return undefined;
  return tx(app.db, () => {
    const refresh = startAsyncRefresh(app.db, { id: randomToken(16), key, countResults: true, at: app.now() });
    // One try: a failed walk is simply done; the next view after the interval starts another.
    app.jobs.enqueue(THREAD_BACKFILL_JOB, { statusId: status.id, refreshId: refresh.id }, { maxAttempts: 1 });
    return refresh;
  });
}

/** After a local reply to, favourite or boost of a remote post: its thread is completed too. */
export function refreshThreadOf(app: App, viewerId: Id, statusId: Id | null): void {
  if (!statusId || !app.config.threadBackfill) return;
  const status = findStatusById(app.db, statusId);
  if (status && !status.local) refreshThread(app, viewerId, status);
}

/** `Mastodon-Async-Refresh` value while running (AsyncRefreshesConcern), else undefined. */
export function asyncRefreshHeader(r: AsyncRefresh | undefined): string | undefined {
  if (!r || r.status !== "running") return undefined;
  const count = r.resultCount === null ? "" : `, result_count=${r.resultCount}`;
  return `id="${r.id}", retry=${ASYNC_REFRESH_RETRY_SECONDS}${count}`;
}

/** GET /api/v1_alpha/async_refreshes/:id: unknown and long-finished ones are gone. */
export function findPollableRefresh(app: App, id: string): AsyncRefresh | undefined {
  const r = findAsyncRefreshById(app.db, id);
  if (!r) return undefined;
  if (r.finishedAt !== null && r.finishedAt < app.now() - FINISHED_REFRESH_TTL_MS) return undefined;
  return r;
}
