// A URL pasted into search: whatever it names (an actor or a status), fetched once.
import type { App } from "../../app.ts";
import type { Account } from "../../storage/accounts.ts";
import type { Status } from "../../storage/statuses.ts";
import { isSuspendedDomain } from "../domain-policy.ts";
import { fetchApObject } from "../fetch-object.ts";
import { isActorDocument } from "../parse/actor.ts";
import { hostOf, httpUrl } from "../parse/common.ts";
import { FederationError } from "../types.ts";
import { resolveAccountFromDocument } from "./accounts.ts";
import { resolveStatusFromDocument } from "./statuses.ts";

export type UrlTarget = { account: Account } | { status: Status } | undefined;

/**
 * Fetches a remote URL (a web URL answers with the canonical object, fetched again from its
 * id) and stores the actor or status it is. Undefined when it is neither, or gone; throws
 * FetchError/FederationError on transient failures. Our own URLs are never fetched.
 */
export async function resolveRemoteUrl(app: App, url: string): Promise<UrlTarget> {
  if (!httpUrl(url) || hostOf(url) === hostOf(app.baseUrl) || isSuspendedDomain(app, url)) return undefined;
  try {
    const doc = await fetchApObject(app, url, { exactId: false });
    if (!doc) return undefined;
    if (isActorDocument(doc)) {
      const account = await resolveAccountFromDocument(app, doc);
      return account && { account };
    }
    const status = await resolveStatusFromDocument(app, doc);
    return status && { status };
  } catch (e) {
    if (e instanceof FederationError && e.permanent) return undefined;
    throw e;
  }
}
