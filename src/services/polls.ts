// Polls: reading one, voting (Mastodon's VoteService and VoteValidator), remote votes arriving
// through the inbox (ActivityPub::Activity::Create#poll_vote!), and the end of a poll
// scheduled as a `poll.end` job (PollExpirationNotifyWorker, jobs/handlers/poll-end.ts).
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { forbidden, missingParam, notFound, unprocessable } from "../errors.ts";
import { parseId, type Id } from "../lib/ids.ts";
import type { Account } from "../storage/accounts.ts";
import { findOwnChoices, insertPollVote, voteUriExists } from "../storage/poll-votes.ts";
import { findPollById, type Poll, setPollUpdateDueAt, updatePollCounts } from "../storage/polls.ts";
import { isBlockedEitherWay } from "../storage/relationship-checks.ts";
import { findStatusById, type Status } from "../storage/statuses.ts";
import { onPollTalliesChanged, onPollVoted } from "../federation/outbox/hooks.ts";
import { indexStatuses } from "../search/status-index.ts";
import { canViewStatus } from "./visibility.ts";

export const POLL_END_JOB = "poll.end";
/** Votes on a local poll reach remote servers in one Update(Question) at most this often (Mastodon: 3 minutes). */
export const POLL_UPDATE_DELAY_MS = 3 * 60_000;
/** A local voter in a remote poll hears of its end this long after it (the origin's last tallies may still come). */
export const REMOTE_END_GRACE_MS = 5 * 60_000;
/** A remote poll is fetched again on read at most this often (Mastodon's Poll#possibly_stale?). */
const REFRESH_AFTER_MS = 60_000;

/** Mastodon's Poll#expired?: it has an end and the end has passed. */
export const isPollExpired = (poll: Pick<Poll, "expiresAt">, now: number) => poll.expiresAt !== null && poll.expiresAt < now;

/** The job that handles the end of a poll; its payload names the end it was scheduled for. */
export function schedulePollEnd(app: App, poll: Pick<Poll, "id" | "expiresAt">, delayMs = 0): void {
  if (poll.expiresAt === null) return;
  // Just after the end: Mastodon's `expired?` is strict.
  app.jobs.enqueue(POLL_END_JOB, { pollId: poll.id, expiresAt: poll.expiresAt }, { runAt: poll.expiresAt + 1 + delayMs });
}

/** A poll and its status, as `viewerId` may see them: unknown is "Record not found", hidden "Not Found". */
export function requireVisiblePoll(app: App, viewerId: Id | null, rawId: unknown): { poll: Poll; status: Status } {
  const id = parseId(rawId);
  const poll = id ? findPollById(app.db, id) : undefined;
  if (!poll) throw notFound();
  const status = findStatusById(app.db, poll.statusId);
  if (!status || !canViewStatus(app, viewerId, status)) throw notFound("Not Found");
  return { poll, status };
}

/** Mastodon's Poll#possibly_stale?: a remote poll not fetched since it ended, nor in the last minute. */
export function isPossiblyStale(app: App, poll: Poll, status: Status): boolean {
  if (status.local) return false;
  const fetched = poll.lastFetchedAt;
  if (fetched === null) return true;
  return (poll.expiresAt === null || fetched < poll.expiresAt) && fetched < app.now() - REFRESH_AFTER_MS;
}

/** Ruby's Integer(): an optionally signed decimal integer, spaces around allowed. */
function choiceIndex(raw: string): number {
  return /^\s*[+-]?\d{1,9}\s*$/.test(raw) ? Number(raw) : -1;
}

/**
 * VoteValidator's full messages for one more vote, given the choices the voter has made so far
 * (in the poll and earlier in the same request).
 */
function voteErrors(app: App, poll: Poll, voterId: Id, choice: number, madeSoFar: number[]): string[] {
  const errors: string[] = [];
  if (isPollExpired(poll, app.now())) errors.push("The poll has already ended");
  if (choice < 0 || choice >= poll.options.length) errors.push("The chosen vote option does not exist");
  if (voterId === poll.accountId) errors.push("You cannot vote in your own polls");
  const again = poll.multiple ? madeSoFar.includes(choice) : madeSoFar.length > 0;
  if (again) errors.push("You have already voted on this poll");
  return errors;
}

