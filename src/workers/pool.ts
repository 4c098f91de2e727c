import { Piscina } from "piscina";
import type { Log } from "../lib/log.ts";
import { trimNativeHeap } from "./native-heap.ts";
import { createProcessRunner } from "./process-runner.ts";

export interface WorkerPool {
  /** Runs a named task (see workers/tasks.ts) off the main thread; starts what it needs on first use. */
  run<T = unknown>(task: string, payload: unknown): Promise<T>;
  /** Threads and processes currently alive (0 before first use and after idling out). */
  threads(): number;
  close(): Promise<void>;
}

// build.mjs defines this in the bundle, where the workers are dist/worker.mjs and
// dist/process-worker.mjs beside dist/roost.mjs.
declare const __ROOST_BUNDLED__: boolean | undefined;
const bundled = () => typeof __ROOST_BUNDLED__ !== "undefined" && __ROOST_BUNDLED__;

function workerFile(): string {
  return new URL(bundled() ? "./worker.mjs" : "./worker.ts", import.meta.url).href;
}

function processWorkerFile(): string {
  return new URL(bundled() ? "./process-worker.mjs" : "./process-entry.ts", import.meta.url).href;
}

/**
 * Image tasks (sharp) run in a worker process rather than a thread: libvips' memory stays with
 * the process that used it, and that process exits when idle (process-runner.ts).
 */
const PROCESS_TASKS = new Set(["processMediaImage", "processMediaThumbnail", "processProfileImage", "emojiStaticPng"]);

/** Wait after the last thread or process went before trimming (a thread's exit is asynchronous). */
const SHRUNK_SETTLE_MS = 1000;

async function trimAndLog(log: Log): Promise<void> {
  const mb = () => Math.round(process.memoryUsage.rss() / 104857.6) / 10;
  const before = mb();
  const started = performance.now();
  if (await trimNativeHeap()) log.debug("native heap trimmed", { rssMb: before, afterMb: mb(), ms: Math.round(performance.now() - started) });
}

/**
 * Piscina, started lazily (its threads cost ~27 MB of RSS) and shrunk to zero threads when
 * idle, for CPU-heavy work: key generation and request signing; plus the image process.
 * Once both have shrunk to nothing, `onShrunk` runs (by default trimNativeHeap: the burst's
 * freed memory, upload bodies above all, goes back to the system).
 */
export function createWorkerPool(opts: { maxThreads: number; idleTimeout: number; log: Log; onShrunk?: () => unknown }): WorkerPool {
  let pool: Piscina | undefined;
  let closed = false;
  let settle: NodeJS.Timeout | undefined;
  const alive = () => (pool ? pool.threads.length : 0) + images.alive();
  const shrunk = () => {
    if (settle) clearTimeout(settle);
    settle = setTimeout(() => {
      settle = undefined;
      if (closed || alive() > 0) return;
      Promise.resolve()
        .then(opts.onShrunk ?? (() => trimAndLog(opts.log)))
        .catch((err: unknown) => opts.log.warn("could not trim the native heap", { err: err instanceof Error ? err.message : String(err) }));
    }, SHRUNK_SETTLE_MS);
    settle.unref();
  };
  const get = () => {
    if (pool) return pool;
    pool = new Piscina({
      filename: workerFile(),
      minThreads: 0,
      maxThreads: opts.maxThreads,
      idleTimeout: opts.idleTimeout,
      // Dev mode runs TypeScript through tsx: the worker inherits the loader from execArgv.
      execArgv: process.execArgv,
    });
    pool.on("workerDestroy", shrunk);
    return pool;
  };
  const images = createProcessRunner({ file: processWorkerFile(), maxConcurrent: opts.maxThreads, idleTimeout: opts.idleTimeout, log: opts.log, onIdleExit: shrunk });
  return {
    run<T>(task: string, payload: unknown): Promise<T> {
      if (PROCESS_TASKS.has(task)) return images.run<T>(task, payload);
      return get().run({ task, payload }) as Promise<T>;
    },
    threads: alive,
    async close() {
      closed = true;
      if (settle) clearTimeout(settle);
      const p = pool;
      pool = undefined;
      await Promise.all([p?.destroy(), images.close()]);
    },
  };
}
