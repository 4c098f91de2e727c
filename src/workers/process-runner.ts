import { type ChildProcess, fork } from "node:child_process";
import { setPriority } from "node:os";
import type { Log } from "../lib/log.ts";

/**
 * Runs tasks in one forked child process, started on first use and ended when idle. For the
 * image tasks: libvips (sharp) keeps the memory it used in malloc arenas of the process for
 * good, even once worker threads are gone (a burst of 12 MP photos left ~200 MB behind in the
 * server); a process that exits returns all of it. The child runs at a lower CPU priority, so
 * a burst of uploads does not starve request handling on a small machine.
 */
export interface ProcessRunner {
  run<T>(task: string, payload: unknown): Promise<T>;
  /** 1 while the child process is alive, else 0. */
  alive(): number;
  close(): Promise<void>;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

interface Queued {
  id: number;
  task: string;
  payload: unknown;
}

/** Reply of the child: process-entry.ts. */
export type ChildReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

/**
 * glibc malloc settings of the child (read at process start, so a thread could not have them):
 * few arenas, and large blocks (image strips) mapped and unmapped at once rather than kept in
 * the heap. Without them a burst of photos grows the process by a few hundred MB.
 */
const CHILD_MALLOC_ENV = { MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "131072" };

/** `nice` of the child: below request handling, above nothing else. */
const CHILD_NICENESS = 10;

/** Node flags a child may inherit: the TypeScript loader of dev mode, not test-runner flags. */
function childExecArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((a === "--import" || a === "--require" || a === "--loader" || a === "--experimental-loader") && i + 1 < argv.length) {
      out.push(a, argv[++i]);
    } else if (/^--(import|require|loader|experimental-loader)=/.test(a)) out.push(a);
  }
  return out;
}

export function createProcessRunner(opts: {
  file: string;
  maxConcurrent: number;
  idleTimeout: number;
  log: Log;
  /** Called when an idle child has been told to go. */
  onIdleExit?: () => void;
}): ProcessRunner {
  let child: ChildProcess | undefined;
  let nextId = 1;
  /** Every accepted task, sent or not. */
  const pending = new Map<number, Pending>();
  /** Accepted tasks not sent to the child yet. */
  const queue: Queued[] = [];
  let idleTimer: NodeJS.Timeout | undefined;
  let closed = false;

  const settle = (id: number, outcome: { result: unknown } | { error: Error }) => {
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    if ("error" in outcome) p.reject(outcome.error);
    else p.resolve(outcome.result);
  };

  const start = (): ChildProcess => {
    const c = fork(new URL(opts.file), [], {
      execArgv: childExecArgv(),
      // The server's environment, as fork passes by default, plus the malloc settings.
      env: { ...process.env, ...CHILD_MALLOC_ENV },
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    try {
      if (c.pid) setPriority(c.pid, CHILD_NICENESS);
    } catch {
      // Not permitted here: it runs at the server's priority.
    }
    c.on("message", (msg: ChildReply) => {
      settle(msg.id, msg.ok ? { result: msg.result } : { error: new Error(msg.error) });
      pump();
    });
    c.on("exit", (code, signal) => {
      if (child !== c) return;
      child = undefined;
      // Tasks it was running are lost with it; queued ones go to a new child.
      const sent = [...pending.keys()].filter((id) => !queue.some((q) => q.id === id));
      if (sent.length) opts.log.warn("worker process exited with tasks running", { code, signal });
      for (const id of sent) settle(id, { error: new Error(`worker process exited (${signal ?? code})`) });
      pump();
    });
    c.on("error", (err) => opts.log.warn("worker process error", { err: err.message }));
    return c;
  };

  /** Sends queued tasks while there is room; lets an idle child go after idleTimeout. */
  const pump = () => {
    if (closed) return;
    let inFlight = pending.size - queue.length;
    while (queue.length && inFlight < opts.maxConcurrent) {
      const q = queue.shift()!;
      inFlight++;
      child ??= start();
      child.send(q, (err) => {
        if (err) settle(q.id, { error: err });
      });
    }
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = undefined;
    if (!child) return;
    // An idle child keeps neither the server nor a CLI command alive.
    const channel = child.channel as { ref?: () => void; unref?: () => void } | undefined;
    if (pending.size > 0) {
      child.ref();
      channel?.ref?.();
    } else {
      child.unref();
      channel?.unref?.();
      const idle = child;
      idleTimer = setTimeout(() => {
        if (child === idle && pending.size === 0) {
          child = undefined;
          idle.kill();
          opts.onIdleExit?.();
        }
      }, opts.idleTimeout);
      idleTimer.unref();
    }
  };

  return {
    run<T>(task: string, payload: unknown): Promise<T> {
      if (closed) return Promise.reject(new Error("worker pool closed"));
      const id = nextId++;
      const done = new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      });
      queue.push({ id, task, payload });
      pump();
      return done;
    },
    alive: () => (child ? 1 : 0),
    async close() {
      closed = true;
      if (idleTimer) clearTimeout(idleTimer);
      queue.length = 0;
      for (const id of [...pending.keys()]) settle(id, { error: new Error("worker pool closed") });
      const c = child;
      child = undefined;
      if (c && c.exitCode === null && c.signalCode === null) {
        const exited = new Promise<void>((resolve) => c.once("exit", () => resolve()));
        c.ref(); // an idle child was unref'd: waiting for its exit must keep the loop alive
        c.kill();
        await exited;
      }
    },
  };
}
