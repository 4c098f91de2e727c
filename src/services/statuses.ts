import type { App } from "../app.ts";
import { forgetBackfillTrendUses, tagsWithoutDayAccount, tagsWithoutTrendUse } from "../storage/backfill-trend-uses.ts";
import { tx } from "../db/db.ts";
import { ApiError, notFound, unprocessable } from "../errors.ts";
import { parseId, type Id } from "../lib/ids.ts";
import {
  canonicalizeMentions,
  formatStatusText,
  type MentionResolver,
  exceedsStatusLimit,
  normalizeLanguage,
} from "../lib/status-text.ts";
import { uniqueHashtags } from "../lib/tags.ts";
import { localStatusUri, localStatusUrl } from "../lib/urls.ts";
import { type Account, findAccountByHandle } from "../storage/accounts.ts";
import { insertConversation } from "../storage/conversations.ts";
import { insertRemoteMedia, type NewRemoteMedia } from "../storage/media-attachments.ts";
import { conversationForUri, insertSilentMention } from "../storage/remote-statuses.ts";
import { findIdempotentStatusId, saveIdempotencyKey } from "../storage/idempotency.ts";
import { insertMention } from "../storage/mentions.ts";
import { isBlocking, isDomainBlocking } from "../storage/relationship-checks.ts";
import {
  adjustAuthorStatusesCount,
  adjustStatusCounter,
  decrementBoostersStatusesCount,
  deleteStatusRow,
  findStatusById,
  findStatusesByIds,
  insertStatus,
  type Status,
  type Visibility,
} from "../storage/statuses.ts";
import { setStatusTags, upsertTag } from "../storage/tags.ts";
import { unusableTagNames } from "../storage/admin-tags.ts";
import { findUserByAccountId, type User } from "../storage/users.ts";
import { onStatusCreated, onStatusDeleting } from "../federation/outbox/hooks.ts";
import { indexStatuses } from "../search/status-index.ts";
import { attachPoll, localPollDraft, type PollDraft } from "./poll-drafts.ts";
import { type PollInput, validatePoll } from "./poll-rules.ts";
import { deleteStatusMedia } from "./media-cleanup.ts";
import { filterVisibleStatuses } from "./status-filter.ts";
import { attachStatusMedia, resolveStatusMedia } from "./status-media.ts";
import { canViewStatus } from "./visibility.ts";
import { CARD_FETCH_JOB, wantsCard } from "./preview-cards.ts";
import { publishDeletedStatus, publishNewPublicStatus } from "./stream-events.ts";

export const REPLY_NOT_FOUND = "The post you are trying to reply to does not appear to exist.";
export const MAX_MULTI_GET = 20;
const VISIBILITIES: readonly Visibility[] = ["public", "unlisted", "private", "direct"];

/** A status the viewer may see: 404 "Record not found" when unknown, "Not Found" when hidden. */
export function requireVisibleStatus(app: App, viewerId: Id | null, rawId: unknown): Status {
  const id = parseId(rawId);
  const status = id ? findStatusById(app.db, id) : undefined;
  if (!status) throw notFound();
  if (!canViewStatus(app, viewerId, status)) throw notFound("Not Found");
  // A boost shows its original: that one must be visible to the viewer too.
  const original = status.reblogOfId ? findStatusById(app.db, status.reblogOfId) : undefined;
  if (original && !canViewStatus(app, viewerId, original)) throw notFound("Not Found");
  return status;
}

/** One of the caller's own statuses (edit, delete): anything else is "Record not found". */
export function requireOwnStatus(app: App, accountId: Id, rawId: unknown): Status {
  const id = parseId(rawId);
  const status = id ? findStatusById(app.db, id) : undefined;
  if (!status || status.accountId !== accountId) throw notFound();
  return status;
}

/** GET /api/v1/statuses?id[]=: the visible ones among at most 20 distinct ids, in request order. */
export function getVisibleStatuses(app: App, viewerId: Id | null, rawIds: string[]): Status[] {
  const ids = [...new Set(rawIds)];
  if (ids.length > MAX_MULTI_GET) throw unprocessable(`Too many statuses requested (maximum is ${MAX_MULTI_GET})`);
  const wanted = ids.map((x) => parseId(x)).filter((x): x is Id => x !== undefined);
  const found = findStatusesByIds(app.db, wanted);
  const ordered = wanted.map((id) => found.get(id)).filter((s): s is Status => s !== undefined);
  return filterVisibleStatuses(app, viewerId, ordered);
}

