import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { type DB, totalChanges } from "./db.ts";
import type { Log } from "../lib/log.ts";

// WAL checkpoints off the event loop (the server only).
//
// SQLite checkpoints inside the COMMIT that takes the WAL past wal_autocheckpoint pages (1000,
// 4 MB): the writing request copies the frames into the database file and fsyncs it, on the
// server's only loop, every ~2 s under the soak's load, and a slow fsync stalls everyone (see
// db/commit-sync.ts). Here a thread with its own connection runs PASSIVE checkpoints instead:
// a few seconds after writes, never waiting for readers or the writer. The server's connection
// keeps an automatic checkpoint at 10,000 pages as a backstop (a bulk import outrunning the
// thread). The thread starts with the first writes and exits after a quiet minute, so an idle
// server carries no second V8 isolate (~7 MB of RSS).

/** What the thread answers to "checkpoint". */
export interface CheckpointResult {
  ok: boolean;
  /** 1 when the checkpoint could not start (another one was running). */
  busy?: number;
  /** Frames in the WAL, and how many of them are now in the database file. */
  log?: number;
  checkpointed?: number;
  ms?: number;
  error?: string;
}

/**
 * The thread's program. It is plain JavaScript given to the Worker as source (eval) rather
 * than a module file: it then runs alike from the sources, the bundle and the executable
 * (whose files live in a cache directory), without the TypeScript loader or a build entry.
 * better-sqlite3 is required by the absolute path the server itself resolved.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.betterSqlite3);
const db = new Database(workerData.file, { fileMustExist: true });
// A checkpoint syncs the WAL before it copies and the database file after, as under FULL.
db.pragma("synchronous = FULL");
// It reads frames and writes pages: nothing worth caching.
db.pragma("cache_size = -256");
// PASSIVE: copies what no reader still needs; never waits for the readers or the writer.
const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
parentPort.on("message", (message) => {
  if (message === "close") {
    db.close();
    parentPort.close();
    return;
  }
  const started = performance.now();
  try {
    const row = checkpoint.get();
    parentPort.postMessage({ ok: true, busy: row.busy, log: row.log, checkpointed: row.checkpointed, ms: performance.now() - started });
  } catch (e) {
    parentPort.postMessage({ ok: false, error: String((e && e.message) || e) });
  }
});
`;

export interface CheckpointerOptions {
  /** How often the connection's write counter is read. */
  pollMs?: number;
  /** The least time between two checkpoints. */
  everyMs?: number;
  /** After a checkpoint that could not copy every frame: the wait before the next try. */
  retryMs?: number;
  /** The thread exits after this long without writes. */
  idleMs?: number;
}

export interface CheckpointerStats {
  /** Complete checkpoints (every frame copied: the log restarts at the next write). */
  checkpoints: number;
  /** Checkpoints that left frames a reader still needed (tried again after retryMs). */
  partial: number;
  /** The last complete checkpoint's figures (frames in the WAL, frames copied, duration). */
  last: CheckpointResult | null;
  threadAlive: boolean;
}

export interface Checkpointer {
  stats(): CheckpointerStats;
  stop(): Promise<void>;
}

/** The server connection's own automatic checkpoint, in pages: a backstop only. */
export const BACKSTOP_AUTOCHECKPOINT = 10_000;
/** Quick rounds after a complete checkpoint that writes overtook (see the message handler). */
const MAX_FOLLOW_UPS = 10;

export function startCheckpointer(db: DB, log: Log, opts: CheckpointerOptions = {}): Checkpointer | null {
  if (db.memory) return null;
  const pollMs = opts.pollMs ?? 1000;
  const everyMs = opts.everyMs ?? 5000;
  const retryMs = opts.retryMs ?? 100;
  const idleMs = opts.idleMs ?? 60_000;
  db.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT}`);

  let thread: Worker | undefined;
  let inFlight = false;
  let pending = false;
  let stopped = false;
  const writes = () => totalChanges(db);
  let lastChanges = writes();
  let lastWriteAt = 0;
  let nextAt = 0;
  let partial = 0;
  let followUps = 0;
  let writesAtPost = 0n;
  let count = 0;
  let last: CheckpointResult | null = null;

  /** Without a thread, SQLite's own automatic checkpoint takes over again. */
  const fallBack = (why: string) => {
    log.warn("checkpoint thread failed; checkpoints run in commits again", { error: why });
    stopped = true;
    clearInterval(timer);
    thread = undefined;
    if (db.open) db.pragma("wal_autocheckpoint = 1000");
  };

  const spawn = (): Worker => {
    const w = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: { file: db.name, betterSqlite3: createRequire(import.meta.url).resolve("better-sqlite3") },
      // Plain JavaScript: no TypeScript loader (dev mode's --import tsx) in this thread.
      execArgv: [],
      env: {},
    });
    w.on("message", (r: CheckpointResult) => {
      inFlight = false;
      const now = performance.now();
      if (!r.ok || (r.checkpointed ?? 0) < (r.log ?? 0)) {
        // Failed, or a reader still needed the newest frames (the log cannot restart until
        // they are all copied): again shortly, while the server's loop is elsewhere.
        if (r.ok) partial++;
        else log.warn("checkpoint failed", { error: r.error });
        pending = true;
        nextAt = now + retryMs;
        setTimeout(tick, retryMs).unref();
        return;
      }
      count++;
      last = r;
      // The log starts over at the next commit only if nothing was committed since the
      // checkpoint began (the new frames would still need copying). Under steady writes that
      // is often the case: a few quick rounds, each copying only the last few frames, let
      // the log restart instead of growing toward the backstop.
      if (writes() !== writesAtPost && followUps < MAX_FOLLOW_UPS) {
        followUps++;
        pending = true;
        nextAt = now + retryMs;
        setTimeout(tick, retryMs).unref();
        return;
      }
      followUps = 0;
      nextAt = now + everyMs;
    });
    w.on("error", (e) => fallBack(e.message));
    w.on("exit", (code) => {
      if (thread === w && !stopped) fallBack(`thread exited with ${code}`);
    });
    w.unref();
    return w;
  };

  const tick = () => {
    if (stopped || !db.open) return;
    const now = performance.now();
    const changes = writes();
    if (changes !== lastChanges) {
      lastChanges = changes;
      lastWriteAt = now;
      pending = true;
    }
    if (pending && !inFlight && now >= nextAt) {
      pending = false;
      inFlight = true;
      writesAtPost = writes();
      (thread ??= spawn()).postMessage("checkpoint");
    } else if (thread && !inFlight && !pending && now - lastWriteAt > idleMs) {
      const t = thread;
      thread = undefined;
      t.postMessage("close");
    }
  };
  const timer = setInterval(tick, pollMs);
  timer.unref();

  return {
    stats: () => ({ checkpoints: count, partial, last, threadAlive: thread !== undefined }),
    async stop() {
      stopped = true;
      clearInterval(timer);
      const t = thread;
      thread = undefined;
      if (!t) return;
      // The thread closes its connection and exits; the server's close, which follows, runs
      // the last checkpoint itself.
      const exited = new Promise<void>((resolve) => t.once("exit", () => resolve()));
      t.postMessage("close");
      const timeout = setTimeout(() => void t.terminate(), 5000);
      await exited;
      clearTimeout(timeout);
    },
  };
}
