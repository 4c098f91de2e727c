// Remote look-ups on behalf of API requests: network failures answered the way Mastodon's API
// answers them. The one door from services/ into federation's network side (resolve/):
// see federation/DESIGN.md "Layers".
import type { App } from "../app.ts";
import { ApiError } from "../errors.ts";
import { resolveAccountByHandle, resolveAccountByUri } from "../federation/resolve/accounts.ts";
import { refreshRemoteStatus } from "../federation/resolve/polls.ts";
import { resolveRemoteUrl, type UrlTarget } from "../federation/resolve/url.ts";
import { FetchError } from "../federation/net/safe-fetch.ts";
import { FederationError } from "../federation/types.ts";
import { type Account, findAccountById } from "../storage/accounts.ts";
import { findPollByStatusId, setPollLastFetchedAt } from "../storage/polls.ts";
import type { Status } from "../storage/statuses.ts";
import type { Acct } from "./account-lookup.ts";

export type { UrlTarget };

/** Mastodon's Api::BaseController answer to a peer that could not be reached. */
export const remoteFetchFailed = () => new ApiError(503, "Remote data could not be fetched");

// A domain that does not resolve, or that we may not contact, has no accounts for us.
const NO_SUCH_SERVER = new Set(["dns", "invalid-url", "private-address"]);

const failedRemotely = (e: unknown) => e instanceof FetchError || e instanceof FederationError;

/**
 * resolveAccountByHandle for the API: undefined (404 for the caller) when the server does not
 * exist for us; other network failures become 503.
 */
export async function resolveAcct(app: App, acct: Acct): Promise<Account | undefined> {
  try {
    return await resolveAccountByHandle(app, acct.username, acct.domain);
  } catch (e) {
    if (e instanceof FetchError && NO_SUCH_SERVER.has(e.kind)) return undefined;
    if (failedRemotely(e)) throw remoteFetchFailed();
    throw e;
  }
}

/** resolveRemoteUrl for the API: the account or status a URL names, fetched; undefined when it cannot be. */
export async function resolveUrlTarget(app: App, url: string): Promise<UrlTarget> {
  try {
    return await resolveRemoteUrl(app, url);
  } catch (e) {
    if (failedRemotely(e)) return undefined; // Mastodon answers an unreachable URL with nothing found
    throw e;
  }
}

/**
 * GET /api/v1/polls/:id of a remote poll that may be stale: fetched again from its origin on the
 * reader's behalf. A peer that cannot answer leaves the stored poll as it is; the attempt counts
 * as a fetch either way, so a dead peer is not asked again on every read.
 */
export async function refreshRemotePoll(app: App, status: Status, reader: Account): Promise<void> {
  try {
    await refreshRemoteStatus(app, status, reader);
  } catch (e) {
    if (!failedRemotely(e)) throw e;
  } finally {
    const poll = findPollByStatusId(app.db, status.id);
    if (poll && (poll.lastFetchedAt ?? 0) < app.now()) setPollLastFetchedAt(app.db, poll.id, app.now());
  }
}

/** A remote account fetched again (its alsoKnownAs must be current); a local one as stored. */
export async function refetchAccount(app: App, account: Account): Promise<Account | undefined> {
  if (account.domain === null) return findAccountById(app.db, account.id);
  try {
    return await resolveAccountByUri(app, account.uri, { refresh: true });
  } catch (e) {
    if (failedRemotely(e)) throw remoteFetchFailed();
    throw e;
  }
}