/**
 * Resolves mentions against accounts the server knows: a local account whose user is
 * confirmed and approved, or a known remote one; suspended accounts are never mentioned.
 * Federation will pass its own resolver (WebFinger first) to createStatus.
 */
export function knownAccountResolver(app: App): MentionResolver<Account> {
  return (h) => {
    const a = findAccountByHandle(app.db, h.username, h.domain);
    if (!a || a.suspendedAt !== null) return undefined;
    if (a.domain === null) {
      const u = findUserByAccountId(app.db, a.id);
      if (!u || u.confirmedAt === null || !u.approved) return undefined;
    }
    return a;
  };
}

/** Mentions the author may make: accounts it blocks, or on domains it blocks, are dropped. */
export function deliverableMentions(app: App, authorId: Id, accounts: Account[]): Account[] {
  return accounts.filter((a) => !isBlocking(app.db, authorId, a.id) && !isDomainBlocking(app.db, authorId, a.domain));
}

/**
 * The length rule alone (Mastodon's wording). Routes call it before any other work on the
 * text, such as resolving its mentions: an over-long text is refused on its length alone.
 */
export function validateStatusLength(app: App, text: string, spoilerText: string): void {
  const max = app.config.maxStatusChars;
  if (exceedsStatusLimit(text.trim(), spoilerText.trim(), max)) throw unprocessable(`Validation failed: Text character limit of ${max} exceeded`);
}

/** Validation of a local post's text (create and edit): Mastodon's wording. */
export function validateStatusText(app: App, text: string, spoilerText: string, hasMedia: boolean): void {
  if (text.trim() === "" && !hasMedia) throw unprocessable("Validation failed: Text can't be blank");
  validateStatusLength(app, text, spoilerText);
  // Mastodon's DisallowedHashtagsValidator: a local post may not use a tag a moderator made unusable.
  const refused = unusableTagNames(app.db, uniqueHashtags(text).map((t) => t.name));
  if (refused.length === 1) throw unprocessable(`Validation failed: Text contained a disallowed hashtag: ${refused[0]}`);
  if (refused.length > 1) throw unprocessable(`Validation failed: Text contained the disallowed hashtags: ${refused.join(", ")}`);
}

export interface StatusInput {
  /** `status` */
  text?: string;
  spoilerText?: string;
  sensitive?: boolean;
  visibility?: string;
  language?: string;
  inReplyToId?: string;
  mediaIds?: string[];
  /** `poll[...]`; checked here (services/poll-rules.ts), so a stored input is checked again when published. */
  poll?: PollInput;
  /** `scheduled_at`: the route hands such input to scheduleStatus (scheduled-statuses.ts) instead. */
  scheduledAt?: string;
}

export interface CreateStatusOptions {
  applicationId: Id | null;
  idempotencyKey?: string;
  resolve?: MentionResolver<Account>;
}

/** POST /api/v1/statuses for a local author (Mastodon's PostStatusService). */
export function createStatus(app: App, author: { account: Account; user: User | null }, input: StatusInput, opts: CreateStatusOptions): Status {
  const { account, user } = author;
  let inReplyTo: Status | null = null;
  if (input.inReplyToId !== undefined && input.inReplyToId !== "") {
    const id = parseId(input.inReplyToId);
    let parent = id ? findStatusById(app.db, id) : undefined;
    if (parent?.reblogOfId) parent = findStatusById(app.db, parent.reblogOfId);
    if (!parent || !canViewStatus(app, account.id, parent)) throw new ApiError(404, REPLY_NOT_FOUND);
    inReplyTo = parent;
  }
  const key = opts.idempotencyKey?.trim() || undefined;
  if (key) {
    const prior = findIdempotentStatusId(app.db, account.id, key, app.now());
    const original = prior ? findStatusById(app.db, prior) : undefined;
    if (original) return original;
  }
  // A poll with media is refused here ("Cannot attach more than 4 files", as Mastodon says).
  const media = resolveStatusMedia(app, account.id, input.mediaIds, { hasPoll: !!input.poll, statusId: null });
  if (input.poll) validatePoll(app, input.poll);

  let text = (input.text ?? "").trim();
  let spoilerText = (input.spoilerText ?? "").trim();
  const sensitive = (input.sensitive ?? user?.defaultSensitive ?? false) || spoilerText !== "";
  // A post with only a content warning: the warning becomes the text (Mastodon 4.x).
  if (text === "" && spoilerText !== "") {
    text = spoilerText;
    spoilerText = "";
  }
  let visibility = (input.visibility || user?.defaultPrivacy || "public") as Visibility;
  if (!VISIBILITIES.includes(visibility)) throw unprocessable("Validation failed: Visibility is not included in the list");
  if (visibility === "public" && account.silencedAt !== null) visibility = "unlisted";
  validateStatusText(app, text, spoilerText, media.length > 0);

  const mentioned = canonicalizeMentions(text, app.config.domain, opts.resolve ?? knownAccountResolver(app));
  text = mentioned.text;
  const mentions = deliverableMentions(app, account.id, mentioned.accounts);
  const content = formatStatusText(text, { baseUrl: app.baseUrl, localDomain: app.config.domain, mentions });
  return persistStatus(app, {
    media: media.map((m) => m.id),
    author: account,
    text,
    content,
    spoilerText,
    sensitive,
    visibility,
    language: normalizeLanguage(input.language) ?? normalizeLanguage(user?.defaultLanguage),
    inReplyTo,
    applicationId: opts.applicationId,
    mentions,
    tags: uniqueHashtags(text),
    idempotencyKey: key,
    poll: input.poll ? localPollDraft(app, input.poll) : undefined,
  });
}

