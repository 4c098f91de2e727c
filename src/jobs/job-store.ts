import { type DB, type Row, stmt, str, num, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// SQL of the jobs and dead_jobs tables. Every function here writes with single statements and
// runs inside the caller's transaction, so the runner can put several of them in one commit
// (each commit writes the pages it touched to the WAL; commands also fsync each one).

export interface StoredJob {
  id: Id;
  name: string;
  queue: string;
  payload: string;
  runAt: number;
  /** Attempts counting the one about to run (1 on the first run). */
  attempts: number;
  maxAttempts: number;
}

const toJob = (r: Row, attemptOffset: number): StoredJob => ({
  id: str(r.id),
  name: r.name as string,
  queue: r.queue as string,
  payload: r.payload as string,
  runAt: num(r.run_at),
  attempts: num(r.attempts) + attemptOffset,
  maxAttempts: num(r.max_attempts),
});

const byRunAtThenId = (a: StoredJob, b: StoredJob) => a.runAt - b.runAt || (BigInt(a.id) < BigInt(b.id) ? -1 : 1);

const DUE = `queue = @queue AND run_at <= @now AND (locked_until IS NULL OR locked_until < @now)`;

/**
 * Claims up to `limit` due jobs of the queue in one statement, oldest first: each gets a lease
 * (a runner that dies holding it is replaced once the lease expires) and counts an attempt.
 * Jobs named in `excludeNamesJson` (a JSON array) are left alone.
 */
export function claimDueJobs(
  db: DB,
  q: { queue: string; now: number; lease: number; limit: number; excludeNamesJson: string },
): StoredJob[] {
  if (q.limit <= 0) return [];
  const rows = stmt(
    db,
    `UPDATE jobs SET locked_until = @lease, attempts = attempts + 1
     WHERE id IN (SELECT id FROM jobs WHERE ${DUE} AND name NOT IN (SELECT value FROM json_each(@exclude))
                  ORDER BY run_at, id LIMIT @limit)
     RETURNING id, name, queue, payload, run_at, attempts, max_attempts`,
  ).all({ queue: q.queue, now: q.now, lease: q.lease, limit: q.limit, exclude: q.excludeNamesJson }) as Row[];
  // RETURNING has no defined order.
  return rows.map((r) => toJob(r, 0)).sort(byRunAtThenId);
}

/**
 * Up to `limit` due jobs of the queue named in `namesJson`, oldest first, without a lease: the
 * caller runs them in the transaction it reads them in, which is all the lease they need.
 * `attempts` already counts the coming run; the caller writes it back only on failure.
 */
export function dueJobsNamed(db: DB, q: { queue: string; now: number; limit: number; namesJson: string }): StoredJob[] {
  const rows = stmt(
    db,
    `SELECT id, name, queue, payload, run_at, attempts, max_attempts FROM jobs
     WHERE ${DUE} AND name IN (SELECT value FROM json_each(@names)) ORDER BY run_at, id LIMIT @limit`,
  ).all({ queue: q.queue, now: q.now, limit: q.limit, names: q.namesJson }) as Row[];
  return rows.map((r) => toJob(r, 1));
}

/** Queues holding due jobs (drain also runs jobs of queues no handler registered). */
export function dueQueues(db: DB, now: number): string[] {
  const rows = stmt(db, "SELECT DISTINCT queue FROM jobs WHERE run_at <= ?").all(now) as Row[];
  return rows.map((r) => r.queue as string);
}

/** Deletes finished jobs: one statement for any number of them. */
export function deleteJobs(db: DB, ids: Id[]): void {
  if (ids.length === 1) stmt(db, "DELETE FROM jobs WHERE id = ?").run(BigInt(ids[0]));
  else if (ids.length > 1) stmt(db, "DELETE FROM jobs WHERE id IN (SELECT value FROM json_each(?))").run(idListJson(ids));
}

/** A failed job waits for `runAt` to be retried; `attempts` is the count including the failed run. */
export function rescheduleJob(db: DB, j: { id: Id; attempts: number; runAt: number; error: string }): void {
  stmt(db, "UPDATE jobs SET run_at = @runAt, attempts = @attempts, locked_until = NULL, last_error = @error WHERE id = @id").run({
    id: BigInt(j.id),
    runAt: j.runAt,
    attempts: j.attempts,
    error: j.error,
  });
}

/** Moves a job that will not be retried to dead_jobs. Two statements: run it inside a transaction. */
export function buryJob(db: DB, j: { id: Id; attempts: number; error: string; now: number }): void {
  const id = BigInt(j.id);
  stmt(
    db,
    `INSERT INTO dead_jobs (id, queue, name, payload, attempts, last_error, failed_at)
     SELECT id, queue, name, payload, @attempts, @error, @now FROM jobs WHERE id = @id`,
  ).run({ id, attempts: j.attempts, error: j.error, now: j.now });
  stmt(db, "DELETE FROM jobs WHERE id = ?").run(id);
}

export function insertJob(
  db: DB,
  j: { id: Id; queue: string; name: string; payload: string; runAt: number; maxAttempts: number; now: number },
): void {
  stmt(
    db,
    `INSERT INTO jobs (id, queue, name, payload, run_at, max_attempts, created_at)
     VALUES (@id, @queue, @name, @payload, @runAt, @maxAttempts, @now)`,
  ).run({ id: BigInt(j.id), queue: j.queue, name: j.name, payload: j.payload, runAt: j.runAt, maxAttempts: j.maxAttempts, now: j.now });
}

/**
 * Appends `item` (JSON) to the `items` array of the newest job of `name` in `queue` that became
 * due in the last minute and was never claimed, while it holds fewer than `maxItems`. False
 * when there is no such job. Safe against a concurrent claim: claiming is a write too, so it
 * either committed before (attempts > 0: not chosen) or sees the appended item.
 */
export function appendToWaitingJob(db: DB, q: { queue: string; name: string; now: number; item: string; maxItems: number }): boolean {
  return (
    stmt(
      db,
      `UPDATE jobs SET payload = json_insert(payload, '$.items[#]', json(@item))
       WHERE id = (SELECT id FROM jobs WHERE queue = @queue AND run_at <= @now AND run_at >= @now - 60000 AND name = @name
                     AND attempts = 0 AND locked_until IS NULL AND json_array_length(payload, '$.items') < @max
                   ORDER BY run_at DESC, id DESC LIMIT 1)`,
    ).run({ queue: q.queue, name: q.name, now: q.now, item: q.item, max: q.maxItems }).changes > 0
  );
}

/** Claims left by a runner that died are released at start. */
export function releaseAllLeases(db: DB): void {
  stmt(db, "UPDATE jobs SET locked_until = NULL WHERE locked_until IS NOT NULL").run();
}

/** Next run of a periodic task, or undefined when it was never scheduled. */
export function periodicNextRunAt(db: DB, name: string): number | undefined {
  const r = stmt(db, "SELECT next_run_at FROM periodic_tasks WHERE name = ?").get(name) as Row | undefined;
  return r ? num(r.next_run_at) : undefined;
}

export function insertPeriodicTask(db: DB, name: string, nextRunAt: number): void {
  stmt(db, "INSERT INTO periodic_tasks (name, next_run_at) VALUES (?, ?)").run(name, nextRunAt);
}

export function markPeriodicRun(db: DB, name: string, ranAt: number, nextRunAt: number): void {
  stmt(db, "UPDATE periodic_tasks SET last_run_at = ?, next_run_at = ? WHERE name = ?").run(ranAt, nextRunAt, name);
}

export function hasJobNamed(db: DB, name: string): boolean {
  return !!stmt(db, "SELECT 1 FROM jobs WHERE name = ? LIMIT 1").get(name);
}

export interface QueueStats {
  queue: string;
  /** Waiting to run now (not claimed). */
  due: number;
  /** Waiting for a later run_at: retries in backoff, scheduled work. */
  scheduled: number;
  /** Claimed by a runner (lease not expired). */
  running: number;
  /** Pending jobs that failed at least once. */
  retrying: number;
  /** run_at of the oldest job due now, or null. */
  oldestDueAt: number | null;
  /** Jobs in dead_jobs, and those of them that failed in the last 24 hours. */
  dead: number;
  deadLastDay: number;
}

/** Per-queue figures for `roost status` and /metrics: one pass over jobs and one over dead_jobs. */
export function queueStats(db: DB, now: number): QueueStats[] {
  const out = new Map<string, QueueStats>();
  const get = (queue: string) => {
    let q = out.get(queue);
    if (!q) out.set(queue, (q = { queue, due: 0, scheduled: 0, running: 0, retrying: 0, oldestDueAt: null, dead: 0, deadLastDay: 0 }));
    return q;
  };
  const free = "(locked_until IS NULL OR locked_until < @now)";
  const rows = stmt(
    db,
    `SELECT queue,
       sum(run_at <= @now AND ${free}) AS due,
       sum(run_at > @now AND ${free}) AS scheduled,
       sum(NOT ${free}) AS running,
       sum(attempts > 0 AND ${free}) AS retrying,
       min(CASE WHEN run_at <= @now AND ${free} THEN run_at END) AS oldest
     FROM jobs GROUP BY queue`,
  ).all({ now }) as Row[];
  for (const r of rows) {
    Object.assign(get(r.queue as string), {
      due: num(r.due),
      scheduled: num(r.scheduled),
      running: num(r.running),
      retrying: num(r.retrying),
      oldestDueAt: r.oldest === null ? null : num(r.oldest),
    });
  }
  const dead = stmt(db, "SELECT queue, count(*) AS n, sum(failed_at > @since) AS recent FROM dead_jobs GROUP BY queue").all({ since: now - 86_400_000 }) as Row[];
  for (const r of dead) Object.assign(get(r.queue as string), { dead: num(r.n), deadLastDay: num(r.recent) });
  return [...out.values()].sort((a, b) => (a.queue < b.queue ? -1 : 1));
}
