// Local statuses → Note objects (AP §4.1, §4.2, §4.4, §4.5). A page of notes (outbox,
// featured, replies) is loaded with a fixed number of queries whatever its length.
import type { App } from "../../app.ts";
import { readTx } from "../../db/db.ts";
import type { Id } from "../../lib/ids.ts";
import { tagUrl } from "../../lib/urls.ts";
import { mediaStore } from "../../media/store.ts";
import { scanShortcodes } from "../../lib/shortcodes.ts";
import { type Account, findAccountsByIds } from "../../storage/accounts.ts";
import {
  type ConversationInfo,
  findConversations,
  findMediaOfStatuses,
  findSelfReplies,
  findStatusTagsWithDisplay,
  type StatusMedia,
  type StatusTag,
} from "../../storage/ap-objects.ts";
import type { CustomEmoji } from "../../storage/custom-emojis.ts";
import { findMentionedAccounts } from "../../storage/mentions.ts";
import { findPollsByIds, type Poll } from "../../storage/polls.ts";
import type { Status } from "../../storage/statuses.ts";
import type { ApObject } from "../types.ts";
import { addressingFor, silencedAudienceOf } from "./addressing.ts";
import { apTime, NOTE_CONTEXT, withContext } from "./context.ts";
import { emojiTags, loadEmojis } from "./emoji.ts";

// Mastodon puts up to 5 self-replies on the first page of a Note's `replies`.
const SELF_REPLIES = 5;

/** Everything the notes of a page need. */
export interface NoteBatch {
  authors: Map<Id, Account>;
  mentions: Map<Id, Account[]>;
  tags: Map<Id, StatusTag[]>;
  emojis: Map<string, CustomEmoji>;
  media: Map<Id, StatusMedia[]>;
  conversations: Map<Id, ConversationInfo>;
  selfReplies: Map<Id, { id: Id; uri: string }[]>;
  /** Statuses of silenced authors: the mentioned accounts they may address. */
  silencedAudiences: Map<Id, Set<string>>;
  /** Polls by poll id (statuses with a poll are Questions). */
  polls: Map<Id, Poll>;
}

const shortcodesOf = (s: Status) => scanShortcodes(s.text || s.content, scanShortcodes(s.spoilerText, []));

/**
 * Loads a page's lookups. `knownAuthors` saves the author query when the caller has them
 * (a page of one account's statuses).
 */
export function loadNoteBatch(app: App, statuses: Status[], knownAuthors?: Map<Id, Account>): NoteBatch {
  return readTx(app.db, () => {
    const db = app.db;
    const ids = statuses.map((s) => s.id);
    const authors = new Map(knownAuthors ?? []);
    const missing = statuses.map((s) => s.accountId).filter((id) => !authors.has(id));
    if (missing.length) for (const [id, a] of findAccountsByIds(db, missing)) authors.set(id, a);
    const mentions = findMentionedAccounts(db, ids);
    const emojis = loadEmojis(
      app,
      statuses.map((s) => ({ domain: authors.get(s.accountId)?.domain ?? null, codes: shortcodesOf(s) })),
    );
    const conversations = findConversations(
      db,
      statuses.map((s) => s.conversationId).filter((c): c is Id => c !== null),
    );
    // Silenced authors are rare: their extra lookup runs only for their statuses.
    const silencedAudiences = new Map<Id, Set<string>>();
    for (const s of statuses) {
      const author = authors.get(s.accountId);
      const audience = author && silencedAudienceOf(app, author, mentions.get(s.id) ?? []);
      if (audience) silencedAudiences.set(s.id, audience);
    }
    return {
      authors,
      mentions,
      tags: findStatusTagsWithDisplay(db, ids),
      emojis,
      media: findMediaOfStatuses(db, ids),
      conversations,
      selfReplies: findSelfReplies(db, statuses.filter((s) => s.local).map((s) => s.id), SELF_REPLIES),
      silencedAudiences,
      polls: findPollsByIds(db, statuses.filter((s) => s.pollId !== null).map((s) => s.pollId!)),
    };
  });
}

/** `tag:` URI of a conversation started here (Mastodon's OStatus unique_tag). */
function conversationTag(app: App, c: ConversationInfo): string {
  return `tag:${app.config.domain},${new Date(c.createdAt).toISOString().slice(0, 10)}:objectId=${c.id}:objectType=Conversation`;
}

function documentOf(app: App, m: StatusMedia): ApObject {
  const doc: ApObject = {
    type: "Document",
    mediaType: m.contentType,
    url: m.file ? mediaStore(app).url(m.file) : m.remoteUrl,
    name: m.description ?? null,
    blurhash: m.blurhash,
  };
  const focus = m.meta.focus as { x?: unknown; y?: unknown } | undefined;
  if (focus && typeof focus.x === "number" && typeof focus.y === "number") doc.focalPoint = [focus.x, focus.y];
  const original = (m.meta.original ?? {}) as { width?: unknown; height?: unknown };
  if (typeof original.width === "number") doc.width = original.width;
  if (typeof original.height === "number") doc.height = original.height;
  // A custom preview (always stored as JPEG), as Mastodon's `icon`.
  if (m.thumbnailFile) doc.icon = { type: "Image", mediaType: "image/jpeg", url: mediaStore(app).url(m.thumbnailFile) };
  return doc;
}

