import type { App } from "../app.ts";
import { type Row, stmt, str, num, tx } from "../db/db.ts";
import { PermanentJobError } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import type { EnqueueOptions, JobHandler, Jobs } from "./jobs.ts";

/** Concurrency per queue; unknown queues get 2. */
const QUEUE_CONCURRENCY: Record<string, number> = { default: 4, federation: 16, push: 4, media: 2 };
const LEASE_MS = 5 * 60_000; // a claimed job whose runner died is retried after this
const POLL_MS = 1000;
const MAX_BACKOFF_MS = 6 * 3600_000;

/** Exponential backoff with jitter: ~15 s, 30 s, 1 min, ... capped at 6 h. */
export function backoffMs(attempts: number): number {
  const base = Math.min(MAX_BACKOFF_MS, 15_000 * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

interface Claimed {
  id: Id;
  name: string;
  queue: string;
  payload: string;
  attempts: number;
  maxAttempts: number;
}

export function createJobs(app: App): Jobs {
  const handlers = new Map<string, { handler: JobHandler; queue: string }>();
  const periodic = new Map<string, number>();
  const running = new Map<string, number>();
  const inflight = new Set<Promise<void>>();
  let started = false;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let wakeScheduled = false;

  const claim = (queue: string): Claimed | undefined => {
    const now = app.now();
    const r = stmt(
      app.db,
      `UPDATE jobs SET locked_until = @lease, attempts = attempts + 1
       WHERE id = (SELECT id FROM jobs WHERE queue = @queue AND run_at <= @now
                   AND (locked_until IS NULL OR locked_until < @now) ORDER BY run_at, id LIMIT 1)
       RETURNING id, name, queue, payload, attempts, max_attempts`,
    ).get({ queue, now, lease: now + LEASE_MS }) as Row | undefined;
    if (!r) return undefined;
    return {
      id: str(r.id),
      name: r.name as string,
      queue: r.queue as string,
      payload: r.payload as string,
      attempts: num(r.attempts),
      maxAttempts: num(r.max_attempts),
    };
  };

  const finish = (job: Claimed, err: unknown) => {
    const id = BigInt(job.id);
    if (err === undefined) {
      stmt(app.db, "DELETE FROM jobs WHERE id = ?").run(id);
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    const permanent = err instanceof PermanentJobError || job.attempts >= job.maxAttempts || !handlers.has(job.name);
    if (permanent) {
      app.log.warn("job failed permanently", { job: job.name, id: job.id, attempts: job.attempts, error: message });
      tx(app.db, () => {
        stmt(
          app.db,
          `INSERT INTO dead_jobs (id, queue, name, payload, attempts, last_error, failed_at)
           SELECT id, queue, name, payload, attempts, @error, @now FROM jobs WHERE id = @id`,
        ).run({ id, error: message.slice(0, 2000), now: app.now() });
        stmt(app.db, "DELETE FROM jobs WHERE id = ?").run(id);
      });
    } else {
      app.log.info("job failed, will retry", { job: job.name, id: job.id, attempts: job.attempts, error: message });
      stmt(app.db, "UPDATE jobs SET run_at = @runAt, locked_until = NULL, last_error = @error WHERE id = @id").run({
        id,
        runAt: app.now() + backoffMs(job.attempts),
        error: message.slice(0, 2000),
      });
    }
  };

  const execute = async (job: Claimed): Promise<void> => {
    const h = handlers.get(job.name);
    let err: unknown;
    try {
      if (!h) throw new PermanentJobError(`no handler for job ${job.name}`);
      let payload: unknown;
      try {
        payload = JSON.parse(job.payload);
      } catch {
        throw new PermanentJobError("corrupt job payload");
      }
      await h.handler(app, payload, { id: job.id, name: job.name, attempts: job.attempts });
    } catch (e) {
      err = e ?? new Error("job failed");
    }
    if (app.db.open) finish(job, err);
  };

  /** Turns due periodic tasks into jobs; the schedule row and the job commit together. */
  const schedulePeriodic = () => {
    const now = app.now();
    for (const [name, everyMs] of periodic) {
      tx(app.db, () => {
        const r = stmt(app.db, "SELECT next_run_at FROM periodic_tasks WHERE name = ?").get(name) as Row | undefined;
        if (!r) {
          // First start: run soon, then on the period.
          stmt(app.db, "INSERT INTO periodic_tasks (name, next_run_at) VALUES (?, ?)").run(name, now);
        } else if (num(r.next_run_at) > now) return;
        stmt(app.db, "UPDATE periodic_tasks SET last_run_at = ?, next_run_at = ? WHERE name = ?").run(now, now + everyMs, name);
        const exists = stmt(app.db, "SELECT 1 FROM jobs WHERE name = ? LIMIT 1").get(`periodic.${name}`);
        if (!exists) enqueue(`periodic.${name}`, {}, { maxAttempts: 1 });
      });
    }
  };

  const queues = () => new Set([...handlers.values()].map((h) => h.queue));

  const pump = () => {
    if (!started || stopping || !app.db.open) return;
    schedulePeriodic();
    for (const queue of queues()) {
      const limit = QUEUE_CONCURRENCY[queue] ?? 2;
      while ((running.get(queue) ?? 0) < limit) {
        const job = claim(queue);
        if (!job) break;
        running.set(queue, (running.get(queue) ?? 0) + 1);
        const p = execute(job).finally(() => {
          running.set(queue, (running.get(queue) ?? 1) - 1);
          inflight.delete(p);
          wake();
        });
        inflight.add(p);
      }
    }
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

  const enqueue = (name: string, payload: unknown = {}, opts: EnqueueOptions = {}): Id => {
    const id = app.ids.next();
    const queue = opts.queue ?? handlers.get(name)?.queue ?? "default";
    stmt(
      app.db,
      `INSERT INTO jobs (id, queue, name, payload, run_at, max_attempts, created_at)
       VALUES (@id, @queue, @name, @payload, @runAt, @maxAttempts, @now)`,
    ).run({
      id: BigInt(id),
      queue,
      name,
      payload: JSON.stringify(payload ?? {}),
      runAt: opts.runAt ?? app.now(),
      maxAttempts: opts.maxAttempts ?? 10,
      now: app.now(),
    });
    wake();
    return id;
  };

  return {
    enqueue,
    register(name, handler, opts = {}) {
      handlers.set(name, { handler, queue: opts.queue ?? "default" });
    },
    every(name, everyMs, handler) {
      periodic.set(name, everyMs);
      handlers.set(`periodic.${name}`, { handler: (a) => handler(a), queue: "default" });
    },
    start() {
      if (started) return;
      started = true;
      stopping = false;
      // Claims left by a runner that died are released at start.
      stmt(app.db, "UPDATE jobs SET locked_until = NULL WHERE locked_until IS NOT NULL").run();
      timer = setInterval(wake, POLL_MS);
      timer.unref();
      wake();
    },
    async stop() {
      stopping = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await Promise.allSettled([...inflight]);
      started = false;
    },
    async drain() {
      schedulePeriodic();
      for (let guard = 0; guard < 10_000; guard++) {
        let job: Claimed | undefined;
        for (const queue of queues()) if ((job = claim(queue))) break;
        if (!job) {
          // Also catch jobs enqueued under queues without a handler (they fail permanently).
          const stray = stmt(app.db, "SELECT DISTINCT queue FROM jobs WHERE run_at <= ?").all(app.now()) as Row[];
          for (const r of stray) if ((job = claim(r.queue as string))) break;
        }
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