export interface StatusDraft {
  author: Account;
  text: string;
  content: string;
  spoilerText: string;
  sensitive: boolean;
  visibility: Visibility;
  language: string | null;
  inReplyTo: Status | null;
  applicationId: Id | null;
  mentions: Account[];
  tags: { name: string; display: string }[];
  /** Remote statuses bring their id, uri, url and date; local ones get them here. */
  id?: Id;
  uri?: string;
  url?: string | null;
  createdAt?: number;
  idempotencyKey?: string;
  // The rest only come with remote statuses (federation/remote-statuses.ts).
  /** Accounts that may see the post without being shown as mentioned or notified (AP §4.3). */
  silentMentions?: Account[];
  /** A direct post addressed to people it does not mention: shown as private. */
  limited?: boolean;
  /** The parent's uri while the parent itself is unknown (a job links it later). */
  inReplyToUri?: string | null;
  /** The thread's `context`/`conversation` uri: groups the thread when the parent is unknown. */
  conversationUri?: string | null;
  /** Media rows to create (the status id is filled in here). */
  attachments?: Omit<NewRemoteMedia, "statusId" | "createdAt">[];
  /** A local post's uploads, in order (checked by resolveStatusMedia). */
  media?: Id[];
  /** The origin's likes/shares counts. */
  untrustedFavouritesCount?: number | null;
  untrustedReblogsCount?: number | null;
  /** The status's poll; a local one's end is scheduled here. */
  poll?: PollDraft;
  /**
   * Fetched to complete a thread (issue 19): stored and shown in its thread, but never fanned
   * out (no home or list rows, no notifications), streamed or federated.
   */
  backfill?: boolean;
  /** False for posts written in bulk (an imported archive): their links are not crawled for cards. */
  crawlCard?: boolean;
}

/**
 * Saves a new status with everything that comes with it in one transaction: mentions, tags,
 * thread, media, counters and the fan-out job. Shared by local posting and federation.
 */
