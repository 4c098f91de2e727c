// Periodic refresh of remote accounts, so profiles, keys and inboxes do not go stale between
// the peer's Update activities (which some servers never send).
import type { App } from "../../app.ts";
import { mapLimited } from "../../lib/map-limited.ts";
import { listStaleRemoteAccounts, touchAccountFetched } from "../../storage/remote-accounts.ts";
import { resolveAccountByUri } from "./accounts.ts";
import { ACCOUNT_COUNTS_JOB, refreshAccountCounts } from "./account-counts.ts";
import { FEATURED_TAGS_SYNC_JOB, syncFeaturedTags } from "./featured-tags.ts";

const DAY = 86_400_000;
/** How often the task looks for stale accounts, and how many it refreshes per run. */
const EVERY_MS = 15 * 60_000;
const BATCH = 25;
const CONCURRENCY = 4;

/** One batch of the refresh: the accounts fetched longest ago (more than a day). */
export async function refreshStaleAccounts(app: App): Promise<number> {
  const stale = listStaleRemoteAccounts(app.db, app.now() - DAY, BATCH);
  await mapLimited(stale, CONCURRENCY, async ({ id, uri }) => {
    try {
      const account = await resolveAccountByUri(app, uri, { refresh: true });
      // Gone, unusable or refused: try again tomorrow rather than on every run.
      if (!account || account.id !== id) touchAccountFetched(app.db, id, app.now());
    } catch (e) {
      touchAccountFetched(app.db, id, app.now());
      app.log.debug("account refresh failed", { uri, err: e instanceof Error ? e.message : String(e) });
    }
  });
  return stale.length;
}

/** Discovery jobs: refresh of stale remote accounts, deferred fetches (thread parents...). */
export function registerResolveJobs(app: App): void {
  app.jobs.register(ACCOUNT_COUNTS_JOB, refreshAccountCounts);
  app.jobs.register(FEATURED_TAGS_SYNC_JOB, syncFeaturedTags);
  app.jobs.every("accounts.refresh", EVERY_MS, async (a) => {
    await refreshStaleAccounts(a);
  });
}
