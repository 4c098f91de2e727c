import { Piscina } from "piscina";
import type { Log } from "../lib/log.ts";

export interface WorkerPool {
  /** Runs a named task (see workers/tasks.ts) in a worker thread; starts the pool on first use. */
  run<T = unknown>(task: string, payload: unknown): Promise<T>;
  /** Threads currently alive (0 before first use and after idling out). */
  threads(): number;
  close(): Promise<void>;
}

// build.mjs defines this in the bundle, where the worker is dist/worker.mjs beside dist/roost.mjs.
declare const __ROOST_BUNDLED__: boolean | undefined;

function workerFile(): string {
  const bundled = typeof __ROOST_BUNDLED__ !== "undefined" && __ROOST_BUNDLED__;
  return new URL(bundled ? "./worker.mjs" : "./worker.ts", import.meta.url).href;
}

/**
 * Piscina, started lazily (its threads cost ~27 MB of RSS) and shrunk to zero threads when
 * idle. Carries CPU-heavy work: key generation, media processing, request signing.
 */
export function createWorkerPool(opts: { maxThreads: number; idleTimeout: number; log: Log }): WorkerPool {
  let pool: Piscina | undefined;
  const get = () =>
    (pool ??= new Piscina({
      filename: workerFile(),
      minThreads: 0,
      maxThreads: opts.maxThreads,
      idleTimeout: opts.idleTimeout,
      // Dev mode runs TypeScript through tsx: the worker inherits the loader from execArgv.
      execArgv: process.execArgv,
    }));
  return {
    run<T>(task: string, payload: unknown): Promise<T> {
      return get().run({ task, payload }) as Promise<T>;
    },
    threads() {
      return pool ? pool.threads.length : 0;
    },
    async close() {
      const p = pool;
      pool = undefined;
      if (p) await p.destroy();
    },
  };
}
