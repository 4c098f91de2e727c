// `thread.resolve`: a remote reply stored before its parent (AP §4.2 "unknown parents fetched
// asynchronously") gets the parent fetched later and is then linked into the thread.
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { PermanentJobError } from "../errors.ts";
import { parseId } from "../lib/ids.ts";
import { linkReplyToParent } from "../storage/remote-statuses.ts";
import { adjustStatusCounter, findStatusById, type Status } from "../storage/statuses.ts";
import { resolveStatusByUri } from "./resolve/statuses.ts";
import { FederationError } from "./types.ts";

export const THREAD_RESOLVE_JOB = "thread.resolve";
/** A parent that cannot be fetched after this many tries stays unknown. */
const MAX_ATTEMPTS = 5;
/**
 * Parents fetched up one thread at most. Each fetched parent may have an unknown parent of
 * its own: without a bound a peer could serve an endless chain (across hosts, too) and keep
 * us fetching (AP §12 bounds discoveries per incoming activity).
 */
export const MAX_THREAD_DEPTH = 32;

/**
 * Called inside the transaction that stores the reply, so the job exists exactly when it does.
 * `depth`: how many parents up the thread the reply itself was fetched as.
 */
export function enqueueThreadResolve(app: App, statusId: string, depth = 0): void {
  if (depth >= MAX_THREAD_DEPTH) return;
  app.jobs.enqueue(THREAD_RESOLVE_JOB, { statusId, depth }, { maxAttempts: MAX_ATTEMPTS });
}

/**
 * Links a reply to its now-known parent: parent ids, the parent's conversation, the parent's
 * replies_count (public and unlisted replies, as when a reply is stored), then the fan-out again
 * (it left out everyone but mentions while the parent was unknown; every insert is idempotent),
 * unless `fanout: false` (a backfilled reply, which is never fanned out).
 */
export function linkReply(app: App, replyId: string, parent: Status, opts: { fanout?: boolean } = {}): void {
  tx(app.db, () => {
    const reply = findStatusById(app.db, replyId);
    if (!reply || reply.inReplyToId !== null || reply.inReplyToUri !== parent.uri) return;
    // Mastodon carries the original addressee along a self-thread (as persistStatus does).
    const inReplyToAccountId =
      parent.accountId === reply.accountId && parent.inReplyToAccountId ? parent.inReplyToAccountId : parent.accountId;
    linkReplyToParent(app.db, reply.id, { id: parent.id, accountId: inReplyToAccountId, conversationId: parent.conversationId });
    if (reply.visibility === "public" || reply.visibility === "unlisted") adjustStatusCounter(app.db, parent.id, "replies_count", 1);
    // Direct replies reached their mentions already; a second pass would re-open conversations.
    if (reply.visibility !== "direct" && opts.fanout !== false) app.jobs.enqueue("status.fanout", { statusId: reply.id });
  });
}

/** The job: fetch the parent (stored or from its origin); transient failures are retried. */
export async function handleThreadResolve(app: App, payload: { statusId?: unknown; depth?: unknown }): Promise<void> {
  const id = parseId(payload?.statusId);
  if (!id) throw new PermanentJobError("thread.resolve needs a statusId");
  const depth = typeof payload.depth === "number" && Number.isSafeInteger(payload.depth) && payload.depth >= 0 ? payload.depth : 0;
  const reply = findStatusById(app.db, id);
  if (!reply || reply.inReplyToId !== null || !reply.inReplyToUri) return;
  let parent: Status | undefined;
  try {
    parent = await resolveStatusByUri(app, reply.inReplyToUri, { threadDepth: depth + 1 });
  } catch (err) {
    if (err instanceof FederationError && err.permanent) throw new PermanentJobError(err.message);
    throw err;
  }
  if (parent && parent.id !== reply.id) linkReply(app, reply.id, parent);
}

export function registerThreadJobs(app: App): void {
  app.jobs.register(THREAD_RESOLVE_JOB, handleThreadResolve, { queue: "federation" });
}
