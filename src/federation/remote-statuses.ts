// Remote statuses in and out of the database (AP §5.1-5.3): the inbox's Create/Update/Delete
// and resolve/statuses.ts both land here. Storage goes through services/statuses.ts
// (persistStatus, deleteStatus) like local posts.
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { idAt } from "../lib/ids.ts";
import { remotePollDraft } from "../services/poll-drafts.ts";
import { deleteStatus, persistStatus } from "../services/statuses.ts";
import type { Account } from "../storage/accounts.ts";
import { deleteRemoteStatusMedia } from "../storage/media-attachments.ts";
import { insertSilentMention, isStatusIdTaken } from "../storage/remote-statuses.ts";
import { findStatusByLink } from "../storage/status-urls.ts";
import { findStatusByUri, type Status } from "../storage/statuses.ts";
import { hasTombstone, insertTombstone } from "../storage/tombstones.ts";
import { domainPolicy } from "./domain-policy.ts";
import { visibilityFromAddressing } from "./parse/addressing.ts";
import type { ParsedNote } from "./parse/note.ts";
import { hostOf } from "./parse/common.ts";
import { isWantedHere, localAudience, remoteAudience, resolveMentions } from "./remote-status-audience.ts";
import { applyRemoteUpdate } from "./remote-status-edits.ts";
import { remoteMediaDrafts } from "./remote-media.ts";
import { enqueueStatusMediaCache } from "../media/remote-cache-jobs.ts";
import { noteTags, storeNoteEmojis } from "./remote-note-links.ts";
import { enqueueThreadResolve } from "./thread-resolve.ts";

export interface RemoteStatusContext {
  /** The local account whose personal inbox received it (it may then see it: silent mention). */
  recipient?: Account;
  /** Fetched on purpose (search, thread, boost): skips the inbox acceptance filter (AP §4.3). */
  fetched?: boolean;
  /** How many parents up a thread this status was fetched as (0: not a parent). */
  threadDepth?: number;
  /** Fetched by a thread backfill: no side effects (StatusDraft.backfill), parents left to that walk. */
  backfill?: boolean;
}

const DAY = 86_400_000;
/** Draws of a publication-time id before giving up (each has 65 536 sequence values). */
const ID_ATTEMPTS = 5;

/** The origin rules (AP §12): a remote author, the note's id on its host, no other author claimed. */
function isFromAuthor(note: ParsedNote, author: Account): boolean {
  if (author.domain === null) return false;
  const host = hostOf(author.uri);
  if (!host || hostOf(note.uri) !== host) return false;
  return note.attributedTo === null || note.attributedTo === author.uri;
}

/** Nothing new comes from a suspended account or domain (their known posts may still be edited). */
const maySendNew = (app: App, author: Account) => author.suspendedAt === null && !domainPolicy(app, author.domain!).suspended;

/** A free id from the publication time (Mastodon's Snowflake.id_at with random bits). */
function publicationId(app: App, at: number): string {
  for (let i = 1; ; i++) {
    const id = idAt(at);
    if (!isStatusIdTaken(app.db, id) || i >= ID_ATTEMPTS) return id;
  }
}

const isConstraintError = (e: unknown) => (e as { code?: unknown })?.code?.toString().startsWith("SQLITE_CONSTRAINT") === true;

/**
 * Stores a remote status: the author is `author` (the note's attributedTo must be it); mentions
 * and the parent are resolved (unknown parent fetched), hashtags and emojis linked, visibility
 * from the addressing. Returns the status (the existing one when the uri is known), or
 * undefined when it is refused (tombstoned, acceptance filter, foreign origin).
 */