function tagsOf(app: App, s: Status, author: Account, b: NoteBatch): ApObject[] {
  const out: ApObject[] = [];
  for (const m of b.mentions.get(s.id) ?? []) {
    out.push({ type: "Mention", href: m.uri, name: m.domain === null ? `@${m.username}` : `@${m.username}@${m.domain}` });
  }
  for (const t of b.tags.get(s.id) ?? []) out.push({ type: "Hashtag", href: tagUrl(app.baseUrl, t.name), name: `#${t.display}` });
  out.push(...emojiTags(app, author.domain, shortcodesOf(s), b.emojis));
  return out;
}

function repliesOf(s: Status, b: NoteBatch): ApObject {
  const id = `${s.uri}/replies`;
  const self = b.selfReplies.get(s.id) ?? [];
  // Self-replies first; the next page continues after them, then other people's replies.
  const next = self.length ? `${id}?min_id=${self[self.length - 1].id}&page=true` : `${id}?only_other_accounts=true&page=true`;
  return { id, type: "Collection", first: { type: "CollectionPage", next, partOf: id, items: self.map((r) => r.uri) } };
}

/** The Note of one status of the batch, without @context (it may be embedded). */
export function renderNote(app: App, s: Status, b: NoteBatch): ApObject {
  const author = b.authors.get(s.accountId);
  if (!author) throw new Error(`renderNote: author ${s.accountId} of status ${s.id} was not loaded`);
  const { to, cc } = addressingFor({
    visibility: s.visibility,
    author,
    mentions: b.mentions.get(s.id) ?? [],
    silencedAudience: b.silencedAudiences.get(s.id),
  });
  const note: ApObject = {
    id: s.uri,
    type: "Note",
    summary: s.spoilerText === "" ? null : s.spoilerText,
    inReplyTo: s.inReplyToUri,
    published: apTime(s.createdAt),
    url: s.url ?? s.uri,
    attributedTo: author.uri,
    to,
    cc,
    // A moderator's `sensitive` action on the author marks every post (Mastodon's NoteSerializer).
    sensitive: s.sensitive || author.sensitizedAt !== null,
    atomUri: s.uri,
    inReplyToAtomUri: s.inReplyToUri,
  };
  const conversation = s.conversationId ? b.conversations.get(s.conversationId) : undefined;
  if (conversation) {
    note.conversation = conversation.uri ?? conversationTag(app, conversation);
    // FEP-7888: our own threads are named by their root author and conversation.
    note.context = conversation.uri ?? `${app.baseUrl}/contexts/${conversation.rootAccountId ?? author.id}-${conversation.id}`;
  }
  note.content = s.content;
  if (s.language) note.contentMap = { [s.language]: s.content };
  if (s.editedAt !== null) note.updated = apTime(s.editedAt);
  note.attachment = (b.media.get(s.id) ?? []).map((m) => documentOf(app, m));
  note.tag = tagsOf(app, s, author, b);
  if (s.local) {
    note.replies = repliesOf(s, b);
    note.likes = { id: `${s.uri}/likes`, type: "Collection", totalItems: s.favouritesCount };
    note.shares = { id: `${s.uri}/shares`, type: "Collection", totalItems: s.reblogsCount };
  }
  const poll = s.pollId ? b.polls.get(s.pollId) : undefined;
  if (poll) addQuestion(note, poll, app.now());
  return note;
}

/**
 * A status with a poll is a Question (AP §4.6): `oneOf` or `anyOf` options with their tallies
 * (null while totals are hidden, as Mastodon), `endTime`, `closed` once ended, `votersCount`.
 */
function addQuestion(note: ApObject, poll: Poll, now: number): void {
  note.type = "Question";
  const ended = poll.expiresAt !== null && poll.expiresAt < now;
  const showTotals = ended || !poll.hideTotals;
  note[poll.multiple ? "anyOf" : "oneOf"] = poll.options.map((name, i) => ({
    type: "Note",
    name,
    replies: { type: "Collection", totalItems: showTotals ? poll.tallies[i] : null },
  }));
  if (poll.expiresAt !== null) note.endTime = apTime(poll.expiresAt);
  if (ended) note.closed = apTime(poll.expiresAt!);
  if (poll.votersCount !== null) note.votersCount = poll.votersCount;
}

/** Notes of a page of statuses (not boosts), in input order, without @context. */
export function toApNotes(app: App, statuses: Status[], knownAuthors?: Map<Id, Account>): ApObject[] {
  if (statuses.length === 0) return [];
  const batch = loadNoteBatch(app, statuses, knownAuthors);
  return statuses.map((s) => renderNote(app, s, batch));
}

/** The Note of a local status (not a boost), with addressing, tags, emojis and attachments. */
export function toApNote(app: App, status: Status): ApObject {
  return withContext(NOTE_CONTEXT, toApNotes(app, [status])[0]);
}
