// Background backfill of remote accounts (issue 19 parts 2 and 3): the `account.backfill` job
// (jobs/handlers/account-backfill.ts, federation/outbox-backfill.ts) fetches an account's
// recent outbox posts, and for a profile its pinned posts; after an accepted follow it merges
// them into the follower's home and lists. This decides when it runs. A profile refresh is an
// AsyncRefresh (`Mastodon-Async-Refresh` on GET /api/v1/accounts/:id/statuses), as threads'.
import type { App } from "../app.ts";
import { inTx } from "../db/db.ts";
import { type Id, parseId } from "../lib/ids.ts";
import { randomToken } from "../lib/crypto.ts";
import { type Account, findAccountById } from "../storage/accounts.ts";
import { type AsyncRefresh, findAsyncRefreshByKey, startAsyncRefresh } from "../storage/async-refreshes.ts";
import { mergeCandidateCount } from "../storage/feeds.ts";
import { isBlocking, isDomainBlocking } from "../storage/relationship-checks.ts";
import { isLocalUserAccount } from "../storage/users.ts";

export const ACCOUNT_BACKFILL_JOB = "account.backfill";

export const accountRefreshKey = (accountId: Id) => `account:${accountId}`;

/** A running row whose job died with the process (it never finished) no longer counts. */
function isLive(app: App, r: AsyncRefresh): boolean {
  return r.status === "running" && r.createdAt > app.now() - 2 * app.config.outboxBackfillTimeout * 1000;
}

/** A remote account this server may ask about: not suspended, not blocked by the viewer (nor its domain). */
function mayFetchFor(app: App, viewerId: Id, account: Account): boolean {
  if (account.domain === null || account.suspendedAt !== null) return false;
  return !isBlocking(app.db, viewerId, account.id) && !isDomainBlocking(app.db, viewerId, account.domain);
}

function start(app: App, account: Account, payload: Record<string, unknown>): AsyncRefresh {
  return inTx(app.db, () => {
    const refresh = startAsyncRefresh(app.db, { id: randomToken(16), key: accountRefreshKey(account.id), countResults: true, at: app.now() });
    // One try: a failed fetch is simply done; the next view after the interval starts another.
    app.jobs.enqueue(ACCOUNT_BACKFILL_JOB, { accountId: account.id, refreshId: refresh.id, ...payload }, { maxAttempts: 1 });
    return refresh;
  });
}

/**
 * The refresh of a remote account's posts when a signed-in viewer lists them: the running one,
 * or a new one (job enqueued) when profile backfill is on, fewer than profileBackfillMaxPosts
 * of its posts are stored and it was not refreshed within profileBackfillInterval. An
 * anonymous viewer never starts one; nor does a viewer who blocks the account or its domain.
 */
export function refreshAccountPosts(app: App, viewerId: Id | null, rawAccountId: unknown): AsyncRefresh | undefined {
  const id = parseId(rawAccountId);
  const account = id ? findAccountById(app.db, id) : undefined;
  if (!account || account.domain === null) return undefined;
  const last = findAsyncRefreshByKey(app.db, accountRefreshKey(account.id));
  if (last && isLive(app, last)) return last;
  if (viewerId === null || !app.config.profileBackfill || !mayFetchFor(app, viewerId, account)) return undefined;
  if (last?.finishedAt && last.finishedAt > app.now() - app.config.profileBackfillInterval * 1000) return undefined;
  const max = app.config.profileBackfillMaxPosts;
  if (mergeCandidateCount(app.db, account.id, max) >= max) return undefined;
  return start(app, account, { pins: true });
}

/**
 * After a local account's follow of a remote account is accepted: its recent posts are
 * fetched and merged into the follower's home and lists (followBackfill). Call inside the
 * transaction that records the follow.
 */
export function scheduleFollowBackfill(app: App, followerId: Id, targetId: Id): void {
  if (!app.config.followBackfill || !isLocalUserAccount(app.db, followerId)) return;
  const target = findAccountById(app.db, targetId);
  if (!target || !mayFetchFor(app, followerId, target)) return;
  start(app, target, { ownerId: followerId });
}
