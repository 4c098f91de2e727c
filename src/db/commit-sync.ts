import { open } from "node:fs/promises";
import { type DB, totalChanges } from "./db.ts";

// The server's commits reach the disk off the event loop.
//
// With synchronous=FULL, SQLite fsyncs the WAL inside every COMMIT, on the thread that
// commits: the server's one event loop. A disk whose fsync now and then takes 100-600 ms
// (shared VPS storage; measured on our own machines with a 40-line probe and no roost
// running) then stalls every request, reads included, for that long: the soak's p99 jumped
// from ~10 to 300-600 ms in such minutes.
//
// So the server's connection runs with synchronous=NORMAL (a commit writes its WAL frames
// into the OS's cache and returns) and the durability moves here: a write request is answered
// only after `flush()`, which fdatasyncs the WAL on libuv's thread pool. What was acknowledged
// still survives a power cut; meanwhile the loop serves other requests. Flushes coalesce (a
// group commit): one sync at a time, and every flush that arrives while one runs shares the
// next one, which starts after their commits and so covers them.
//
// SQLite keeps NORMAL safe on its own: it syncs the WAL before each checkpoint copies frames
// into the database file, the database file after, and the WAL header when the log restarts.
// Other connections (roost commands, the backup) keep FULL.

export interface CommitSync {
  /** Resolves once every commit made before the call is on disk. */
  flush(): Promise<void>;
  /** Syncs started so far (tests and metrics). */
  syncs(): number;
  /**
   * Rows the connection has written so far (SQLite's total_changes()): a request compares it
   * before and after, and one that wrote nothing (a refusal, a 404) needs no sync.
   */
  writes(): bigint;
}

export interface CommitSyncOptions {
  /** Makes the WAL file durable; the default opens it and fdatasyncs it. Tests slow it down. */
  syncFile?: (path: string) => Promise<void>;
}

/** fdatasync of `path`: the appended frames and the file's size (what recovery reads). */
async function datasync(path: string): Promise<void> {
  let fh;
  try {
    fh = await open(path, "r");
  } catch (e) {
    // No WAL: the last checkpoint moved everything into the database file and synced it.
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  try {
    await fh.datasync();
  } finally {
    await fh.close();
  }
}

/** Switches `db` (a file database in WAL mode) to NORMAL and returns its flush. */
export function deferCommitSync(db: DB, opts: CommitSyncOptions = {}): CommitSync {
  const writes = () => totalChanges(db);
  if (db.memory) return { flush: () => Promise.resolve(), syncs: () => 0, writes };
  const wal = `${db.name}-wal`;
  const syncFile = opts.syncFile ?? datasync;
  db.pragma("synchronous = NORMAL");
  let count = 0;
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;

  const start = (): Promise<void> => {
    count++;
    const p = syncFile(wal);
    running = p;
    const clear = () => {
      if (running === p) running = null;
    };
    p.then(clear, clear);
    return p;
  };

  const idle = () => undefined;
  return {
    flush() {
      if (next) return next;
      if (!running) return start();
      // The running sync may have begun before the caller's commit: the caller waits for the
      // next one, shared with everyone else who arrives meanwhile.
      next = running.then(idle, idle).then(() => {
        next = null;
        return start();
      });
      return next;
    },
    syncs: () => count,
    writes,
  };
}
