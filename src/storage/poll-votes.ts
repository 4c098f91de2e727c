import { type DB, type Row, idListJson, num, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import type { InboxRow } from "./federation-recipients.ts";

export interface NewPollVote {
  id: Id;
  pollId: Id;
  accountId: Id;
  choice: number;
  /** A remote vote's Note id. */
  uri: string | null;
  createdAt: number;
}

export function insertPollVote(db: DB, v: NewPollVote): void {
  stmt(db, "INSERT INTO poll_votes (id, poll_id, account_id, choice, uri, created_at) VALUES (@id, @pollId, @accountId, @choice, @uri, @createdAt)").run({
    id: BigInt(v.id),
    pollId: BigInt(v.pollId),
    accountId: BigInt(v.accountId),
    choice: v.choice,
    uri: v.uri,
    createdAt: v.createdAt,
  });
}

/** The choices an account made in a poll, in the order it made them (empty: it did not vote). */
export function findOwnChoices(db: DB, pollId: Id, accountId: Id): number[] {
  const rows = stmt(db, "SELECT choice FROM poll_votes WHERE poll_id = ? AND account_id = ? ORDER BY id").all(BigInt(pollId), BigInt(accountId)) as Row[];
  return rows.map((r) => num(r.choice));
}

/** A viewer's choices in a page's polls, one query; polls it did not vote in are absent. */
export function findOwnChoicesByPoll(db: DB, accountId: Id, pollIds: Iterable<Id>): Map<Id, number[]> {
  const out = new Map<Id, number[]>();
  const list = idListJson(pollIds);
  if (list === "[]") return out;
  const rows = stmt(
    db,
    `SELECT v.poll_id, v.choice FROM json_each(@polls) j CROSS JOIN poll_votes v
     ON v.poll_id = j.value AND v.account_id = +@account ORDER BY v.id`,
  ).all({ polls: list, account: BigInt(accountId) }) as Row[];
  for (const r of rows) {
    const id = str(r.poll_id);
    let list = out.get(id);
    if (!list) out.set(id, (list = []));
    list.push(num(r.choice));
  }
  return out;
}

export function voteUriExists(db: DB, uri: string): boolean {
  return !!stmt(db, "SELECT 1 FROM poll_votes WHERE uri = ?").get(uri);
}

/** Local accounts that voted in a poll (notified when it ends). */
export function localVoterIds(db: DB, pollId: Id): Id[] {
  const rows = stmt(
    db,
    `SELECT DISTINCT v.account_id FROM poll_votes v JOIN accounts a ON a.id = v.account_id
     WHERE v.poll_id = ? AND a.domain IS NULL`,
  ).all(BigInt(pollId)) as Row[];
  return rows.map((r) => str(r.account_id));
}

export function hasLocalVotes(db: DB, pollId: Id): boolean {
  return !!stmt(db, "SELECT 1 FROM poll_votes v JOIN accounts a ON a.id = v.account_id WHERE v.poll_id = ? AND a.domain IS NULL LIMIT 1").get(BigInt(pollId));
}

/** Inboxes of the remote accounts that voted in a poll (they hear of new tallies). */
export function remoteVoterInboxes(db: DB, pollId: Id): InboxRow[] {
  const rows = stmt(
    db,
    `SELECT DISTINCT coalesce(a.shared_inbox_url, a.inbox_url) AS inbox, a.domain AS domain
     FROM poll_votes v JOIN accounts a ON a.id = v.account_id
     WHERE v.poll_id = ? AND a.domain IS NOT NULL AND a.suspended_at IS NULL AND coalesce(a.shared_inbox_url, a.inbox_url) IS NOT NULL`,
  ).all(BigInt(pollId)) as Row[];
  return rows.map((r) => ({ inbox: r.inbox as string, domain: r.domain as string }));
}

/** Drops every vote of a poll (its options or kind changed). */
export function deletePollVotes(db: DB, pollId: Id): void {
  stmt(db, "DELETE FROM poll_votes WHERE poll_id = ?").run(BigInt(pollId));
}
