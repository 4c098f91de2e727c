// Outgoing federation, as services see it: each function is called by a service inside its
// transaction, right where the local change happens, and enqueues the jobs that will build and
// deliver the activity. Every hook does nothing unless a local actor acts and someone remote
// is concerned, so the inbox can call the same services without echoing activities back.
//
// Two ways out: activities about rows that stay (posts, edits, profile, pins) are queued as a
// `federation.distribute` job that builds them from the rows later, off the request path;
// activities about rows that are going (Delete, Undo) and small person-to-person ones are built
// here, from the rows as they still are, and stored with their inboxes at once.
import { randomUUID } from "node:crypto";
import type { App } from "../../app.ts";
import { findAccountById, findAccountsByIds, type Account } from "../../storage/accounts.ts";
import type { Block } from "../../storage/blocks.ts";
import { hasRemoteConcern, hasRemoteFollowers, statusAudienceInboxes } from "../../storage/federation-recipients.ts";
import type { FeaturedTag } from "../../storage/featured-tags.ts";
import type { FollowRecord } from "../../storage/follows.ts";
import { findReportForFlag, setReportUri } from "../../storage/report-flags.ts";
import { findStatusById, type Status } from "../../storage/statuses.ts";
import {
  toApAcceptFollow,
  toApBlock,
  toApDeleteActor,
  toApDeleteNote,
  toApFlag,
  toApFollow,
  toApLike,
  toApMove,
  toApRejectFollow,
  toApUndoAnnounce,
  toApUndoBlock,
  toApUndoFollow,
  toApUndoLike,
} from "../serializers/activities.ts";
import { toApFeaturedTagChange } from "../serializers/featured-tags.ts";
import type { ApObject } from "../types.ts";
import { toApVote } from "../serializers/poll-activities.ts";
import type { Poll } from "../../storage/polls.ts";
import { enqueueDistribute } from "./distribute.ts";
import { allInboxes, followerInboxes, moveInboxes, personalInbox, profileInboxes, statusAudienceQuery, statusInboxes } from "./recipients.ts";
import { sendActivity } from "./send.ts";

/**
 * Runs a hook body. A federation fault must not undo the user's local action (the post, the
 * follow): it is logged and the action commits without its activity.
 */
function guarded(app: App, hook: string, fn: () => void): void {
  try {
    fn();
  } catch (err) {
    app.log.error("outbox hook failed", { hook, err });
  }
}

/** A new local status or boost: Create(Note) / Announce to its audience. */
export function onStatusCreated(app: App, status: Status): void {
  if (!status.local) return;
  guarded(app, "onStatusCreated", () => {
    let other: string | null;
    if (status.reblogOfId) other = findStatusById(app.db, status.reblogOfId)?.accountId ?? null;
    else other = statusAudienceQuery(status, "create").otherAccountId;
    // The followers of the author and of a publicly replied-to user (AP §9.1). One query of
    // EXISTS branches: nearly free for the common post that concerns nobody remote.
    const followersOf = status.visibility === "direct" ? [] : [status.accountId];
    if (other && !status.reblogOfId) followersOf.push(other);
    if (hasRemoteConcern(app.db, { followersOf, statusId: status.id, otherAccountId: other })) {
      enqueueDistribute(app, { kind: "create", statusId: status.id });
    }
  });
}

/** A local status was edited: Update(Note). */
export function onStatusUpdated(app: App, status: Status): void {
  if (!status.local || status.reblogOfId) return;
  guarded(app, "onStatusUpdated", () => {
    if (statusAudienceInboxes(app.db, statusAudienceQuery(status, "update")).length > 0) {
      enqueueDistribute(app, { kind: "update", statusId: status.id });
    }
  });
}

/**
 * A local status or boost is about to be deleted (called before the row goes, while its
 * mentions, boosts and favourites still say who must hear of it): Delete / Undo(Announce).
 */
