import { type DB, type Row, stmt, str, strOrNull, num, json } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type Keyset, keysetSql } from "./keyset.ts";

// Rows of scheduled_statuses: a post's creation input kept until its time comes.

export interface ScheduledStatus {
  id: Id;
  accountId: Id;
  /** ms since the epoch */
  scheduledAt: number;
  /** The creation input as the route parsed it (services/statuses.ts StatusInput). */
  params: Record<string, unknown>;
  applicationId: Id | null;
  /** The pending publication job. */
  jobId: Id | null;
  createdAt: number;
}

function rowToScheduled(r: Row): ScheduledStatus {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    scheduledAt: num(r.scheduled_at),
    params: json<Record<string, unknown>>(r.params, {}),
    applicationId: strOrNull(r.application_id),
    jobId: strOrNull(r.job_id),
    createdAt: num(r.created_at),
  };
}

export function insertScheduledStatus(db: DB, s: ScheduledStatus): void {
  stmt(
    db,
    `INSERT INTO scheduled_statuses (id, account_id, scheduled_at, params, application_id, job_id, created_at)
     VALUES (@id, @account, @at, @params, @app, @job, @createdAt)`,
  ).run({
    id: BigInt(s.id),
    account: BigInt(s.accountId),
    at: s.scheduledAt,
    params: JSON.stringify(s.params),
    app: s.applicationId === null ? null : BigInt(s.applicationId),
    job: s.jobId === null ? null : BigInt(s.jobId),
    createdAt: s.createdAt,
  });
}

export function findScheduledStatusById(db: DB, id: Id): ScheduledStatus | undefined {
  const r = stmt(db, "SELECT * FROM scheduled_statuses WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToScheduled(r);
}

export function findScheduledStatusOf(db: DB, accountId: Id, id: Id): ScheduledStatus | undefined {
  const r = stmt(db, "SELECT * FROM scheduled_statuses WHERE id = ? AND account_id = ?").get(BigInt(id), BigInt(accountId)) as
    | Row
    | undefined;
  return r && rowToScheduled(r);
}

/** The account's scheduled statuses, newest id first (Mastodon pages them by id). */
export function pageScheduledStatuses(db: DB, accountId: Id, k: Keyset): ScheduledStatus[] {
  const q = keysetSql("id", k);
  const rows = stmt(db, `SELECT * FROM scheduled_statuses WHERE account_id = @account${q.where} ${q.order}`).all({
    ...q.params,
    account: BigInt(accountId),
  }) as Row[];
  if (q.reverse) rows.reverse();
  return rows.map(rowToScheduled);
}

/**
 * How many the account has pending, all told and within [dayStart, dayEnd); `exceptId` (the
 * one being moved) is not counted.
 */
export function countScheduledStatuses(db: DB, q: { accountId: Id; dayStart: number; dayEnd: number; exceptId: Id | null }): { total: number; day: number } {
  const r = stmt(
    db,
    `SELECT count(*) AS total, coalesce(sum(scheduled_at >= @dayStart AND scheduled_at < @dayEnd), 0) AS day
     FROM scheduled_statuses WHERE account_id = @account AND id IS NOT @except`,
  ).get({ account: BigInt(q.accountId), dayStart: q.dayStart, dayEnd: q.dayEnd, except: q.exceptId === null ? null : BigInt(q.exceptId) }) as Row;
  return { total: num(r.total), day: num(r.day) };
}

export function updateScheduledTime(db: DB, id: Id, scheduledAt: number, jobId: Id): void {
  stmt(db, "UPDATE scheduled_statuses SET scheduled_at = @at, job_id = @job WHERE id = @id").run({
    id: BigInt(id),
    at: scheduledAt,
    job: BigInt(jobId),
  });
}

/** Its reserved media become free again (ON DELETE SET NULL). */
export function deleteScheduledStatus(db: DB, id: Id): void {
  stmt(db, "DELETE FROM scheduled_statuses WHERE id = ?").run(BigInt(id));
}
