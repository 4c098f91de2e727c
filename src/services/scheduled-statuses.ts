import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { ApiError, notFound, unprocessable } from "../errors.ts";
import { parseId, type Id } from "../lib/ids.ts";
import { parseIsoTime } from "../lib/iso-time.ts";
import type { Account } from "../storage/accounts.ts";
import { findAccountById } from "../storage/accounts.ts";
import { findIdempotentStatusId, repointIdempotencyKeys, saveIdempotencyKey } from "../storage/idempotency.ts";
import type { Keyset } from "../storage/keyset.ts";
import { reserveMediaForScheduled } from "../storage/media-attachments.ts";
import {
  countScheduledStatuses,
  deleteScheduledStatus,
  findScheduledStatusById,
  findScheduledStatusOf,
  insertScheduledStatus,
  pageScheduledStatuses,
  type ScheduledStatus,
  updateScheduledTime,
} from "../storage/scheduled-statuses.ts";
import { findStatusById, type Status } from "../storage/statuses.ts";
import { findUserByAccountId, type User } from "../storage/users.ts";
import { createStatus, type CreateStatusOptions, type StatusInput } from "./statuses.ts";

// Scheduled statuses (Mastodon's ScheduledStatus and PostStatusService#schedule_status!): the
// creation input is checked as a post now, kept, and posted through createStatus by a persisted
// job at its time. The job runs in the transaction that creates the status and deletes the
// scheduled row, so a post goes out once, after a restart too; one that fell due while the
// server was down is posted when the runner starts.

export const SCHEDULE_MIN_OFFSET_MS = 5 * 60_000;
export const SCHEDULED_TOTAL_LIMIT = 300;
export const SCHEDULED_DAILY_LIMIT = 25;
export const PUBLISH_JOB = "scheduled_status.publish";
const DAY_MS = 86_400_000;

export type ScheduleResult = { scheduled: ScheduledStatus } | { published: Status };

/** Mastodon raises a bare RecordInvalid when `scheduled_at` is no date. */
function readScheduledAt(raw: string): number {
  const at = parseIsoTime(raw);
  if (at === undefined) throw unprocessable("Record invalid");
  return at;
}

/**
 * Mastodon's validations, with its wording: more than 5 minutes ahead (a time in the past is
 * refused too, as the issue asks; Mastodon would post it at once), at most 300 pending and
 * 25 on the same UTC day. The post being moved does not count against its own limits.
 */
function checkSchedule(app: App, accountId: Id, at: number, exceptId: Id | null): void {
  const errors: string[] = [];
  if (at <= app.now() + SCHEDULE_MIN_OFFSET_MS) errors.push("Scheduled at date must be in the future");
  const dayStart = Math.floor(at / DAY_MS) * DAY_MS;
  const n = countScheduledStatuses(app.db, { accountId, dayStart, dayEnd: dayStart + DAY_MS, exceptId });
  if (n.total >= SCHEDULED_TOTAL_LIMIT) errors.push(`You have exceeded the limit of ${SCHEDULED_TOTAL_LIMIT} scheduled posts`);
  if (n.day >= SCHEDULED_DAILY_LIMIT) errors.push(`You have exceeded the limit of ${SCHEDULED_DAILY_LIMIT} scheduled posts for today`);
  if (errors.length) throw unprocessable(`Validation failed: ${errors.join(", ")}`);
}

class DryRunDone extends Error {}

/**
 * Every rule createStatus applies (text, visibility, reply target, media, poll), by posting
 * inside a savepoint that is then rolled back: what is accepted now is what will be posted
 * later, whatever rules createStatus gains. Mastodon likewise builds the status and asks valid?.
 */
function validateAsStatus(app: App, author: { account: Account; user: User | null }, input: StatusInput, applicationId: Id | null): void {
  try {
    app.db.transaction(() => {
      createStatus(app, author, input, { applicationId });
      throw new DryRunDone();
    })();
  } catch (e) {
    if (!(e instanceof DryRunDone)) throw e;
  }
}

/** What an Idempotency-Key already made: the scheduled post, or the status it became. */
function replay(app: App, accountId: Id, key: string): ScheduleResult | undefined {
  const prior = findIdempotentStatusId(app.db, accountId, key, app.now());
  if (!prior) return undefined;
  const scheduled = findScheduledStatusOf(app.db, accountId, prior);
  if (scheduled) return { scheduled };
  const status = findStatusById(app.db, prior);
  return status && status.accountId === accountId ? { published: status } : undefined;
}

