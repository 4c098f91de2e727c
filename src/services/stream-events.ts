import type { App } from "../app.ts";
import { topics } from "../events/topics.ts";
import type { BusMessage } from "../events/bus.ts";
import type { Id } from "../lib/ids.ts";
import { findAccountById } from "../storage/accounts.ts";
import { feedsHoldingStatus, statusHasMedia } from "../storage/stream-reach.ts";
import type { Status } from "../storage/statuses.ts";
import { findStatusTagNames } from "../storage/tags.ts";

// What the live streams hear (issue 11 part 1; streaming.md §3 and §6): the producers' side of
// the event bus (events/bus.ts). Each function is called inside the transaction that makes
// the change, so its messages go out only once that commits; each costs nothing when no
// stream listens. Remote activity reaches these through the same services as local actions.

function send(app: App, topic: string, message: BusMessage): void {
  app.events.publish(topic, message);
}

/** Runs a producer's look-ups: a failure is logged and costs the streams an event, never the write. */
function guarded(app: App, what: string, fn: () => void): void {
  try {
    fn();
  } catch (err) {
    app.log.error("streaming: publishing failed", { what, err });
  }
}

/**
 * The public and hashtag topics a status reaches (Mastodon's FanOutOnWriteService
 * broadcastable?): public visibility, no boost, an author neither silenced nor suspended.
 * Public timelines leave out replies to other accounts; hashtag ones keep them. Read while
 * the status and its tags and media still exist (a deletion asks before the row goes).
 */
function publicTopics(app: App, status: Status): string[] {
  if (status.visibility !== "public" || status.reblogOfId) return [];
  const author = findAccountById(app.db, status.accountId);
  if (!author || author.silencedAt !== null || author.suspendedAt !== null) return [];
  const local = author.domain === null;
  const out: string[] = [];
  for (const name of findStatusTagNames(app.db, [status.id]).get(status.id) ?? []) {
    out.push(topics.hashtag(name));
    if (local) out.push(topics.hashtag(name, true));
  }
  // As the public timeline's query (storage/timelines.ts): a reply whose parent is unknown is listed.
  const replyToOther = status.inReplyToId !== null && status.inReplyToAccountId !== status.accountId;
  if (!replyToOther) {
    const media = statusHasMedia(app.db, status.id);
    for (const m of media ? [false, true] : [false]) {
      out.push(topics.public("all", m), topics.public(local ? "local" : "remote", m));
    }
  }
  return out;
}

/**
 * A new status, in the transaction that stores it: `update` on the public and hashtag topics
 * it qualifies for. They need no fan-out, so they go out as soon as the post is committed.
 */
export function publishNewPublicStatus(app: App, status: Status): void {
  if (!app.events.listening()) return;
  guarded(app, "new status", () => {
    const message: BusMessage = { event: "update", statusId: status.id };
    for (const t of publicTopics(app, status)) send(app, t, message);
  });
}

/** A new status or boost reached these homes and lists (the fan-out's inserted rows): `update`. */
export function publishFeedInserts(app: App, status: Status, reach: { homes: Id[]; lists: Id[] }): void {
  const message: BusMessage = { event: "update", statusId: status.id };
  for (const id of reach.homes) send(app, topics.home(id), message);
  for (const id of reach.lists) send(app, topics.list(id), message);
}

/** An edited status: `status.update` wherever it (or a boost of it) is shown. */
export function publishEditedStatus(app: App, status: Status): void {
  if (!app.events.listening()) return;
  guarded(app, "edit", () => {
    const message: BusMessage = { event: "status.update", statusId: status.id };
    const { homes, lists } = feedsHoldingStatus(app.db, status.id);
    for (const owner of new Set(homes.map((h) => h.ownerId))) send(app, topics.home(owner), message);
    for (const list of new Set(lists.map((l) => l.ownerId))) send(app, topics.list(list), message);
    for (const t of publicTopics(app, status)) send(app, t, message);
  });
}

/**
 * A status about to be deleted (call before its rows go): `delete` of each feed entry that
 * shows it (the status, or the boosts of it that cascade with it) and on the public topics.
 */
export function publishDeletedStatus(app: App, status: Status): void {
  if (!app.events.listening()) return;
  guarded(app, "deletion", () => {
    const { homes, lists } = feedsHoldingStatus(app.db, status.id);
    for (const h of homes) send(app, topics.home(h.ownerId), { event: "delete", statusId: h.entryId });
    for (const l of lists) send(app, topics.list(l.ownerId), { event: "delete", statusId: l.entryId });
    const message: BusMessage = { event: "delete", statusId: status.id };
    for (const t of publicTopics(app, status)) send(app, t, message);
  });
}

export function publishNotification(app: App, recipientId: Id, notificationId: Id): void {
  send(app, topics.notifications(recipientId), { event: "notification", notificationId });
}

/** Accepted notification requests finished merging (Mastodon 4.3): clients refetch. */
export function publishNotificationsMerged(app: App, accountId: Id): void {
  send(app, topics.notifications(accountId), { event: "notifications_merged", payload: "1" });
}

/** A direct conversation of the account changed (new message, read state). */
export function publishConversation(app: App, accountId: Id, accountConversationId: Id): void {
  send(app, topics.direct(accountId), { event: "conversation", conversationId: accountConversationId });
}

/**
 * The account's keyword filters changed (the seed's filter-sync event): `filters_changed` on
 * its user streams. The filters code calls this after every change (see streaming/DESIGN.md).
 */
export function publishFiltersChanged(app: App, accountId: Id): void {
  send(app, topics.home(accountId), { event: "filters_changed" });
  send(app, topics.system(accountId), { event: "filters_changed" });
}

/** Closes every stream opened with the token (revoked). */
export function publishTokenKilled(app: App, tokenId: Id): void {
  send(app, topics.accessToken(tokenId), { event: "kill" });
}

/** Closes every stream of the account (suspended, disabled, deleted). */
export function publishAccountKilled(app: App, accountId: Id): void {
  send(app, topics.system(accountId), { event: "kill" });
}

/** A published announcement, rendered by its producer (Announcement JSON), to every user stream. */
export function publishAnnouncement(app: App, announcementJson: string): void {
  send(app, topics.announcements(), { event: "announcement", payload: announcementJson });
}

/**
 * An announcement published, or edited while published: `announcement` to every user stream,
 * rendered once on delivery as Mastodon does (anonymously: no `read`, no `me`).
 */
export function publishAnnouncementById(app: App, announcementId: Id): void {
  send(app, topics.announcements(), { event: "announcement", announcementId });
}

/** One emoji's count on an announcement changed: `announcement.reaction`, counted on delivery. */
export function publishAnnouncementReactionChange(app: App, announcementId: Id, name: string): void {
  send(app, topics.announcements(), { event: "announcement.reaction", announcementId, reactionName: name });
}

export function publishAnnouncementReaction(app: App, reaction: { name: string; count: number; announcement_id: Id }): void {
  send(app, topics.announcements(), { event: "announcement.reaction", payload: JSON.stringify(reaction) });
}

export function publishAnnouncementDeleted(app: App, announcementId: Id): void {
  send(app, topics.announcements(), { event: "announcement.delete", payload: announcementId });
}
