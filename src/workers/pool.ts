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

async function trimAndLog(log: Log): Promise<void> {
  const mb = () => Math.round(process.memoryUsage.rss() / 104857.6) / 10;
  const before = mb();
  const started = performance.now();
  if (await trimNativeHeap()) log.debug("native heap trimmed", { rssMb: before, afterMb: mb(), ms: Math.round(performance.now() - started) });
}

/**
 * Piscina, started lazily (its threads cost ~27 MB of RSS) and shrunk to zero threads when
 * idle, for CPU-heavy work: key generation and request signing; plus the image process.
 * When the image process has gone idle, the uploads it worked for are over too and
 * `onImagesIdle` runs: by default trimNativeHeap, which gives the memory their bodies passed
 * through back to the system (not after thread work: signing leaves little behind, and the
 * collection it starts is not free).
 */
export function createWorkerPool(opts: { maxThreads: number; idleTimeout: number; log: Log; onImagesIdle?: () => unknown }): WorkerPool {
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
  const imagesIdle = () => {
    Promise.resolve()
      .then(opts.onImagesIdle ?? (() => trimAndLog(opts.log)))
      .catch((err: unknown) => opts.log.warn("could not trim the native heap", { err: err instanceof Error ? err.message : String(err) }));
  };
  const images = createProcessRunner({ file: processWorkerFile(), maxConcurrent: opts.maxThreads, idleTimeout: opts.idleTimeout, log: opts.log, onIdleExit: imagesIdle });
  return {
    run<T>(task: string, payload: unknown): Promise<T> {
      if (PROCESS_TASKS.has(task)) return images.run<T>(task, payload);
      return get().run({ task, payload }) as Promise<T>;
    },
    threads() {
      return (pool ? pool.threads.length : 0) + images.alive();
    },
    async close() {
      const p = pool;
      pool = undefined;
      await Promise.all([p?.destroy(), images.close()]);
    },
  };
}
