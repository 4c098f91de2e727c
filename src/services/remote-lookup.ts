// Remote look-ups on behalf of API requests: network failures answered the way Mastodon's API
// answers them.
import type { App } from "../app.ts";
import { ApiError } from "../errors.ts";
import { resolveAccountByHandle } from "../federation/resolve/accounts.ts";
import { FetchError } from "../federation/net/safe-fetch.ts";
import { FederationError } from "../federation/types.ts";
import type { Account } from "../storage/accounts.ts";
import type { Acct } from "./account-lookup.ts";

/** Mastodon's Api::BaseController answer to a peer that could not be reached. */
export const remoteFetchFailed = () => new ApiError(503, "Remote data could not be fetched");

// A domain that does not resolve, or that we may not contact, has no accounts for us.
const NO_SUCH_SERVER = new Set(["dns", "invalid-url", "private-address"]);

/**
 * resolveAccountByHandle for the API: undefined (404 for the caller) when the server does not
 * exist for us; other network failures become 503.
 */
export async function resolveAcct(app: App, acct: Acct): Promise<Account | undefined> {
  try {
    return await resolveAccountByHandle(app, acct.username, acct.domain);
  } catch (e) {
    if (e instanceof FetchError && NO_SUCH_SERVER.has(e.kind)) return undefined;
    if (e instanceof FetchError || e instanceof FederationError) throw remoteFetchFailed();
    throw e;
  }
}
