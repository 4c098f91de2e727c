// WebFinger as a client (discovery.md §1.2), with host-meta fallback and a short cache.
import type { App } from "../../app.ts";

export interface WebfingerResult {
  /** `acct:user@domain` as the server answered (canonical handle). */
  subject: string;
  /** The `self` link: the actor id. */
  actorUri: string;
}

/**
 * Looks `user@domain` up (unsigned GET, `Accept: application/jrd+json`), falling back to
 * host-meta's lrdd template on 404. Returns undefined when the account does not exist (404/410);
 * throws FederationError/FetchError on other failures. Results are cached briefly per handle.
 */
export async function webfinger(_app: App, _username: string, _domain: string): Promise<WebfingerResult | undefined> {
  throw new Error("webfinger: not implemented");
}
