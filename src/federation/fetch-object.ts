// Signed GET of an ActivityPub document (AP §2 content types, §12 origin rules).
import type { App } from "../app.ts";
import type { Account } from "../storage/accounts.ts";
import type { ApObject } from "./types.ts";

export interface FetchObjectOptions {
  /** Sign as this local account instead of the instance actor (fetching on a user's behalf). */
  signer?: Account;
  /**
   * Require the document's `id` to equal the URL (default true). When false, a document whose
   * id differs is fetched again from its id, which must then match (AP §12).
   */
  exactId?: boolean;
}

/**
 * Fetches `url` with a signed GET (instance actor unless `signer`), requires 200 with an AS
 * content type and a JSON object with the AS context and an id on the URL's origin rules.
 * Returns undefined on 404/410 (gone); throws FederationError (permanent for bad documents)
 * or FetchError (network) otherwise.
 */
export async function fetchApObject(_app: App, _url: string, _opts: FetchObjectOptions = {}): Promise<ApObject | undefined> {
  throw new Error("fetchApObject: not implemented");
}
