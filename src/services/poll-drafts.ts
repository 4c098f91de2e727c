// A poll as persistStatus stores it with its status (local from PollInput, remote from a
// Question), and the changes an edit makes to it (Mastodon's UpdateStatusService#update_poll!).
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { deletePollVotes, hasLocalVotes } from "../storage/poll-votes.ts";
import { deletePoll, insertPoll, type Poll, updatePollDefinition } from "../storage/polls.ts";
import { type PollInput, prepareOptions } from "./poll-rules.ts";
import { REMOTE_END_GRACE_MS, schedulePollEnd } from "./polls.ts";

export interface PollDraft {
  options: string[];
  tallies: number[];
  multiple: boolean;
  hideTotals: boolean;
  votersCount: number | null;
  expiresAt: number | null;
  lastFetchedAt?: number | null;
}

/** A new local poll: no votes yet (voters_count 0, as PostStatusService sets it), ending expiresIn seconds from now. */
export function localPollDraft(app: App, input: PollInput): PollDraft {
  const options = prepareOptions(input.options);
  return {
    options,
    tallies: options.map(() => 0),
    multiple: input.multiple,
    hideTotals: input.hideTotals,
    votersCount: 0,
    expiresAt: app.now() + input.expiresIn * 1000,
  };
}

/** Stores a status's poll inside persistStatus's transaction; a local poll's end is scheduled. */
export function attachPoll(app: App, statusId: Id, accountId: Id, draft: PollDraft, local: boolean, createdAt: number): void {
  const id = app.ids.next();
  insertPoll(app.db, { ...draft, id, statusId, accountId, createdAt });
  if (local) schedulePollEnd(app, { id, expiresAt: draft.expiresAt });
}

/**
 * What an edit does to a local status's poll: `input` null removes it, a new one is created,
 * a changed one is rewritten. Changing the options or single/multiple choice invalidates every
 * vote (they are dropped and the counts start again from zero); the end moves to `expiresIn`
 * from now. Returns whether the poll changed significantly (Mastodon's @poll_changed).
 */
export function applyPollEdit(app: App, statusId: Id, accountId: Id, current: Poll | undefined, input: PollInput | null): boolean {
  const now = app.now();
  if (!input) {
    if (!current) return false;
    deletePoll(app.db, current);
    return true;
  }
  const next = localPollDraft(app, input);
  if (!current) {
    attachPoll(app, statusId, accountId, next, true, now);
    return true;
  }
  const votesInvalidated = next.options.length !== current.options.length || next.options.some((o, i) => o !== current.options[i]) || next.multiple !== current.multiple;
  if (votesInvalidated) deletePollVotes(app.db, current.id);
  const expiryMoved = next.expiresAt !== current.expiresAt;
  updatePollDefinition(
    app.db,
    current.id,
    {
      options: next.options,
      tallies: votesInvalidated ? next.tallies : current.tallies,
      multiple: next.multiple,
      hideTotals: next.hideTotals,
      votersCount: votesInvalidated ? 0 : current.votersCount,
      expiresAt: next.expiresAt,
      // A poll that ended and now ends later is open again: its new end is handled anew.
      closedAt: expiryMoved ? null : current.closedAt,
    },
    now,
  );
  if (expiryMoved) schedulePollEnd(app, { id: current.id, expiresAt: next.expiresAt });
  return votesInvalidated || expiryMoved;
}

/** A remote Question's poll as federation reads it (federation/parse/poll.ts ParsedPoll). */
export interface RemotePollData {
  options: string[];
  tallies: number[];
  multiple: boolean;
  expiresAt: number | null;
  /** `closed` without a date: it ends now. */
  closedNow: boolean;
  votersCount: number | null;
}

/**
 * A remote poll to store with its new status. Not marked as fetched, as Mastodon's
 * process_poll: the first signed-in reader refreshes it from the origin.
 */
export function remotePollDraft(app: App, p: RemotePollData): PollDraft {
  return {
    options: p.options,
    tallies: p.tallies,
    multiple: p.multiple,
    hideTotals: false,
    votersCount: p.votersCount,
    expiresAt: p.closedNow ? app.now() : p.expiresAt,
    lastFetchedAt: null,
  };
}

const sameOptions = (a: string[], b: string[]) => a.length === b.length && a.every((o, i) => o === b[i]);

/**
 * A remote status's poll as its origin now describes it (Mastodon's
 * ProcessStatusUpdateService#update_poll!): tallies, voters and end are refreshed; new options
 * or a switch between single and multiple choice drop the local votes; a poll that appeared or
 * went is added or removed. `allowSignificant` false (an implicit update, a refresh): such
 * changes are ignored and only the counts move. Inside the caller's transaction. Returns
 * whether the poll changed significantly.
 */
export function applyRemotePoll(app: App, statusId: Id, accountId: Id, current: Poll | undefined, p: RemotePollData | null, allowSignificant: boolean): boolean {
  const now = app.now();
  if (!p) {
    if (!current || !allowSignificant) return false;
    deletePoll(app.db, current);
    return true;
  }
  const significant = !current || !sameOptions(current.options, p.options) || current.multiple !== p.multiple;
  if (significant && !allowSignificant) return false;
  // "Closed" without a date ends it now, once: an ended poll keeps the end it had.
  const endedAt = current?.expiresAt ?? null;
  const expiresAt = p.closedNow ? (endedAt !== null && endedAt < now ? endedAt : now) : p.expiresAt;
  if (!current) {
    attachPoll(app, statusId, accountId, { ...remotePollDraft(app, p), expiresAt, lastFetchedAt: now }, false, now);
    return true;
  }
  if (significant) deletePollVotes(app.db, current.id);
  const expiryMoved = expiresAt !== current.expiresAt;
  updatePollDefinition(
    app.db,
    current.id,
    {
      options: p.options,
      // Poll#reset_votes! after new options: the counts start from zero (the origin's follow).
      tallies: significant ? p.options.map(() => 0) : p.tallies,
      multiple: p.multiple,
      hideTotals: current.hideTotals,
      votersCount: significant ? 0 : p.votersCount,
      expiresAt,
      lastFetchedAt: now,
      closedAt: expiryMoved ? null : current.closedAt,
    },
    now,
  );
  // Mastodon's queue_poll_notifications!: local voters hear of the (new) end.
  if (expiryMoved && !significant && hasLocalVotes(app.db, current.id)) schedulePollEnd(app, { id: current.id, expiresAt }, REMOTE_END_GRACE_MS);
  return significant;
}
