// Remote interaction (Mastodon's /authorize_interaction, the WebFinger "subscribe" template):
// someone on another server asks to follow or interact with an account or post, and lands on
// our page signed in as one of our users. The target may be a handle or a URL, known or not.
import type { App } from "../app.ts";
import { type Account, findAccountByHandle, findAccountById } from "../storage/accounts.ts";
import { findUsersByAccountIds } from "../storage/account-profile.ts";
import { findFollowRequest } from "../storage/follow-requests.ts";
import { isFollowing } from "../storage/relationship-checks.ts";
import type { Status } from "../storage/statuses.ts";
import { isHiddenLocal, parseAcct } from "./account-lookup.ts";
import { resolveAcct } from "./remote-lookup.ts";
import { resolveUrl } from "./search.ts";
import { canViewStatus } from "./visibility.ts";

export type InteractionTarget = { kind: "account"; account: Account } | { kind: "status"; status: Status; author: Account };

const MAX_URI = 2048;

/**
 * What `uri` names, as `viewer` may see it: an account (by handle or URL) or a post, fetched
 * if unknown. A post the viewer may not see (followers-only, direct) is not found.
 */
export async function resolveInteractionTarget(app: App, viewer: Account, raw: string | undefined): Promise<InteractionTarget | undefined> {
  const uri = (raw ?? "").trim();
  if (uri === "" || uri.length > MAX_URI) return undefined;
  let account: Account | undefined;
  if (/^https?:\/\//i.test(uri)) {
    const found = await resolveUrl(app, uri, true);
    if (found && "status" in found) {
      if (!canViewStatus(app, viewer.id, found.status)) return undefined;
      const author = findAccountById(app.db, found.status.accountId);
      return author && author.suspendedAt === null ? { kind: "status", status: found.status, author } : undefined;
    }
    account = found?.account;
  } else {
    const acct = parseAcct(app, uri);
    if (!acct) return undefined;
    account = acct.domain === null ? findAccountByHandle(app.db, acct.username, null) : await resolveAcct(app, acct).catch(() => undefined);
  }
  if (!account || account.suspendedAt !== null) return undefined;
  if (account.domain === null && isHiddenLocal(account, findUsersByAccountIds(app.db, [account.id]).get(account.id))) return undefined;
  return { kind: "account", account };
}

/** The follow button's state on the interaction page. */
export function followState(app: App, viewer: Account, target: Account): "none" | "following" | "requested" | "self" {
  if (viewer.id === target.id) return "self";
  if (isFollowing(app.db, viewer.id, target.id)) return "following";
  return findFollowRequest(app.db, viewer.id, target.id) ? "requested" : "none";
}
