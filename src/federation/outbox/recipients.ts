// Inbox selection (AP §9.1/9.2): who hears of an activity, as a deduplicated list of inbox URLs.
// Status-like activities go to shared inboxes when the account has one; person-to-person ones
// to the target's personal inbox. Suspended accounts (SQL), admin-suspended domains and
// unavailable peers (here) are left out; Follows bypass the availability check.
import type { App } from "../../app.ts";
import type { Id } from "../../lib/ids.ts";
import type { Account } from "../../storage/accounts.ts";
import {
  allKnownInboxes,
  type InboxRow,
  moveAudienceInboxes,
  profileAudienceInboxes,
  remoteFollowerInboxes,
  statusAudienceInboxes,
  type StatusAudienceQuery,
} from "../../storage/federation-recipients.ts";
import type { Status } from "../../storage/statuses.ts";
import { isSuspendedDomain } from "../domain-policy.ts";
import { peerDomainOf, unavailablePeers } from "../peers.ts";

/** How recent mentions and follows must be for a profile Update to reach them (AP §5.2). */
const PROFILE_REACH_MS = 2 * 86_400_000;

/**
 * Rows → unique inbox URLs, without admin-suspended domains (the account's or the inbox
 * host's) and, unless `bypassAvailability`, without peers marked unavailable.
 */
export function selectInboxes(app: App, rows: InboxRow[], opts: { bypassAvailability?: boolean } = {}): string[] {
  if (rows.length === 0) return [];
  const unavailable = opts.bypassAvailability ? new Set<string>() : unavailablePeers(app);
  const suspended = new Map<string, boolean>();
  const isSuspended = (domain: string) => {
    let s = suspended.get(domain);
    if (s === undefined) suspended.set(domain, (s = isSuspendedDomain(app, domain)));
    return s;
  };
  const out = new Set<string>();
  for (const { inbox, domain } of rows) {
    if (out.has(inbox)) continue;
    let host: string;
    try {
      host = peerDomainOf(inbox);
    } catch {
      continue; // a malformed stored URL cannot be delivered to
    }
    if (unavailable.has(host) || isSuspended(domain) || isSuspended(host)) continue;
    out.add(inbox);
  }
  return [...out];
}

const isOpen = (s: Status) => s.visibility === "public" || s.visibility === "unlisted";

/**
 * The audience query of a local status (AP §9.1). A boost reaches the booster's followers and
 * the boosted author; a post its followers (unless direct), mentioned accounts, the replied-to
 * author and, for public/unlisted replies, the replied-to user's followers; Update and Delete of
 * public/unlisted posts also everyone who boosted, favourited or replied.
 */
export function statusAudienceQuery(status: Status, phase: "create" | "update" | "delete", boostedAuthorId?: Id): StatusAudienceQuery {
  if (status.reblogOfId) {
    return {
      authorId: status.accountId,
      statusId: status.id,
      followers: true,
      interactions: false,
      otherAccountId: boostedAuthorId ?? null,
      localParentAuthorId: null,
    };
  }
  const open = isOpen(status);
  const parentAuthor = open && status.inReplyToAccountId !== status.accountId ? status.inReplyToAccountId : null;
  return {
    authorId: status.accountId,
    statusId: status.id,
    followers: status.visibility !== "direct",
    interactions: phase !== "create" && open,
    otherAccountId: parentAuthor,
    // The followers we store of a remote account are local users, whom the query leaves out:
    // the replied-to author's id serves whether that author is local or remote.
    localParentAuthorId: parentAuthor,
  };
}

export function statusInboxes(app: App, status: Status, phase: "create" | "update" | "delete", boostedAuthorId?: Id): string[] {
  return selectInboxes(app, statusAudienceInboxes(app.db, statusAudienceQuery(status, phase, boostedAuthorId)));
}

export function followerInboxes(app: App, accountId: Id): string[] {
  return selectInboxes(app, remoteFollowerInboxes(app.db, accountId));
}

/** Mastodon's MoveDistributionWorker: followers and the accounts that block the mover (so blocks carry over). */
export function moveInboxes(app: App, accountId: Id): string[] {
  return selectInboxes(app, moveAudienceInboxes(app.db, accountId));
}

export function allInboxes(app: App): string[] {
  return selectInboxes(app, allKnownInboxes(app.db));
}

export function profileInboxes(app: App, accountId: Id): string[] {
  const since = app.now() - PROFILE_REACH_MS;
  return selectInboxes(app, profileAudienceInboxes(app.db, accountId, since, app.ids.floor(since)));
}

/**
 * The personal inbox of a remote account for person-to-person activities (AP §9.2), or
 * undefined when it is local, suspended, on a suspended domain or has no inbox. Availability
 * is checked by the delivery itself (a Follow bypasses it).
 */
export function personalInbox(app: App, account: Account): string | undefined {
  if (account.domain === null || account.suspendedAt !== null || !account.inboxUrl) return undefined;
  const [inbox] = selectInboxes(app, [{ inbox: account.inboxUrl, domain: account.domain }], { bypassAvailability: true });
  return inbox;
}