export async function createRemoteStatus(app: App, note: ParsedNote, author: Account, ctx: RemoteStatusContext = {}): Promise<Status | undefined> {
  if (!isFromAuthor(note, author)) return undefined;
  const known = knownStatus(app, note, author, ctx.recipient);
  if (known !== null) return known;
  if (!maySendNew(app, author) || hasTombstone(app.db, note.uri)) return undefined;

  const local = localAudience(app, note, ctx.recipient);
  if (!ctx.fetched) {
    const visibility = visibilityFromAddressing(note.to, note.cc, author.followersUrl);
    if (!isWantedHere(app, author, visibility, local, findParent(app, note))) return undefined;
  }

  // Network first (services stay synchronous): mentions of accounts we do not know yet.
  const tagged = await resolveMentions(app, note, local);
  const audience = remoteAudience(note, author, local, tagged);
  storeNoteEmojis(app, note, author);
  const now = app.now();
  // A post dated in the future would sit on top of every timeline: it counts as posted now.
  const createdAt = Math.min(note.published ?? now, now);

  for (let attempt = 1; ; attempt++) {
    // The await above let another job store the same uri meanwhile.
    const raced = knownStatus(app, note, author, ctx.recipient);
    if (raced !== null) return raced;
    // Looked up after the await too: the parent may have come or gone meanwhile.
    const parent = findParent(app, note);
    try {
      return tx(app.db, () => {
        const attachments = remoteMediaDrafts(app, author, note.attachments);
        const status = persistStatus(app, {
          author,
          text: "",
          content: note.content,
          spoilerText: note.spoilerText,
          // A sensitized account's posts are stored sensitive (Mastodon's ProcessStatusService).
          sensitive: note.sensitive || author.sensitizedAt !== null,
          visibility: audience.visibility,
          limited: audience.limited,
          language: note.language,
          inReplyTo: parent ?? null,
          inReplyToUri: parent ? null : note.inReplyTo,
          // Only a thread named on the author's own server: a peer must not pull its post into
          // a conversation (and the direct-message threads of local users) started elsewhere.
          conversationUri: note.conversation && hostOf(note.conversation) === hostOf(author.uri) ? note.conversation : null,
          applicationId: null,
          mentions: audience.mentions,
          silentMentions: audience.silentMentions,
          tags: noteTags(note),
          attachments,
          id: publicationId(app, createdAt),
          uri: note.uri,
          url: note.url,
          createdAt,
          untrustedFavouritesCount: note.likesCount,
          untrustedReblogsCount: note.sharesCount,
          poll: note.poll ? remotePollDraft(app, note.poll) : undefined,
          backfill: ctx.backfill,
        });
        // A backfilled post's parent is the backfill's to fetch: thread.resolve would fan it out.
        if (note.inReplyTo && !parent && !ctx.backfill) enqueueThreadResolve(app, status.id, ctx.threadDepth ?? 0);
        if (attachments.length) enqueueStatusMediaCache(app, status.id);
        return status;
      });
    } catch (e) {
      // A taken id (random bits collided) or the uri stored by someone else: look again.
      if (!isConstraintError(e) || attempt >= ID_ATTEMPTS) throw e;
    }
  }
}

const findParent = (app: App, note: ParsedNote) => (note.inReplyTo ? findStatusByUri(app.db, note.inReplyTo) : undefined);

/**
 * The stored status for the note's uri: null when there is none, undefined when it belongs to
 * another author (refused). A known one gains the personal-inbox recipient (AP §5.1 duplicate).
 */
function knownStatus(app: App, note: ParsedNote, author: Account, recipient?: Account): Status | undefined | null {
  const status = findStatusByUri(app.db, note.uri);
  if (!status) return null;
  if (status.accountId !== author.id) return undefined;
  if (recipient) insertSilentMention(app.db, { id: app.ids.next(), statusId: status.id, accountId: recipient.id, createdAt: app.now() });
  return status;
}

/**
 * Applies an Update of a known remote status (explicit edit keeps history). Unknown: like
 * Create, unless it was published more than a day ago (AP §5.2).
 */
export async function updateRemoteStatus(app: App, note: ParsedNote, author: Account): Promise<Status | undefined> {
  if (!isFromAuthor(note, author)) return undefined;
  const status = findStatusByUri(app.db, note.uri);
  if (!status) {
    if (note.published !== null && note.published < app.now() - DAY) return undefined;
    return createRemoteStatus(app, note, author);
  }
  if (status.accountId !== author.id || status.reblogOfId) return undefined;
  return applyRemoteUpdate(app, status, note, author);
}

/**
 * A Delete of a remote status by its author: removes it and records a tombstone. The uri may
 * name the status by its id or its web URL; a status of anyone else is left alone.
 */
export function deleteRemoteStatus(app: App, uri: string, actor: Account): void {
  tx(app.db, () => {
    // Only uris on the actor's own host: a Delete must not block another server's posts.
    if (actor.domain !== null && hostOf(uri) === hostOf(actor.uri)) {
      insertTombstone(app.db, { uri, accountId: actor.id, createdAt: app.now() });
    }
    const status = findStatusByLink(app.db, uri, { remoteOnly: true });
    if (!status || status.accountId !== actor.id || status.local) return;
    // Its media rows would otherwise stay behind, detached (they only point at the origin's files).
    if (!status.reblogOfId) deleteRemoteStatusMedia(app.db, status.id);
    deleteStatus(app, status);
  });
}
