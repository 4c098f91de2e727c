// Update(Note) of a known remote status (AP §5.2): explicit edits keep a history like local
// edits (services/status-edits.ts); implicit updates only refresh the origin's counts.
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { notify, notifyStatusUpdate } from "../services/notifications.ts";
import { applyRemotePoll } from "../services/poll-drafts.ts";
import { cardAfterEdit } from "../services/preview-cards.ts";
import { snapshot as statusSnapshot } from "../services/status-edits.ts";
import { indexStatuses } from "../search/status-index.ts";
import { publishEditedStatus } from "../services/stream-events.ts";
import type { Account } from "../storage/accounts.ts";
import { detachStatusMedia, findMediaByStatusIds, insertRemoteMedia, updateRemoteMediaDetails } from "../storage/media-attachments.ts";
import { activeMentionAccountIds, insertMention, silenceMentionsExcept } from "../storage/mentions.ts";
import { insertSilentMention, updateRemoteStatusFlags, updateUntrustedCounts } from "../storage/remote-statuses.ts";
import { findPollByStatusId } from "../storage/polls.ts";
import { hasStatusEdits, insertStatusEdit } from "../storage/status-edits.ts";
import { findStatusById, type Status, updateStatusContent } from "../storage/statuses.ts";
import { setStatusTags, upsertTag } from "../storage/tags.ts";
import type { ParsedNote } from "./parse/note.ts";
import { localAudience, remoteAudience, resolveMentions } from "./remote-status-audience.ts";
import { remoteMediaChange } from "./remote-media.ts";
import { enqueueStatusMediaCache } from "../media/remote-cache-jobs.ts";
import { noteTags, storeNoteEmojis } from "./remote-note-links.ts";

function snapshot(app: App, s: Status, mediaIds: Id[], at: number, pollOptions: string[] | null): void {
  insertStatusEdit(app.db, statusSnapshot(() => app.ids.next(), s, at, mediaIds, pollOptions));
}

/**
 * Mastodon's ProcessStatusUpdateService. `updated` newer than our last edit (or a first edit):
 * explicit — text, content warning, media, poll, sensitive, language, mentions and tags are
 * replaced, and a change of text, content warning, media or poll options makes a revision (the
 * first one also records the original) and tells the local accounts that boosted it. `updated`
 * older than our last edit: ignored. No `updated`: implicit — only the origin's counts and a
 * poll's tallies and end are refreshed.
 */
export async function applyRemoteUpdate(app: App, status: Status, note: ParsedNote, author: Account): Promise<Status> {
  if (note.updated === null || (status.editedAt !== null && note.updated <= status.editedAt)) {
    if (note.updated === null || note.updated === status.editedAt) {
      tx(app.db, () => {
        updateUntrustedCounts(app.db, status.id, note.likesCount, note.sharesCount);
        // An implicit update refreshes a poll's tallies and end, never its options.
        applyRemotePoll(app, status.id, status.accountId, findPollByStatusId(app.db, status.id), note.poll, false);
      });
    }
    return findStatusById(app.db, status.id) ?? status;
  }
  const local = localAudience(app, note);
  const tagged = await resolveMentions(app, note, local);
  const audience = remoteAudience(note, author, local, tagged);
  storeNoteEmojis(app, note, author);
  const editedAt = note.updated;

  return tx(app.db, () => {
    // Re-read inside the write lock: another update may have landed during the awaits.
    const current = findStatusById(app.db, status.id);
    if (!current) return status;
    if (current.editedAt !== null && editedAt <= current.editedAt) return current;
    const db = app.db;
    const oldMedia = findMediaByStatusIds(db, [current.id]).get(current.id) ?? [];
    const media = remoteMediaChange(app, author, oldMedia, note.attachments);
    let mediaIds = oldMedia.map((m) => m.id);
    if (media.kind === "replace") {
      detachStatusMedia(db, current.id);
      for (const m of media.drafts) insertRemoteMedia(db, { ...m, statusId: current.id, createdAt: editedAt });
      mediaIds = media.drafts.map((m) => m.id);
      if (media.drafts.length) enqueueStatusMediaCache(app, current.id);
    } else {
      for (const u of media.updates) updateRemoteMediaDetails(db, u.id, { ...u, at: editedAt });
    }
    const oldPoll = findPollByStatusId(db, current.id);
    const pollChanged = applyRemotePoll(app, current.id, current.accountId, oldPoll, note.poll, true);
    const significant =
      note.content !== current.content || note.spoilerText !== current.spoilerText || media.kind === "replace" || media.significant || pollChanged;

    if (significant) {
      if (!hasStatusEdits(db, current.id)) snapshot(app, current, oldMedia.map((m) => m.id), current.createdAt, oldPoll?.options ?? null);
      updateStatusContent(db, current.id, {
        text: "",
        content: note.content,
        spoilerText: note.spoilerText,
        sensitive: note.sensitive,
        language: note.language,
        editedAt,
      });
      cardAfterEdit(app, current.id, note.content !== current.content, { spoilerText: note.spoilerText, content: note.content });
    } else {
      updateRemoteStatusFlags(db, current.id, { sensitive: note.sensitive, language: note.language });
    }
    updateUntrustedCounts(db, current.id, note.likesCount, note.sharesCount);

    const now = app.now();
    const mentionedBefore = new Set(activeMentionAccountIds(db, current.id));
    for (const m of audience.mentions) insertMention(db, { id: app.ids.next(), statusId: current.id, accountId: m.id, createdAt: now });
    // Mentions the edit dropped stay, silently: they still address (as local edits do).
    silenceMentionsExcept(db, current.id, audience.mentions.map((m) => m.id));
    for (const m of audience.silentMentions) insertSilentMention(db, { id: app.ids.next(), statusId: current.id, accountId: m.id, createdAt: now });
    const tagIds = noteTags(note).map((t) => upsertTag(db, { id: app.ids.next(), name: t.name, display: t.display, at: now }));
    setStatusTags(db, current.id, tagIds);
    indexStatuses(db, [current.id]);

    const updated = findStatusById(db, current.id)!;
    if (significant) {
      snapshot(app, updated, mediaIds, editedAt, updated.pollId ? (findPollByStatusId(db, updated.id)?.options ?? null) : null);
      notifyStatusUpdate(app, updated);
    }
    // Only accounts the edit newly mentions hear about it (a dismissed mention stays dismissed).
    for (const m of audience.mentions) {
      if (!mentionedBefore.has(m.id)) notify(app, { type: "mention", recipientId: m.id, fromAccountId: current.accountId, statusId: current.id });
    }
    publishEditedStatus(app, updated);
    return updated;
  });
}
