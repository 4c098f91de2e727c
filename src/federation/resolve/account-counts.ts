// Counts of remote accounts (AP §3.2): the actor document has none, so they are read from the
// `totalItems` of its outbox, followers and following collections, and a followers/following
// collection without `first` means the owner hides it. Runs as a job after each fetch of the
// actor, so resolving an account never waits on three more requests.
import type { App } from "../../app.ts";
import { parseId } from "../../lib/ids.ts";
import { findAccountById, updateAccount, type Account } from "../../storage/accounts.ts";
import { PermanentJobError } from "../../errors.ts";
import { fetchApObject } from "../fetch-object.ts";

export const ACCOUNT_COUNTS_JOB = "account.counts";

/** Queues a count refresh for a remote account (called where the actor was just stored). */
export function scheduleAccountCounts(app: App, account: Account): void {
  if (account.domain === null || account.suspendedAt !== null) return;
  if (!account.outboxUrl && !account.followersUrl && !account.followingUrl) return;
  app.jobs.enqueue(ACCOUNT_COUNTS_JOB, { accountId: account.id }, { maxAttempts: 3 });
}

interface CollectionInfo {
  total: number | null;
  /** Served without pages: its owner hides the items. */
  hidden: boolean;
}

async function readCollection(app: App, url: string | null): Promise<CollectionInfo | undefined> {
  if (!url) return undefined;
  let doc: Awaited<ReturnType<typeof fetchApObject>>;
  try {
    doc = await fetchApObject(app, url);
  } catch {
    return undefined; // a collection that cannot be read leaves the count as it is
  }
  if (!doc) return undefined;
  const total = typeof doc.totalItems === "number" && Number.isSafeInteger(doc.totalItems) && doc.totalItems >= 0 ? doc.totalItems : null;
  return { total, hidden: doc.first === undefined && !Array.isArray(doc.orderedItems) && !Array.isArray(doc.items) };
}

/** The job: fetches the three collections (in parallel) and stores what they say. */
export async function refreshAccountCounts(app: App, payload: { accountId?: unknown }): Promise<void> {
  const id = parseId(payload?.accountId);
  if (!id) throw new PermanentJobError("account.counts needs an accountId");
  const account = findAccountById(app.db, id);
  if (!account || account.domain === null || account.suspendedAt !== null) return;
  const [outbox, followers, following] = await Promise.all([
    readCollection(app, account.outboxUrl),
    readCollection(app, account.followersUrl),
    readCollection(app, account.followingUrl),
  ]);
  const patch: Partial<Account> = {};
  if (outbox?.total != null) patch.statusesCount = outbox.total;
  if (followers?.total != null) patch.followersCount = followers.total;
  if (following?.total != null) patch.followingCount = following.total;
  if (followers || following) patch.hideCollections = !!(followers?.hidden || following?.hidden);
  if (Object.keys(patch).length > 0) updateAccount(app.db, id, patch);
}

