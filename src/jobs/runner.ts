import type { App } from "../app.ts";
import { savepoint, tx } from "../db/db.ts";
import { PermanentJobError } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import {
  appendToWaitingJob,
  buryJob,
  claimDueJobs,
  deleteJobs,
  dueJobsNamed,
  dueQueues,
  hasJobNamed,
  insertJob,
  insertPeriodicTask,
  markPeriodicRun,
  periodicNextRunAt,
  releaseAllLeases,
  rescheduleJob,
  type StoredJob,
} from "./job-store.ts";
import type { EnqueueOptions, JobHandler, Jobs, RegisterOptions } from "./jobs.ts";

/** Concurrency per queue for ordinary (async) jobs; unknown queues get 2. */
const QUEUE_CONCURRENCY: Record<string, number> = { default: 4, federation: 16, inbox: 8, push: 4, media: 2 };
const LEASE_MS = 5 * 60_000; // a claimed job whose runner died is retried after this
const POLL_MS = 1000;
const MAX_BACKOFF_MS = 6 * 3600_000;

export interface RunnerOptions {
  /** Most jobs in one transactional batch. */
  batchSize?: number;
  /** A batch takes no further job after this long, so requests are served in between. */
  batchBudgetMs?: number;
  /**
   * Least time between two batches of a queue that found work: the jobs enqueued meanwhile
   * share the next commit. Batches never wait in drain(), nor after an idle spell.
   */
  batchIntervalMs?: number;
}

