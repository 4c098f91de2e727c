import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound } from "../errors.ts";
import { canonicalizeMentions, formatStatusText, type MentionResolver, normalizeLanguage } from "../lib/status-text.ts";
import { uniqueHashtags } from "../lib/tags.ts";
import type { Account } from "../storage/accounts.ts";
import { activeMentionAccountIds, insertMention, silenceMentionsExcept } from "../storage/mentions.ts";
import { hasStatusEdits, insertStatusEdit, listStatusEdits, type StatusEdit } from "../storage/status-edits.ts";
import { findPollById, findPollByStatusId } from "../storage/polls.ts";
import { findStatusById, type Status, updateStatusContent } from "../storage/statuses.ts";
import { setStatusTags, upsertTag } from "../storage/tags.ts";
import type { User } from "../storage/users.ts";
import { onStatusUpdated } from "../federation/outbox/hooks.ts";
import { notify, notifyStatusUpdate } from "./notifications.ts";
import { applyPollEdit } from "./poll-drafts.ts";
import { type PollInput, validatePoll } from "./poll-rules.ts";
import { findMediaByStatusIds } from "../storage/media-attachments.ts";
import { retireMediaExcept, updateMediaDescription } from "../storage/media-uploads.ts";
import { attachStatusMedia, type MediaAttributesInput, mediaAttributeChanges, resolveStatusMedia } from "./status-media.ts";
import { deliverableMentions, knownAccountResolver, validateStatusText } from "./statuses.ts";

export interface EditInput {
  /** `status`: omitted means empty text. */
  text?: string;
  /** Omitted keeps the current content warning. */
  spoilerText?: string;
  /** Omitted means false (true anyway with a content warning). */
  sensitive?: boolean;
  /** Omitted or invalid keeps the current language. */
  language?: string;
  /** Omitted means no media (the request is the whole new state). */
  mediaIds?: string[];
  /** Alt text and focus of the new media (`media_attributes[]`). */
  mediaAttributes?: MediaAttributesInput[];
  /** The poll as it must be now: null removes it (PUT without `poll`), undefined leaves it as it is. */
  poll?: PollInput | null;
}

/** A revision holding the status as it is now (its media ids and poll options given by the caller). */
export function snapshot(nextId: () => string, s: Status, at: number, mediaIds: string[] = [], pollOptions: string[] | null = null): StatusEdit {
  return {
    id: nextId(),
    statusId: s.id,
    accountId: s.accountId,
    text: s.text,
    content: s.content,
    spoilerText: s.spoilerText,
    sensitive: s.sensitive,
    language: s.language,
    mediaIds,
    pollOptions,
    createdAt: at,
  };
}

/**
 * PUT /api/v1/statuses/:id (Mastodon's UpdateStatusService): the request is the whole new
 * state. The first edit also stores the original as a revision; an edit that changes nothing
 * creates no revision and returns the status unchanged. Visibility and reply target stay.
 */
export function editStatus(
  app: App,
  author: { account: Account; user: User | null },
  status: Status,
  input: EditInput,
  opts: { resolve?: MentionResolver<Account> } = {},
): Status {
  if (status.reblogOfId) throw notFound(); // a boost has no content of its own to edit
  const previous = (findMediaByStatusIds(app.db, [status.id]).get(status.id) ?? []).map((m) => m.id);
  // A poll with media is refused here ("Cannot attach more than 4 files", as Mastodon says).
  const next = resolveStatusMedia(app, status.accountId, input.mediaIds, { hasPoll: !!input.poll, statusId: status.id });
  const nextIds = next.map((m) => m.id);
  const details = mediaAttributeChanges(next, new Set(previous), input.mediaAttributes ?? []);
  if (input.poll) validatePoll(app, input.poll);

  let text = (input.text ?? "").trim();
  let spoilerText = input.spoilerText !== undefined ? input.spoilerText.trim() : status.spoilerText;
  if (text === "" && input.spoilerText !== undefined && spoilerText !== "") {
    text = spoilerText;
    spoilerText = "";
  }
  const sensitive = (input.sensitive ?? false) || spoilerText !== "";
  const language = normalizeLanguage(input.language) ?? status.language ?? normalizeLanguage(author.user?.defaultLanguage);
  validateStatusText(app, text, spoilerText, next.length > 0);

  const mentioned = canonicalizeMentions(text, app.config.domain, opts.resolve ?? knownAccountResolver(app));
  text = mentioned.text;
  const mediaChanged = details.length > 0 || previous.join() !== nextIds.join();
  const textChanged =
    text !== status.text || spoilerText !== status.spoilerText || sensitive !== status.sensitive || language !== status.language || mediaChanged;
  // Any poll sent moves its end (expires_in counts from now), so it is always a change, as in Mastodon.
  const pollTouched = input.poll !== undefined && (input.poll !== null || status.pollId !== null);
  if (!textChanged && !pollTouched) return status;
  const mentions = deliverableMentions(app, status.accountId, mentioned.accounts);
  const content = formatStatusText(text, { baseUrl: app.baseUrl, localDomain: app.config.domain, mentions });

  const db = app.db;
  return tx(db, () => {
    const now = app.now();
    const poll = findPollByStatusId(db, status.id);
    const pollChanged = input.poll !== undefined && applyPollEdit(app, status.id, status.accountId, poll, input.poll);
    if (!textChanged && !pollChanged) return status;
    // The first edit keeps the original as a revision too (with the media and poll it had).
    if (!hasStatusEdits(db, status.id)) insertStatusEdit(db, snapshot(() => app.ids.next(), status, status.createdAt, previous, poll?.options ?? null));
    if (mediaChanged) {
      for (const d of details) updateMediaDescription(db, d.id, { ...d, at: now });
      retireMediaExcept(db, status.id, nextIds);
      attachStatusMedia(app, status.id, nextIds);
    }
    updateStatusContent(db, status.id, { text, content, spoilerText, sensitive, language, editedAt: now });
    const mentionedBefore = new Set(activeMentionAccountIds(db, status.id));
    for (const m of mentions) insertMention(db, { id: app.ids.next(), statusId: status.id, accountId: m.id, createdAt: now });
    silenceMentionsExcept(db, status.id, mentions.map((m) => m.id));
    const tagIds = uniqueHashtags(text).map((t) => upsertTag(db, { id: app.ids.next(), name: t.name, display: t.display, at: now }));
    setStatusTags(db, status.id, tagIds);
    const updated = findStatusById(db, status.id)!;
    const pollNow = updated.pollId ? findPollById(db, updated.pollId) : undefined;
    insertStatusEdit(db, snapshot(() => app.ids.next(), updated, now, nextIds, pollNow?.options ?? null));
    // Only accounts the edit newly mentions hear about it (a dismissed mention stays dismissed).
    for (const m of mentions) {
      if (!mentionedBefore.has(m.id)) notify(app, { type: "mention", recipientId: m.id, fromAccountId: status.accountId, statusId: status.id });
    }
    notifyStatusUpdate(app, updated);
    onStatusUpdated(app, updated);
    return updated;
  });
}

/** The revisions of a status, oldest first; never empty (a never-edited status yields its current state). */
export function listRevisions(app: App, status: Status): StatusEdit[] {
  const edits = listStatusEdits(app.db, status.id);
  if (edits.length > 0) return edits;
  const poll = status.pollId ? findPollById(app.db, status.pollId) : undefined;
  return [snapshot(() => status.id, status, status.editedAt ?? status.createdAt, [], poll?.options ?? null)];
}
