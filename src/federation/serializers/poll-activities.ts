// Poll activities (AP §4.6, §5.2, §5.12), Mastodon's shapes: a vote is a Create of a Note
// named after the option, to the poll's author only; new tallies are an Update of the Question.
import type { App } from "../../app.ts";
import { readTx } from "../../db/db.ts";
import type { Account } from "../../storage/accounts.ts";
import type { Status } from "../../storage/statuses.ts";
import type { ApObject } from "../types.ts";
import { ACTIVITY_CONTEXT, withContext } from "./context.ts";
import { loadNoteBatch, renderNote } from "./note.ts";

/**
 * One vote (one chosen option): Create `<voter>#votes/<vote id>/activity` of the Note
 * `<voter>#votes/<vote id>` (ActivityPub::VoteSerializer).
 */
export function toApVote(voter: Account, voteId: string, optionName: string, status: Status, author: Account): ApObject {
  const id = `${voter.uri}#votes/${voteId}`;
  return withContext(ACTIVITY_CONTEXT, {
    id: `${id}/activity`,
    type: "Create",
    actor: voter.uri,
    to: author.uri,
    object: { id, type: "Note", name: optionName, attributedTo: voter.uri, inReplyTo: status.uri, to: author.uri },
  });
}

/**
 * Update of a local status's Question with its current tallies (ActivityPub::UpdatePollSerializer):
 * id `<note id>#updates/<poll updated unix>`, undefined when the status has no poll any more.
 */
export function toApUpdateQuestion(app: App, status: Status): ApObject | undefined {
  return readTx(app.db, () => {
    const batch = loadNoteBatch(app, [status]);
    const poll = status.pollId ? batch.polls.get(status.pollId) : undefined;
    const author = batch.authors.get(status.accountId);
    if (!poll || !author) return undefined;
    const note = renderNote(app, status, batch);
    return withContext(ACTIVITY_CONTEXT, {
      id: `${status.uri}#updates/${Math.floor(poll.updatedAt / 1000)}`,
      type: "Update",
      actor: author.uri,
      to: note.to,
      cc: note.cc,
      object: note,
    });
  });
}