const enqueuePublish = (app: App, id: Id, at: number): Id => app.jobs.enqueue(PUBLISH_JOB, { id }, { runAt: at });

/** POST /api/v1/statuses with `scheduled_at`. */
export function scheduleStatus(
  app: App,
  author: { account: Account; user: User | null },
  input: StatusInput,
  opts: CreateStatusOptions,
): ScheduleResult {
  const accountId = author.account.id;
  const key = opts.idempotencyKey?.trim() || undefined;
  const { scheduledAt: rawAt, ...params } = input;
  return tx(app.db, (): ScheduleResult => {
    const prior = key ? replay(app, accountId, key) : undefined;
    if (prior) return prior;
    const at = readScheduledAt(rawAt ?? "");
    validateAsStatus(app, author, params, opts.applicationId);
    checkSchedule(app, accountId, at, null);
    const id = app.ids.next();
    const now = app.now();
    const jobId = enqueuePublish(app, id, at);
    insertScheduledStatus(app.db, { id, accountId, scheduledAt: at, params: { ...params }, applicationId: opts.applicationId, jobId, createdAt: now });
    if (params.mediaIds?.length) reserveMediaForScheduled(app.db, { accountId, scheduledStatusId: id, mediaIds: params.mediaIds });
    if (key) saveIdempotencyKey(app.db, accountId, key, id, now);
    return { scheduled: findScheduledStatusById(app.db, id)! };
  });
}

export function listScheduledStatuses(app: App, accountId: Id, k: Keyset): ScheduledStatus[] {
  return pageScheduledStatuses(app.db, accountId, k);
}

/** One of the caller's scheduled posts; anything else is "Record not found". */
export function requireOwnScheduledStatus(app: App, accountId: Id, rawId: unknown): ScheduledStatus {
  const id = parseId(rawId);
  const s = id ? findScheduledStatusOf(app.db, accountId, id) : undefined;
  if (!s) throw notFound();
  return s;
}

/** PUT /api/v1/scheduled_statuses/:id: a new time under the same rules; none given changes nothing. */
export function rescheduleStatus(app: App, accountId: Id, rawId: unknown, rawAt: string | undefined): ScheduledStatus {
  return tx(app.db, () => {
    const s = requireOwnScheduledStatus(app, accountId, rawId);
    if (rawAt === undefined) return s;
    const at = readScheduledAt(rawAt);
    checkSchedule(app, accountId, at, s.id);
    if (s.jobId) app.jobs.cancel(s.jobId);
    updateScheduledTime(app.db, s.id, at, enqueuePublish(app, s.id, at));
    return findScheduledStatusById(app.db, s.id)!;
  });
}

/** DELETE /api/v1/scheduled_statuses/:id: the post and its job go; reserved media are free again. */
export function cancelScheduledStatus(app: App, accountId: Id, rawId: unknown): void {
  tx(app.db, () => {
    const s = requireOwnScheduledStatus(app, accountId, rawId);
    if (s.jobId) app.jobs.cancel(s.jobId);
    deleteScheduledStatus(app.db, s.id);
  });
}

/**
 * The publication job: posts the stored input through createStatus and deletes the scheduled
 * row in one transaction. Like Mastodon's PublishScheduledStatusWorker, a post that can no
 * longer be made (its reply target is gone, its author disabled, a rule now refuses it) is
 * dropped rather than retried. Returns the new status, if one was posted.
 */
export function publishScheduledStatus(app: App, id: Id): Status | undefined {
  return tx(app.db, () => {
    const s = findScheduledStatusById(app.db, id);
    // Withdrawn or already posted; or moved later, when the job of its new time posts it.
    if (!s || s.scheduledAt > app.now()) return undefined;
    deleteScheduledStatus(app.db, s.id);
    const account = findAccountById(app.db, s.accountId);
    const user = findUserByAccountId(app.db, s.accountId);
    if (!account || !user || account.suspendedAt !== null || user.disabled) {
      app.log.info("scheduled status dropped: its author can no longer post", { id: s.id, accountId: s.accountId });
      return undefined;
    }
    let status: Status;
    try {
      status = app.db.transaction(() => createStatus(app, { account, user }, s.params as StatusInput, { applicationId: s.applicationId }))();
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      app.log.info("scheduled status dropped: it can no longer be posted", { id: s.id, accountId: s.accountId, error: e.error });
      return undefined;
    }
    repointIdempotencyKeys(app.db, s.accountId, s.id, status.id);
    return status;
  });
}
