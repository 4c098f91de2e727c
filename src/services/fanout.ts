import type { App } from "../app.ts";
import { idListJson, tx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { findAccountById } from "../storage/accounts.ts";
import { upsertAccountConversation } from "../storage/account-conversations.ts";
import {
  type FeedEntry,
  followerBatchEnd,
  insertIntoFollowerHomes,
  insertIntoLists,
  insertIntoMentionedFollowerHomes,
  insertIntoOwnHome,
  localAccountIdsAmong,
  mentionedAccountIds,
} from "../storage/feeds.ts";
import { isInAnyList } from "../storage/list-memberships.ts";
import { insertIntoTagFollowerHomes } from "../storage/tag-feeds.ts";
import { isBlockedEitherWay, isMuting } from "../storage/relationship-checks.ts";
import { findStatusById, type Status } from "../storage/statuses.ts";
import { notifyNewStatus } from "./notifications.ts";

/** Followers written per job: keeps each job (and the batch it runs in) short on very large fan-outs. */
const FOLLOWER_BATCH = 1000;

/**
 * The `status.fanout` job (Mastodon's FanOutOnWriteService): materialises a new status or
 * boost into the author's home, the homes of local followers and the lists that contain the
 * author, applying the feed rules at write time; records direct messages in the participants'
 * conversations; then creates the notifications the status causes. Every insert is
 * idempotent, so a retried job does not duplicate rows.
 *
 * One transaction (a savepoint when the job runner batches fan-outs) writes everything and the
 * first FOLLOWER_BATCH followers; the followers after those are left to a follow-up job,
 * enqueued in that transaction, so no single job holds the write lock for long.
 * `followersAfter` makes this such a follow-up: only the followers after that follows id.
 * `followerBatchSize` is for tests.
 */
export function fanOutStatus(app: App, statusId: Id, opts: { followersAfter?: Id; followerBatchSize?: number } = {}): void {
  const status = findStatusById(app.db, statusId);
  if (!status) return; // deleted before the job ran
  const author = findAccountById(app.db, status.accountId);
  if (!author) return;
  const original = status.reblogOfId ? findStatusById(app.db, status.reblogOfId) : undefined;
  if (status.reblogOfId && !original) return;
  const originalAuthor = original ? findAccountById(app.db, original.accountId) : undefined;

  const mentioned = mentionedAccountIds(app.db, original ? [status.id, original.id] : [status.id]);
  const involved = new Set<Id>([status.accountId, ...mentioned]);
  const blockers = new Set<Id>([status.accountId]);
  if (original) {
    involved.add(original.accountId);
    blockers.add(original.accountId);
  }
  const isReply = status.inReplyToId !== null || status.inReplyToUri !== null;
  // A reply whose parent is unknown reaches nobody but its author (filter_from_home?).
  const unknownParent = isReply && (status.inReplyToId === null || status.inReplyToAccountId === null);
  const entry: FeedEntry = {
    statusId: status.id,
    authorId: status.accountId,
    language: status.language,
    replyToId: isReply && status.inReplyToAccountId !== status.accountId ? status.inReplyToAccountId : null,
    originalId: original?.id ?? null,
    originalAuthorId: original?.accountId ?? null,
    originalDomain: originalAuthor?.domain?.toLowerCase() ?? null,
    involvedJson: idListJson(involved),
    blockersJson: idListJson(blockers),
    now: app.now(),
  };

  const size = opts.followerBatchSize ?? FOLLOWER_BATCH;
  tx(app.db, () => {
    let rest: Id | null = null;
    if (opts.followersAfter !== undefined) {
      if (status.visibility !== "direct" && !unknownParent) rest = followerBatch(app, entry, opts.followersAfter, size);
    } else {
      if (author.domain === null) insertIntoOwnHome(app.db, entry);
      if (status.visibility === "direct") {
        if (!unknownParent) insertIntoMentionedFollowerHomes(app.db, entry);
        // A limited remote post has a direct post's audience but is no conversation (Mastodon).
        if (!status.limited) recordDirectConversations(app, status, mentioned);
      } else if (!unknownParent) {
        if (isInAnyList(app.db, status.accountId)) insertIntoLists(app.db, entry);
        rest = followerBatch(app, entry, "0", size);
      }
      // Followed hashtags (deliver_to_hashtag_followers!): public originals of accounts that
      // are not silenced, by their own rules (filter_from_tags?), replies included.
      if (status.visibility === "public" && !original && author.silencedAt === null) {
        insertIntoTagFollowerHomes(app.db, entry, author.domain?.toLowerCase() ?? null);
      }
      notifyNewStatus(app, status);
    }
    if (rest !== null) app.jobs.enqueue("status.fanout", { statusId: status.id, followersAfter: rest });
  });
}

/** Writes one batch of followers after `after`; returns where the next batch starts, or null. */
function followerBatch(app: App, entry: FeedEntry, after: Id, size: number): Id | null {
  const end = followerBatchEnd(app.db, entry.authorId, after, size);
  insertIntoFollowerHomes(app.db, entry, after, end);
  return end;
}

/**
 * Direct messages appear in the conversations of the author and of each local mentioned
 * account that does not block, is not blocked by, or mutes the author (Mastodon adds them
 * when delivering the mention). Participants are everyone else on the message.
 */
function recordDirectConversations(app: App, status: Status, mentioned: Id[]): void {
  if (!status.conversationId) return;
  const everyone = [status.accountId, ...mentioned.filter((id) => id !== status.accountId)];
  const local = new Set(localAccountIdsAmong(app.db, everyone));
  const now = app.now();
  for (const accountId of everyone) {
    if (!local.has(accountId)) continue;
    const sender = accountId === status.accountId;
    if (!sender && (isBlockedEitherWay(app.db, accountId, status.accountId) || isMuting(app.db, accountId, status.accountId, now)))
      continue;
    upsertAccountConversation(app.db, {
      id: app.ids.next(),
      accountId,
      conversationId: status.conversationId,
      participantIds: everyone.filter((id) => id !== accountId),
      statusId: status.id,
      unread: !sender,
    });
  }
}
