// The end of a poll (Mastodon's PollExpirationNotifyWorker), run by the `poll.end` job that
// services/polls.ts schedules: the author of a local poll and every local voter get a `poll`
// notification, and remote servers get the final tallies.
import type { App } from "../app.ts";
import { inTx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { localVoterIds } from "../storage/poll-votes.ts";
import { findPollById, setPollClosedAt, setPollUpdateDueAt } from "../storage/polls.ts";
import { findStatusById } from "../storage/statuses.ts";
import { onPollEnded } from "../federation/outbox/hooks.ts";
import { notify } from "./notifications.ts";
import { isPollExpired, schedulePollEnd } from "./polls.ts";

export interface PollEndPayload {
  pollId: Id;
  /** The end this job was scheduled for: an edit that moved it made this job stale. */
  expiresAt: number;
}

/** Handles the end of a poll once; a job for an end that moved, or that came early, does nothing more. */
export function endPoll(app: App, payload: PollEndPayload): void {
  inTx(app.db, () => {
    const poll = findPollById(app.db, String(payload.pollId));
    if (!poll || poll.expiresAt === null || poll.expiresAt !== payload.expiresAt || poll.closedAt !== null) return;
    const now = app.now();
    if (!isPollExpired(poll, now)) {
      schedulePollEnd(app, poll); // Mastodon's requeue! when not due yet
      return;
    }
    const status = findStatusById(app.db, poll.statusId);
    if (!status) return;
    setPollClosedAt(app.db, poll.id, now);
    const n = { type: "poll" as const, fromAccountId: poll.accountId, statusId: status.id };
    if (status.local) {
      notify(app, { ...n, recipientId: poll.accountId });
      // The final tallies go out now; a batched update still pending has nothing left to say.
      setPollUpdateDueAt(app.db, poll.id, null);
      onPollEnded(app, status);
    }
    for (const voterId of localVoterIds(app.db, poll.id)) notify(app, { ...n, recipientId: voterId });
  });
}
