import type { DB } from "./db.ts";

// Work that must wait until the write it describes is durable (live-stream events): queued
// while a transaction is open, run after the outermost commit, dropped by a rollback. A
// savepoint that rolls back drops only what was queued inside it (`tx` and `savepoint` in
// db.ts keep the marks). The work never runs inside the transaction and never reaches it:
// a callback that throws is reported to `onError` and the others still run.

interface Pending {
  fns: (() => void)[];
  onError: (err: unknown) => void;
}

const pending = new WeakMap<DB, Pending>();

/** Runs `fn` once the current transaction commits (at once when none is open). */
export function afterCommit(db: DB, fn: () => void, onError: (err: unknown) => void = () => {}): void {
  if (!db.inTransaction) {
    // A transaction committed outside tx() may have left work behind: it goes first.
    runAfterCommit(db);
    safely(fn, onError);
    return;
  }
  let p = pending.get(db);
  if (!p) pending.set(db, (p = { fns: [], onError }));
  p.fns.push(fn);
}

/** How much work is queued: a savepoint's mark. */
export function pendingMark(db: DB): number {
  return pending.get(db)?.fns.length ?? 0;
}

/** Drops the work queued since `mark` (its savepoint or transaction rolled back). */
export function dropPendingSince(db: DB, mark: number): void {
  const p = pending.get(db);
  if (p && p.fns.length > mark) p.fns.length = mark;
}

/** Runs the queued work; called once the outermost transaction has committed. */
export function runAfterCommit(db: DB): void {
  const p = pending.get(db);
  if (!p) return;
  pending.delete(db);
  for (const fn of p.fns) safely(fn, p.onError);
}

function safely(fn: () => void, onError: (err: unknown) => void): void {
  try {
    fn();
  } catch (e) {
    try {
      onError(e);
    } catch {
      // Reporting must not fail the writer either.
    }
  }
}