/** Adds votes to the counts: tallies, and one more voter unless the voter had voted already. */
function countVotes(app: App, poll: Poll, choices: number[], firstVote: boolean): void {
  const tallies = [...poll.tallies];
  for (const c of choices) tallies[c] = (tallies[c] ?? 0) + 1;
  const voters = poll.votersCount === null ? null : poll.votersCount + (firstVote ? 1 : 0);
  updatePollCounts(app.db, poll.id, tallies, voters, app.now());
}

/** Queues the batched Update(Question) of a local poll's new tallies (none while totals are hidden). */
function tallyChanged(app: App, poll: Poll, status: Status): void {
  if (!status.local || poll.hideTotals) return;
  const now = app.now();
  if (poll.updateDueAt !== null && poll.updateDueAt > now) return; // one is on its way
  const due = now + POLL_UPDATE_DELAY_MS;
  setPollUpdateDueAt(app.db, poll.id, due);
  onPollTalliesChanged(app, status, due);
}

/**
 * POST /api/v1/polls/:id/votes. `rawChoices`: option indexes as sent. All votes are made or
 * none; the first invalid one answers 422 with VoteValidator's messages.
 */
export function votePoll(app: App, voter: Account, target: { poll: Poll; status: Status }, rawChoices: string[] | undefined): Poll {
  if (!rawChoices || rawChoices.length === 0) throw missingParam("choices");
  // Mastodon's PollPolicy#vote?: a block either way forbids it.
  if (isBlockedEitherWay(app.db, voter.id, target.poll.accountId)) throw forbidden();
  const choices = rawChoices.map(choiceIndex);
  return tx(app.db, () => {
    const poll = findPollById(app.db, target.poll.id);
    if (!poll) throw notFound();
    const before = findOwnChoices(app.db, poll.id, voter.id);
    const made = [...before];
    for (const choice of choices) {
      const errors = voteErrors(app, poll, voter.id, choice, made);
      if (errors.length) throw unprocessable(`Validation failed: ${errors.join(", ")}`);
      made.push(choice);
    }
    const now = app.now();
    const votes = choices.map((choice) => ({ id: app.ids.next(), choice }));
    for (const v of votes) insertPollVote(app.db, { id: v.id, pollId: poll.id, accountId: voter.id, choice: v.choice, uri: null, createdAt: now });
    countVotes(app, poll, choices, before.length === 0);
    // A local voter finds the post in search now (Mastodon's searchable_by: local voters).
    if (voter.domain === null) indexStatuses(app.db, [target.status.id]);
    const updated = findPollById(app.db, poll.id)!;
    tallyChanged(app, updated, target.status);
    if (!target.status.local) {
      onPollVoted(app, voter, updated, target.status, votes);
      // Mastodon's queue_final_poll_check!: the voter hears of the end of a remote poll too.
      schedulePollEnd(app, updated, REMOTE_END_GRACE_MS);
    }
    return updated;
  });
}

/**
 * A remote account's vote in a local poll (Create of a Note whose `name` is an option and whose
 * `inReplyTo` is the poll's status). Ignored when the poll has ended, when the same vote came
 * already, or when VoteValidator would refuse it (a second vote in a single-choice poll).
 */
export function recordRemoteVote(app: App, voter: Account, poll: Poll, status: Status, optionName: string, uri: string | null): void {
  tx(app.db, () => {
    const current = findPollById(app.db, poll.id);
    if (!current || !status.local) return;
    const choice = current.options.indexOf(optionName);
    if (choice < 0 || (uri !== null && voteUriExists(app.db, uri))) return;
    const before = findOwnChoices(app.db, current.id, voter.id);
    if (voteErrors(app, current, voter.id, choice, before).length) return;
    insertPollVote(app.db, { id: app.ids.next(), pollId: current.id, accountId: voter.id, choice, uri, createdAt: app.now() });
    countVotes(app, current, [choice], before.length === 0);
    tallyChanged(app, findPollById(app.db, current.id)!, status);
  });
}