/** Exponential backoff with jitter: ~15 s, 30 s, 1 min, ... capped at 6 h. */
export function backoffMs(attempts: number): number {
  const base = Math.min(MAX_BACKOFF_MS, 15_000 * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

interface Registered {
  handler: JobHandler;
  queue: string;
  transactional: boolean;
  backoff: (attempts: number) => number;
}

interface QueueInfo {
  /** JSON array of the queue's transactional job names ("[]" when none). */
  transactionalJson: string;
  hasTransactional: boolean;
  hasAsync: boolean;
}

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  typeof v === "object" && v !== null && typeof (v as { then?: unknown }).then === "function";

/**
 * The durable job runner. Ordinary jobs are claimed (a lease and an attempt, several per
 * statement), run concurrently, and their outcomes are written together on the next tick.
 * Transactional jobs (RegisterOptions.transactional) run in batches, each batch one
 * transaction that also deletes the jobs it ran: one commit for many jobs.
 */
export function createJobs(app: App, opts: RunnerOptions = {}): Jobs {
  const batchSize = opts.batchSize ?? 200;
  const batchBudgetMs = opts.batchBudgetMs ?? 50;
  const batchIntervalMs = opts.batchIntervalMs ?? 20;

  const handlers = new Map<string, Registered>();
  const periodic = new Map<string, number>();
  const periodicNext = new Map<string, number>(); // known next_run_at: saves a lookup per pump
  const running = new Map<string, number>();
  const inflight = new Set<Promise<void>>();
  const outcomes: { job: StoredJob; err: unknown }[] = [];
  const lastBatchEnd = new Map<string, number>();
  const isolate = new Set<string>(); // queues whose last batch failed as a whole: one job per batch
  let queueInfo: Map<string, QueueInfo> | undefined;
  let started = false;
  let stopping = false;
  let pollTimer: NodeJS.Timeout | undefined;
  let batchTimer: NodeJS.Timeout | undefined;
  let wakeScheduled = false;
  let pollDue = false;

  const queues = (): Map<string, QueueInfo> => {
    if (queueInfo) return queueInfo;
    const names = new Map<string, { transactional: string[]; async: number }>();
    for (const [name, h] of handlers) {
      let q = names.get(h.queue);
      if (!q) names.set(h.queue, (q = { transactional: [], async: 0 }));
      if (h.transactional) q.transactional.push(name);
      else q.async++;
    }
    queueInfo = new Map();
    for (const [queue, q] of names) {
      queueInfo.set(queue, {
        transactionalJson: JSON.stringify(q.transactional),
        hasTransactional: q.transactional.length > 0,
        hasAsync: q.async > 0,
      });
    }
    return queueInfo;
  };
  const excludedFrom = (queue: string) => queues().get(queue)?.transactionalJson ?? "[]";

  /** Runs the job's handler; what it returns is the handler's (a promise for async handlers). */
  const invoke = (job: StoredJob): Promise<void> | void => {
    const h = handlers.get(job.name);
    if (!h) throw new PermanentJobError(`no handler for job ${job.name}`);
    let payload: unknown;
    try {
      payload = JSON.parse(job.payload);
    } catch {
      throw new PermanentJobError("corrupt job payload");
    }
    return h.handler(app, payload, { id: job.id, name: job.name, attempts: job.attempts });
  };

  /** Records a failed run: retry after a backoff, or dead_jobs. Runs inside a transaction. */
  const recordFailure = (job: StoredJob, err: unknown) => {
    const message = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
    const permanent = err instanceof PermanentJobError || job.attempts >= job.maxAttempts || !handlers.has(job.name);
    app.metrics.job(job.name, job.queue, permanent ? "dead" : "retry");
    if (permanent) {
      app.log.warn("job failed permanently", { job: job.name, id: job.id, attempts: job.attempts, error: message });
      buryJob(app.db, { id: job.id, attempts: job.attempts, error: message, now: app.now() });
    } else {
      app.log.info("job failed, will retry", { job: job.name, id: job.id, attempts: job.attempts, error: message });
      const wait = (handlers.get(job.name)?.backoff ?? backoffMs)(job.attempts);
      rescheduleJob(app.db, { id: job.id, attempts: job.attempts, runAt: app.now() + wait, error: message });
    }
  };

  /** Writes outcomes of finished ordinary jobs; inside the caller's transaction. */
  const writeOutcomes = (batch: { job: StoredJob; err: unknown }[]) => {
    const done = batch.filter((o) => o.err === undefined);
    deleteJobs(app.db, done.map((o) => o.job.id));
    for (const o of done) app.metrics.job(o.job.name, o.job.queue, "done");
    for (const o of batch) if (o.err !== undefined) recordFailure(o.job, o.err);
  };

  /**
   * Runs `fn` in a transaction that first writes the pending outcomes (all in one commit with
   * whatever `fn` writes); they stay pending if the transaction fails.
   */
  const withOutcomes = <T>(fn: () => T): T => {
    const batch = outcomes.splice(0);
    try {
      return tx(app.db, () => {
        writeOutcomes(batch);
        return fn();
      });
    } catch (e) {
      outcomes.unshift(...batch);
      throw e;
    }
  };

  const flushOutcomes = () => {
    if (outcomes.length > 0 && app.db.open) withOutcomes(() => {});
  };

  const execute = async (job: StoredJob): Promise<void> => {
    let err: unknown;
    try {
      await invoke(job);
    } catch (e) {
      err = e ?? new Error("job failed");
    }
    outcomes.push({ job, err });
  };

  /**
   * One batch of the queue's transactional jobs in one transaction. Each job runs in a
   * savepoint: one that throws is rolled back alone and its failure recorded; the finished
   * ones are deleted in the same transaction as their effects.
   */
  const runBatch = (queue: string, namesJson: string): { ran: number; more: boolean; failed?: boolean } => {
    const db = app.db;
    const began = performance.now();
    const limit = isolate.has(queue) ? 1 : batchSize;
    let current: StoredJob | undefined;
    let ran = 0;
    let more = false;
    try {
      tx(db, () => {
        const jobs = dueJobsNamed(db, { queue, now: app.now(), limit, namesJson });
        more = jobs.length === limit;
        const done: Id[] = [];
        for (const job of jobs) {
          if (ran > 0 && performance.now() - began > batchBudgetMs) {
            more = true;
            break;
          }
          current = job;
          ran++;
          let err: unknown;
          try {
            savepoint(db, () => {
              const r = invoke(job);
              if (isThenable(r)) {
                Promise.resolve(r).catch(() => {});
                throw new PermanentJobError(`job ${job.name} is registered as transactional but returned a promise`);
              }
            });
          } catch (e) {
            // An error that ended the transaction itself takes the whole batch with it.
            if (!db.inTransaction) throw e;
            err = e ?? new Error("job failed");
          }
          if (err === undefined) {
            done.push(job.id);
            app.metrics.job(job.name, job.queue, "done");
          } else recordFailure(job, err);
        }
        current = undefined;
        deleteJobs(db, done);
      });
    } catch (e) {
      // Nothing of the batch was kept. Retry its jobs one per batch, so that a job that breaks
      // the transaction is found, and record that job's failure on its own.
      app.log.error("transactional job batch failed", { queue, err: e });
      if (limit === 1 && current && db.open) {
        const job = current;
        tx(db, () => recordFailure(job, e ?? new Error("job failed")));
      }
      isolate.add(queue);
      return { ran: 0, more: true, failed: true };
    }
    if (ran > 0) isolate.delete(queue);
    return { ran, more };
  };

  /**
   * Runs due transactional batches; `force` ignores the interval between batches (drain).
   * Returns the jobs run plus the batches that failed (both mean: look again).
   */
  const runTransactional = (force: boolean): number => {
    let total = 0;
    for (const [queue, info] of queues()) {
      if (!info.hasTransactional) continue;
      if (!force) {
        const wait = (lastBatchEnd.get(queue) ?? -Infinity) + batchIntervalMs - performance.now();
        if (wait > 0) {
          wakeLater(wait);
          continue;
        }
      }
      const { ran, more, failed } = runBatch(queue, info.transactionalJson);
      if (ran > 0) lastBatchEnd.set(queue, performance.now());
      else lastBatchEnd.delete(queue);
      if (more && !force) wakeLater(batchIntervalMs);
      total += ran + (failed ? 1 : 0);
    }
    return total;
  };

  /** Turns due periodic tasks into jobs; the schedule row and the job commit together. */
  const schedulePeriodic = () => {
    const now = app.now();
    for (const [name, everyMs] of periodic) {
      const known = periodicNext.get(name);
      if (known !== undefined && known > now) continue;
      const next = tx(app.db, (): number => {
        const at = periodicNextRunAt(app.db, name);
        // First start: run soon, then on the period.
        if (at === undefined) insertPeriodicTask(app.db, name, now);
        else if (at > now) return at;
        markPeriodicRun(app.db, name, now, now + everyMs);
        if (!hasJobNamed(app.db, `periodic.${name}`)) enqueue(`periodic.${name}`, {}, { maxAttempts: 1 });
        return now + everyMs;
      });
      periodicNext.set(name, next);
    }
  };

  const startJob = (job: StoredJob) => {
    running.set(job.queue, (running.get(job.queue) ?? 0) + 1);
    const p = execute(job).finally(() => {
      running.set(job.queue, (running.get(job.queue) ?? 1) - 1);
      inflight.delete(p);
      wake();
    });
    inflight.add(p);
  };

  const pump = () => {
    if (!started || stopping || !app.db.open) return;
    const poll = pollDue;
    pollDue = false;
    const now = app.now();
    const claimed: StoredJob[] = [];
    // Outcomes, the periodic schedule and the claims share one commit.
    withOutcomes(() => {
      schedulePeriodic();
      for (const [queue, info] of queues()) {
        // A queue of transactional jobs only is checked for strays (unknown names) on the poll.
        if (!info.hasAsync && !poll) continue;
        const free = (QUEUE_CONCURRENCY[queue] ?? 2) - (running.get(queue) ?? 0);
        claimed.push(...claimDueJobs(app.db, { queue, now, lease: now + LEASE_MS, limit: free, excludeNamesJson: info.transactionalJson }));
      }
    });
    for (const job of claimed) startJob(job);
    runTransactional(false);
  };

  const wake = () => {
    if (!started || stopping || wakeScheduled) return;
    wakeScheduled = true;
    setImmediate(() => {
      wakeScheduled = false;
      try {
        pump();
      } catch (e) {
        app.log.error("job runner error", { err: e });
      }
    });
  };

  const wakeLater = (ms: number) => {
    if (batchTimer || !started || stopping) return;
    batchTimer = setTimeout(() => {
      batchTimer = undefined;
      wake();
    }, Math.ceil(ms));
    batchTimer.unref();
  };

  const enqueue = (name: string, payload: unknown = {}, o: EnqueueOptions = {}): Id => {
    const id = app.ids.next();
    const now = app.now();
    insertJob(app.db, {
      id,
      queue: o.queue ?? handlers.get(name)?.queue ?? "default",
      name,
      payload: JSON.stringify(payload ?? {}),
      runAt: o.runAt ?? now,
      maxAttempts: o.maxAttempts ?? 10,
      now,
    });
    wake();
    return id;
  };

  const enqueueItem = (name: string, item: unknown, o: { maxItems: number; maxAttempts?: number }): void => {
    const queue = handlers.get(name)?.queue ?? "default";
    if (appendToWaitingJob(app.db, { queue, name, now: app.now(), item: JSON.stringify(item), maxItems: o.maxItems })) return;
    enqueue(name, { items: [item] }, { maxAttempts: o.maxAttempts });
  };

  /** Claims one ordinary job of any queue, strays included (drain runs them one at a time). */
  const claimOne = (): StoredJob | undefined => {
    const now = app.now();
    return tx(app.db, () => {
      const known = [...queues().keys()];
      for (const queue of [...known, ...dueQueues(app.db, now).filter((q) => !known.includes(q))]) {
        const [job] = claimDueJobs(app.db, { queue, now, lease: now + LEASE_MS, limit: 1, excludeNamesJson: excludedFrom(queue) });
        if (job) return job;
      }
      return undefined;
    });
  };

  return {
    enqueue,
    enqueueItem,
    // A job already claimed still runs; its outcome then finds no row and changes nothing.
    cancel: (id) => deleteJobs(app.db, [id]),
    register(name, handler, o: RegisterOptions = {}) {
      if (o.transactional && handler.constructor.name === "AsyncFunction") {
        throw new Error(`job ${name}: a transactional handler must be synchronous`);
      }
      handlers.set(name, { handler, queue: o.queue ?? "default", transactional: !!o.transactional, backoff: o.backoff ?? backoffMs });
      queueInfo = undefined;
    },
    every(name, everyMs, handler) {
      periodic.set(name, everyMs);
      periodicNext.delete(name);
      handlers.set(`periodic.${name}`, { handler: (a) => handler(a), queue: "default", transactional: false, backoff: backoffMs });
      queueInfo = undefined;
    },
    start() {
      if (started) return;
      started = true;
      stopping = false;
      releaseAllLeases(app.db);
      pollTimer = setInterval(() => {
        pollDue = true;
        wake();
      }, POLL_MS);
      pollTimer.unref();
      pollDue = true;
      wake();
    },
    async stop() {
      stopping = true;
      if (pollTimer) clearInterval(pollTimer);
      if (batchTimer) clearTimeout(batchTimer);
      pollTimer = batchTimer = undefined;
      await Promise.allSettled([...inflight]);
      flushOutcomes();
      started = false;
    },
    async drain() {
      for (let guard = 0; guard < 10_000; guard++) {
        // A turn of the event loop between steps, as pump() has: requests are served in
        // between, and one step never runs on into the next without a break.
        await new Promise<void>((resolve) => setImmediate(resolve));
        flushOutcomes();
        schedulePeriodic();
        if (runTransactional(true) > 0) continue;
        const job = claimOne();
        if (!job) {
          if (inflight.size === 0) return;
          await Promise.race(inflight);
          continue;
        }
        await execute(job);
      }
      throw new Error("drain: too many jobs (a job keeps re-enqueueing itself?)");
    },
  };
}
