// Accepting verified activities: the dedupe row and the `inbox.process` job of each request,
// written in group commits: the requests that arrive while one batch commits share the next
// commit (one WAL write of the jobs table's pages instead of one each). Each request is
// answered only once its own rows are committed and synced (db/commit-sync.ts): an
// acknowledged activity survives a crash.
import type { App } from "../../app.ts";
import { tx } from "../../db/db.ts";
import type { Id } from "../../lib/ids.ts";
import { rememberActivityId } from "../../storage/inbox-activity-ids.ts";
import { recordPeerInbound } from "../peers.ts";
import type { ApObject } from "../types.ts";

/** Payload of the `inbox.process` job. */
export interface InboxJobPayload {
  activity: ApObject;
  /** The account whose key signed the delivery (its uri equals the activity's actor). */
  signerId: Id;
  /** The local account whose personal inbox received it. */
  recipientId?: Id;
}

export interface Intake {
  /** Activity id for dedupe; null when the activity has none (Mastodon's Add/Remove). */
  activityId: string | null;
  payload: InboxJobPayload;
  /** The signer's domain: the peer is alive (federation_peers). */
  domain: string;
}

interface Waiting {
  intake: Intake;
  resolve: (fresh: boolean) => void;
  reject: (err: unknown) => void;
}

export const INBOX_QUEUE = "inbox";
/** Jobs of the inbox retry transient failures (network) a few times over ~an hour. */
export const INBOX_MAX_ATTEMPTS = 8;

class GroupCommit {
  private waiting: Waiting[] = [];
  private scheduled = false;
  /** Requests between their first byte and their answer (see trackIntake). */
  inProgress = 0;
  /** performance.now() of the last commit. */
  lastFlushAt = -Infinity;

  constructor(private readonly app: App) {}

  add(intake: Intake): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.waiting.push({ intake, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // After the I/O of this loop turn: everything that arrived during the last commit
        // (which blocked the loop) has been read and joins this batch.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.waiting.splice(0);
    if (batch.length === 0) return;
    const app = this.app;
    let fresh: boolean[];
    try {
      fresh = tx(app.db, () => {
        const now = app.now();
        const domains = new Set<string>();
        const out = batch.map(({ intake }) => {
          domains.add(intake.domain);
          if (intake.activityId !== null && !rememberActivityId(app.db, dedupeKey(intake), now)) return false;
          app.jobs.enqueue("inbox.process", intake.payload, { queue: INBOX_QUEUE, maxAttempts: INBOX_MAX_ATTEMPTS });
          return true;
        });
        for (const d of domains) markPeerAlive(app, d);
        return out;
      });
    } catch (e) {
      for (const w of batch) w.reject(e);
      return;
    } finally {
      this.lastFlushAt = performance.now();
    }
    batch.forEach((w, i) => w.resolve(fresh[i]));
  }
}

/**
 * What makes a delivery a repeat: the activity id, per personal inbox. A server without a
 * shared inbox (GoToSocial) sends one post to each addressed user's own inbox; each of those
 * must be processed, since each makes its recipient able to see the post (AP §5.1).
 */
function dedupeKey(intake: Intake): string {
  const recipient = intake.payload.recipientId;
  return recipient === undefined ? intake.activityId! : `${intake.activityId} ${recipient}`;
}

/** Peer bookkeeping must never cost an accepted activity: it runs in its own savepoint. */
function markPeerAlive(app: App, domain: string): void {
  try {
    app.db.transaction(() => recordPeerInbound(app, domain))();
  } catch (e) {
    app.log.warn("recordPeerInbound failed", { domain, err: e });
  }
}

/**
 * Stores the activity's id and its `inbox.process` job, in the next group commit. Resolves
 * once committed: true when it was new, false for a repeat (nothing enqueued).
 */
export function acceptActivity(app: App, intake: Intake): Promise<boolean> {
  return groupCommit(app).add(intake);
}

function groupCommit(app: App): GroupCommit {
  let gc = app.cache.get("federation:inbox-intake") as GroupCommit | undefined;
  if (!gc) app.cache.set("federation:inbox-intake", (gc = new GroupCommit(app)));
  return gc;
}

/** Counts the request as in progress while `fn` runs (the inbox jobs make way for it). */
export async function trackIntake<T>(app: App, fn: () => Promise<T>): Promise<T> {
  const gc = groupCommit(app);
  gc.inProgress++;
  try {
    return await fn();
  } finally {
    gc.inProgress--;
  }
}

// Accepting comes first. Processing shares the event loop, and each processed activity costs
// a commit (an fsync) of its own, so under a burst of deliveries the inbox jobs wait for a lull:
// no request in progress and no commit of the intake for LULL_MS. A job waits at most
// MAX_DEFER_MS, so that processing still advances under a sustained load.
const LULL_MS = 5;
const MAX_DEFER_MS = 250;

/** Resolves once the intake is idle (or after MAX_DEFER_MS). */
export async function waitForIntakeLull(app: App): Promise<void> {
  const gc = groupCommit(app);
  const until = performance.now() + MAX_DEFER_MS;
  for (;;) {
    const now = performance.now();
    if (now >= until) return;
    if (gc.inProgress === 0 && now - gc.lastFlushAt >= LULL_MS) return;
    await new Promise((r) => setTimeout(r, LULL_MS));
  }
}
