import type { Id } from "../lib/ids.ts";
import type { App } from "../app.ts";

export interface EnqueueOptions {
  queue?: string;
  /** When to run, ms since epoch (default: now). */
  runAt?: number;
  maxAttempts?: number;
}

export interface JobInfo {
  id: Id;
  name: string;
  /** 1 on the first run. */
  attempts: number;
}

export type JobHandler = (app: App, payload: any, job: JobInfo) => Promise<void> | void;

export interface RegisterOptions {
  queue?: string;
  /** Wait before retry number `attempts` (1 after the first failure); default backoffMs. */
  backoff?: (attempts: number) => number;
  /**
   * The handler is synchronous and its effects are database writes only (a fan-out): the
   * runner runs a batch of due jobs of this kind in ONE transaction, each in a savepoint, and
   * deletes each job in the same transaction as its effects. Under load many jobs then cost
   * one commit (one fsync). A job that throws is rolled back alone and its retry (or dead
   * letter) is recorded in that transaction; the others of the batch are kept. The handler
   * may enqueue follow-up jobs: they commit with it.
   * Crash safety: a job is deleted only in the commit of its effects, so a crash loses
   * nothing and repeats nothing. The attempt count is written with the batch too, so a job
   * that kills the process (rather than throwing) is not counted towards max attempts.
   */
  transactional?: boolean;
}

export interface Jobs {
  /** Inserts a job row. Synchronous, so it can run inside a tx() with the write it belongs to. */
  enqueue(name: string, payload?: unknown, opts?: EnqueueOptions): Id;
  /**
   * Adds `item` to a waiting job of this name whose payload is `{ items: [...] }` and that has
   * room for it (due now, never claimed, fewer than `maxItems`), else enqueues a new such job.
   * A burst of small tasks (Web Push deliveries) so becomes a few jobs, and the runner commits
   * once per job rather than once per task; the handler deals with each item's failure itself.
   * Synchronous, like enqueue.
   */
  enqueueItem(name: string, item: unknown, opts: { maxItems: number; maxAttempts?: number }): void;
  /** Deletes a job that is no longer wanted (a scheduled post moved or withdrawn). Synchronous, like enqueue. */
  cancel(id: Id): void;
  register(name: string, handler: JobHandler, opts?: RegisterOptions): void;
  /** A periodic task: runs every `everyMs`; its schedule is persisted in periodic_tasks. */
  every(name: string, everyMs: number, handler: (app: App) => Promise<void> | void): void;
  start(): void;
  /** Stops claiming new jobs and waits for the running ones to finish their current step. */
  stop(): Promise<void>;
  /** Runs due jobs (and due periodic tasks) until none is left; for tests. */
  drain(): Promise<void>;
}