export function onStatusDeleting(app: App, status: Status): void {
  if (!status.local) return;
  guarded(app, "onStatusDeleting", () => {
    const author = findAccountById(app.db, status.accountId);
    if (!author || author.domain !== null) return;
    if (status.reblogOfId) {
      const original = findStatusById(app.db, status.reblogOfId);
      const originalAuthor = original && findAccountById(app.db, original.accountId);
      if (!original || !originalAuthor) return;
      const inboxes = statusInboxes(app, status, "delete", originalAuthor.id);
      if (inboxes.length === 0) return;
      sendActivity(app, { actorAccountId: author.id, activity: toApUndoAnnounce(app, status, original, originalAuthor), inboxes });
      return;
    }
    const inboxes = statusInboxes(app, status, "delete");
    if (inboxes.length === 0) return;
    sendActivity(app, { actorAccountId: author.id, activity: toApDeleteNote(app, status, author), inboxes });
  });
}

/**
 * A person-to-person activity from a local account to a remote one's personal inbox
 * (AP §9.2); nothing when the actor is remote or the target local.
 */
function sendToPerson(
  app: App,
  hook: string,
  actorId: string,
  targetId: string,
  build: (actor: Account, target: Account) => ApObject,
  opts: { bypassAvailability?: boolean } = {},
): void {
  guarded(app, hook, () => {
    const accounts = findAccountsByIds(app.db, [actorId, targetId]);
    const actor = accounts.get(actorId);
    const target = accounts.get(targetId);
    if (!actor || !target || actor.domain !== null || target.domain === null) return;
    const inbox = personalInbox(app, target);
    if (!inbox) return;
    sendActivity(app, { actorAccountId: actor.id, activity: build(actor, target), inboxes: [inbox], ...opts });
  });
}

/** A local account favourited a remote status: Like. */
export function onFavourited(app: App, favouriteId: string, accountId: string, status: Status): void {
  if (status.local) return;
  sendToPerson(app, "onFavourited", accountId, status.accountId, (actor) => toApLike(app, actor, favouriteId, status));
}

/** Undo(Like), called before the favourite row is deleted. */
export function onUnfavourited(app: App, favouriteId: string, accountId: string, status: Status): void {
  if (status.local) return;
  sendToPerson(app, "onUnfavourited", accountId, status.accountId, (actor) => toApUndoLike(app, actor, favouriteId, status));
}

/** A local account asked to follow a remote one (the request row exists): Follow. */
export function onFollowRequested(app: App, record: FollowRecord): void {
  sendToPerson(app, "onFollowRequested", record.accountId, record.targetAccountId, (s, t) => toApFollow(app, record, s, t), {
    bypassAvailability: true,
  });
}

/** A local account unfollowed (or withdrew its request to) a remote one: Undo(Follow). */
export function onUnfollowed(app: App, record: FollowRecord): void {
  sendToPerson(app, "onUnfollowed", record.accountId, record.targetAccountId, (s, t) => toApUndoFollow(app, record, s, t));
}

/** A local account accepted a remote follower: Accept(Follow). */
export function onFollowAccepted(app: App, record: FollowRecord): void {
  // The local target acts; the remote follower receives.
  sendToPerson(app, "onFollowAccepted", record.targetAccountId, record.accountId, (t, s) => toApAcceptFollow(app, record, s, t));
}

/** A local account rejected a remote follow request, or removed a remote follower: Reject(Follow). */
export function onFollowRejected(app: App, record: FollowRecord): void {
  sendToPerson(app, "onFollowRejected", record.targetAccountId, record.accountId, (t, s) => toApRejectFollow(app, record, s, t));
}

/** A local account blocked a remote one: Block. */
export function onBlocked(app: App, block: Block): void {
  sendToPerson(app, "onBlocked", block.accountId, block.targetAccountId, (s, t) => toApBlock(app, block, s, t));
}

/** Undo(Block), called before the block row is deleted. */
export function onUnblocked(app: App, block: Block): void {
  sendToPerson(app, "onUnblocked", block.accountId, block.targetAccountId, (s, t) => toApUndoBlock(app, block, s, t));
}

/**
 * A local profile changed: Update(Person) to followers and recent contacts. `account` may be
 * the row as it was before the change; the job reads the new one.
 */
export function onProfileUpdated(app: App, account: Account): void {
  if (account.domain !== null) return;
  guarded(app, "onProfileUpdated", () => {
    if (profileInboxes(app, account.id).length > 0) enqueueDistribute(app, { kind: "profile", accountId: account.id });
  });
}

/**
 * A local account's data is about to be removed (a moderator's or its own deletion): Delete(actor)
 * to every inbox we know, built now while the account is still whole. The
 * account row and its keys stay (the username stays reserved), so the delivery can be signed.
 */
