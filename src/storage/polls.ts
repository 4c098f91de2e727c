import { type DB, type Row, bool, idListJson, json, num, numOrNull, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

/** A poll of a status (migration 0022), local or remote. */
export interface Poll {
  id: Id;
  statusId: Id;
  accountId: Id;
  options: string[];
  /** Votes per option, same length as `options`. */
  tallies: number[];
  multiple: boolean;
  hideTotals: boolean;
  votesCount: number;
  /** Distinct voters; null when a remote poll does not say (old single-choice polls). */
  votersCount: number | null;
  /** ms; null: never ends (remote only). */
  expiresAt: number | null;
  /** When the end was handled (notifications, final tallies): once per end. */
  closedAt: number | null;
  /** A batched Update(Question) is due then. */
  updateDueAt: number | null;
  lastFetchedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** The tallies of `options`, cut or padded with zeros to match (a remote poll's counts may not). */
export function fitTallies(options: string[], tallies: readonly number[]): number[] {
  return options.map((_, i) => {
    const n = tallies[i];
    return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : 0;
  });
}

export function rowToPoll(r: Row): Poll {
  const options = json<unknown[]>(r.options, []).map(String);
  return {
    id: str(r.id),
    statusId: str(r.status_id),
    accountId: str(r.account_id),
    options,
    tallies: fitTallies(options, json<number[]>(r.tallies, [])),
    multiple: bool(r.multiple),
    hideTotals: bool(r.hide_totals),
    votesCount: num(r.votes_count),
    votersCount: numOrNull(r.voters_count),
    expiresAt: numOrNull(r.expires_at),
    closedAt: numOrNull(r.closed_at),
    updateDueAt: numOrNull(r.update_due_at),
    lastFetchedAt: numOrNull(r.last_fetched_at),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export type NewPoll = Pick<Poll, "id" | "statusId" | "accountId" | "options" | "tallies" | "multiple" | "hideTotals" | "votersCount" | "expiresAt"> & {
  lastFetchedAt?: number | null;
  createdAt: number;
};

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** Inserts a poll and points its status at it. */
export function insertPoll(db: DB, p: NewPoll): void {
  const tallies = fitTallies(p.options, p.tallies);
  stmt(
    db,
    `INSERT INTO polls (id, status_id, account_id, options, tallies, multiple, hide_totals, votes_count, voters_count,
       expires_at, last_fetched_at, created_at, updated_at)
     VALUES (@id, @statusId, @accountId, @options, @tallies, @multiple, @hideTotals, @votesCount, @votersCount,
       @expiresAt, @lastFetchedAt, @createdAt, @createdAt)`,
  ).run({
    id: BigInt(p.id),
    statusId: BigInt(p.statusId),
    accountId: BigInt(p.accountId),
    options: JSON.stringify(p.options),
    tallies: JSON.stringify(tallies),
    multiple: p.multiple ? 1 : 0,
    hideTotals: p.hideTotals ? 1 : 0,
    votesCount: sum(tallies),
    votersCount: p.votersCount,
    expiresAt: p.expiresAt,
    lastFetchedAt: p.lastFetchedAt ?? null,
    createdAt: p.createdAt,
  });
  setStatusPollId(db, p.statusId, p.id);
}

export function setStatusPollId(db: DB, statusId: Id, pollId: Id | null): void {
  stmt(db, "UPDATE statuses SET poll_id = @pollId WHERE id = @id").run({ id: BigInt(statusId), pollId: pollId === null ? null : BigInt(pollId) });
}

/** Removes a status's poll (its votes cascade) and clears the status's pointer. */
export function deletePoll(db: DB, poll: Poll): void {
  stmt(db, "DELETE FROM polls WHERE id = ?").run(BigInt(poll.id));
  setStatusPollId(db, poll.statusId, null);
}

export function findPollById(db: DB, id: Id): Poll | undefined {
  const r = stmt(db, "SELECT * FROM polls WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToPoll(r);
}

export function findPollByStatusId(db: DB, statusId: Id): Poll | undefined {
  const r = stmt(db, "SELECT * FROM polls WHERE status_id = ?").get(BigInt(statusId)) as Row | undefined;
  return r && rowToPoll(r);
}

/** Polls by id, one query (a page of statuses). */
export function findPollsByIds(db: DB, ids: Iterable<Id>): Map<Id, Poll> {
  const out = new Map<Id, Poll>();
  const list = idListJson(ids);
  if (list === "[]") return out;
  for (const r of stmt(db, "SELECT * FROM polls WHERE id IN (SELECT value FROM json_each(?))").all(list) as Row[]) {
    const p = rowToPoll(r);
    out.set(p.id, p);
  }
  return out;
}

/** What a change of the poll's definition (edit, remote update) writes. */
export interface PollDefinition {
  options: string[];
  tallies: number[];
  multiple: boolean;
  hideTotals: boolean;
  votersCount: number | null;
  expiresAt: number | null;
  lastFetchedAt?: number | null;
  /** The end was handled already (kept when the expiry does not move). */
  closedAt: number | null;
}

export function updatePollDefinition(db: DB, id: Id, d: PollDefinition, at: number): void {
  const tallies = fitTallies(d.options, d.tallies);
  stmt(
    db,
    `UPDATE polls SET options = @options, tallies = @tallies, votes_count = @votesCount, multiple = @multiple,
       hide_totals = @hideTotals, voters_count = @votersCount, expires_at = @expiresAt, closed_at = @closedAt,
       last_fetched_at = coalesce(@lastFetchedAt, last_fetched_at), updated_at = @at
     WHERE id = @id`,
  ).run({
    id: BigInt(id),
    options: JSON.stringify(d.options),
    tallies: JSON.stringify(tallies),
    votesCount: sum(tallies),
    multiple: d.multiple ? 1 : 0,
    hideTotals: d.hideTotals ? 1 : 0,
    votersCount: d.votersCount,
    expiresAt: d.expiresAt,
    closedAt: d.closedAt,
    lastFetchedAt: d.lastFetchedAt ?? null,
    at,
  });
}

/** New counts after votes: the tallies (and their sum) and the voters count. */
export function updatePollCounts(db: DB, id: Id, tallies: number[], votersCount: number | null, at: number): void {
  stmt(db, "UPDATE polls SET tallies = @tallies, votes_count = @votesCount, voters_count = @votersCount, updated_at = @at WHERE id = @id").run({
    id: BigInt(id),
    tallies: JSON.stringify(tallies),
    votesCount: sum(tallies),
    votersCount,
    at,
  });
}

export function setPollClosedAt(db: DB, id: Id, at: number | null): void {
  stmt(db, "UPDATE polls SET closed_at = @at WHERE id = @id").run({ id: BigInt(id), at });
}

export function setPollUpdateDueAt(db: DB, id: Id, at: number | null): void {
  stmt(db, "UPDATE polls SET update_due_at = @at WHERE id = @id").run({ id: BigInt(id), at });
}

export function setPollLastFetchedAt(db: DB, id: Id, at: number): void {
  stmt(db, "UPDATE polls SET last_fetched_at = @at WHERE id = @id").run({ id: BigInt(id), at });
}
