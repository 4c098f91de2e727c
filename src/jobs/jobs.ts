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

export interface Jobs {
  /** Inserts a job row. Synchronous, so it can run inside a tx() with the write it belongs to. */
  enqueue(name: string, payload?: unknown, opts?: EnqueueOptions): Id;
  register(name: string, handler: JobHandler, opts?: { queue?: string }): void;
  /** A periodic task: runs every `everyMs`; its schedule is persisted in periodic_tasks. */
  every(name: string, everyMs: number, handler: (app: App) => Promise<void> | void): void;
  start(): void;
  /** Stops claiming new jobs and waits for the running ones to finish their current step. */
  stop(): Promise<void>;
  /** Runs due jobs (and due periodic tasks) until none is left; for tests. */
  drain(): Promise<void>;
}