export function persistStatus(app: App, d: StatusDraft): Status {
  const db = app.db;
  return tx(db, () => {
    const now = app.now();
    if (d.idempotencyKey) {
      // Concurrent duplicates are serialised by the immediate transaction.
      const prior = findIdempotentStatusId(db, d.author.id, d.idempotencyKey, now);
      const original = prior ? findStatusById(db, prior) : undefined;
      if (original) return original;
    }
    const id = d.id ?? app.ids.next();
    const createdAt = d.createdAt ?? now;
    const local = d.author.domain === null;
    const parent = d.inReplyTo;
    let conversationId: Id | null;
    if (parent?.conversationId) conversationId = parent.conversationId;
    else if (d.conversationUri) conversationId = conversationForUri(db, d.conversationUri, app.ids.next(), createdAt);
    else if (parent) conversationId = null; // a remote thread without context
    else {
      conversationId = app.ids.next();
      insertConversation(db, { id: conversationId, uri: null, createdAt });
    }
    // Mastodon carries the original addressee along a self-thread.
    const inReplyToAccountId = parent
      ? parent.accountId === d.author.id && parent.inReplyToAccountId
        ? parent.inReplyToAccountId
        : parent.accountId
      : null;
    insertStatus(db, {
      id,
      accountId: d.author.id,
      local,
      uri: d.uri ?? localStatusUri(app.baseUrl, d.author.username, id),
      url: d.url !== undefined ? d.url : local ? localStatusUrl(app.baseUrl, d.author.username, id) : null,
      text: d.text,
      content: d.content,
      spoilerText: d.spoilerText,
      sensitive: d.sensitive,
      visibility: d.visibility,
      language: d.language,
      inReplyToId: parent?.id ?? null,
      inReplyToAccountId,
      inReplyToUri: parent?.uri ?? d.inReplyToUri ?? null,
      reblogOfId: null,
      conversationId,
      applicationId: d.applicationId,
      createdAt,
      limited: d.limited,
      untrustedFavouritesCount: d.untrustedFavouritesCount,
      untrustedReblogsCount: d.untrustedReblogsCount,
    });
    for (const m of d.mentions) insertMention(db, { id: app.ids.next(), statusId: id, accountId: m.id, createdAt });
    if (d.silentMentions) {
      for (const m of d.silentMentions) insertSilentMention(db, { id: app.ids.next(), statusId: id, accountId: m.id, createdAt });
    }
    if (d.attachments) for (const a of d.attachments) insertRemoteMedia(db, { ...a, statusId: id, createdAt });
    if (d.poll) attachPoll(app, id, d.author.id, d.poll, local, createdAt);
    if (d.media) attachStatusMedia(app, id, d.media);
    const tagIds = d.tags.map((t) => upsertTag(db, { id: app.ids.next(), name: t.name, display: t.display, at: createdAt }));
    // Before the tag links add their trend uses: those a backfilled post would add are taken back.
    const before = d.backfill
      ? { newTrendUses: tagsWithoutTrendUse(db, d.author.id, createdAt, tagIds), newDayAccounts: tagsWithoutDayAccount(db, d.author.id, createdAt, tagIds) }
      : undefined;
    if (tagIds.length) setStatusTags(db, id, tagIds);
    if (before) forgetBackfillTrendUses(db, id, d.author.id, createdAt, before);
    // Mastodon's counter caches: direct posts are not counted; only public replies count on the parent.
    if (d.visibility !== "direct") adjustAuthorStatusesCount(db, d.author.id, 1, createdAt);
    if (parent && (d.visibility === "public" || d.visibility === "unlisted")) adjustStatusCounter(db, parent.id, "replies_count", 1);
    if (!d.backfill) app.jobs.enqueue("status.fanout", { statusId: id });
    // The seed: no crawl for a post with a content warning. One attempt, as Mastodon's LinkCrawlWorker.
    if (d.crawlCard !== false && wantsCard(d)) app.jobs.enqueue(CARD_FETCH_JOB, { statusId: id }, { maxAttempts: 1 });
    if (d.idempotencyKey) saveIdempotencyKey(db, d.author.id, d.idempotencyKey, id, now);
    indexStatuses(db, [id]);
    const saved = findStatusById(db, id)!;
    if (!d.backfill) {
      onStatusCreated(app, saved);
      publishNewPublicStatus(app, saved);
    }
    return saved;
  });
}

/**
 * Hard delete with Mastodon's counter bookkeeping; boosts of it go too (FK cascade). Its
 * uploads become unattached, kept a day for a redraft, unless `deleteMedia` (then a job
 * removes their files).
 */
export function deleteStatus(app: App, status: Status, opts: { deleteMedia?: boolean } = {}): void {
  const db = app.db;
  tx(db, () => {
    if (opts.deleteMedia) deleteStatusMedia(app, status.id);
    // Before the row goes: its mentions, boosts and favourites tell who must hear of it, and
    // the feeds holding it which live streams do.
    onStatusDeleting(app, status);
    publishDeletedStatus(app, status);
    const counted = status.visibility !== "direct";
    if (status.reblogOfId) {
      adjustStatusCounter(db, status.reblogOfId, "reblogs_count", -1);
    } else {
      decrementBoostersStatusesCount(db, status.id);
      if (status.inReplyToId && (status.visibility === "public" || status.visibility === "unlisted")) {
        adjustStatusCounter(db, status.inReplyToId, "replies_count", -1);
      }
    }
    if (counted) adjustAuthorStatusesCount(db, status.accountId, -1);
    deleteStatusRow(db, status.id);
    // The status's own index entry goes with the row (a trigger); a local boost's original
    // leaves the booster's library.
    if (status.reblogOfId && status.local) indexStatuses(db, [status.reblogOfId]);
  });
}