export function onAccountDeleting(app: App, account: Account): void {
  if (account.domain !== null) return;
  guarded(app, "onAccountDeleting", () => {
    // Every known inbox, as Mastodon's DeleteAccountService (followers first, then Account.inboxes).
    const inboxes = allInboxes(app);
    if (inboxes.length > 0) sendActivity(app, { actorAccountId: account.id, activity: toApDeleteActor(app, account), inboxes });
  });
}

/**
 * A local account moved to `target`: Move to its followers and to those blocking it, whose
 * servers carry follows and blocks over (AP §5.11, Mastodon's MoveDistributionWorker).
 */
export function onAccountMoved(app: App, account: Account, target: Account): void {
  if (account.domain !== null) return;
  guarded(app, "onAccountMoved", () => {
    const inboxes = moveInboxes(app, account.id);
    if (inboxes.length > 0) sendActivity(app, { actorAccountId: account.id, activity: toApMove(app, account, target, app.now()), inboxes });
  });
}

/** A local account pinned / unpinned one of its statuses: Add / Remove on its featured collection. */
export function onPinChanged(app: App, kind: "Add" | "Remove", account: Account, status: Status): void {
  if (account.domain !== null || !status.local) return;
  guarded(app, "onPinChanged", () => {
    if (hasRemoteFollowers(app.db, account.id)) enqueueDistribute(app, { kind: "featured", op: kind, accountId: account.id, statusId: status.id });
  });
}

/**
 * A local account featured / stopped featuring a hashtag: Add / Remove of the Hashtag to its
 * followers (Mastodon's AccountRawDistributionWorker). Built now: a removed row is going.
 */
export function onFeaturedTagChanged(app: App, kind: "Add" | "Remove", account: Account, featured: FeaturedTag): void {
  if (account.domain !== null) return;
  guarded(app, "onFeaturedTagChanged", () => {
    const inboxes = followerInboxes(app, account.id);
    if (inboxes.length === 0) return;
    sendActivity(app, { actorAccountId: account.id, activity: toApFeaturedTagChange(app, kind, account, featured), inboxes });
  });
}

/**
 * A report about a remote account that the reporter asked to forward: Flag from the instance
 * actor to the reported account's personal inbox (AP §5.9). The Flag's id, a non-dereferenceable
 * `https://HOST/<uuid>` as Mastodon's, is stored as the report's uri.
 */
export function onReportForwarded(app: App, reportId: string): void {
  guarded(app, "onReportForwarded", () => {
    const report = findReportForFlag(app.db, reportId);
    const target = report && findAccountById(app.db, report.targetAccountId);
    if (!report || !target) return;
    const inbox = personalInbox(app, target);
    if (!inbox) return;
    let uri = report.uri;
    if (!uri) {
      uri = `${app.baseUrl}/${randomUUID()}`;
      setReportUri(app.db, report.id, uri);
    }
    const activity = toApFlag(app, { uri, comment: report.comment, targetUri: target.uri, statusUris: report.statusUris });
    sendActivity(app, { actorAccountId: null, activity, inboxes: [inbox] });
  });
}

/**
 * A local account voted in a remote poll: one Create(Note) per chosen option, to the poll
 * author's personal inbox only (AP §5.12).
 */
export function onPollVoted(app: App, voter: Account, poll: Poll, status: Status, votes: { id: string; choice: number }[]): void {
  if (status.local) return;
  for (const v of votes) {
    sendToPerson(app, "onPollVoted", voter.id, status.accountId, (actor, author) => toApVote(actor, v.id, poll.options[v.choice], status, author));
  }
}

/**
 * New tallies of a local poll: an Update(Question) at `at` (votes are batched, as Mastodon's
 * 3-minute DistributePollUpdateWorker), to the status's audience and the remote voters.
 */
export function onPollTalliesChanged(app: App, status: Status, at: number): void {
  if (!status.local) return;
  guarded(app, "onPollTalliesChanged", () => enqueueDistribute(app, { kind: "poll", statusId: status.id }, at));
}

/** A local poll ended: its final tallies go out now. */
export function onPollEnded(app: App, status: Status): void {
  if (!status.local) return;
  guarded(app, "onPollEnded", () => enqueueDistribute(app, { kind: "poll", statusId: status.id }));
}
