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

/** Called inside the transaction that stores the reply, so the job exists exactly when it does. */
export function enqueueThreadResolve(app: App, statusId: string): void {
  app.jobs.enqueue(THREAD_RESOLVE_JOB, { statusId }, { maxAttempts: MAX_ATTEMPTS });
}

/**
 * Links a reply to its now-known parent: parent ids, the parent's conversation, the parent's
 * replies_count (public and unlisted replies, as when a reply is stored), then the fan-out again
 * (it left out everyone but mentions while the parent was unknown; every insert is idempotent).
 */
export function linkReply(app: App, replyId: string, parent: Status): void {
  tx(app.db, () => {
    const reply = findStatusById(app.db, replyId);
    if (!reply || reply.inReplyToId !== null || reply.inReplyToUri !== parent.uri) return;
    // Mastodon carries the original addressee along a self-thread (as persistStatus does).
    const inReplyToAccountId =
      parent.accountId === reply.accountId && parent.inReplyToAccountId ? parent.inReplyToAccountId : parent.accountId;
    linkReplyToParent(app.db, reply.id, { id: parent.id, accountId: inReplyToAccountId, conversationId: parent.conversationId });
    if (reply.visibility === "public" || reply.visibility === "unlisted") adjustStatusCounter(app.db, parent.id, "replies_count", 1);
    // Direct replies reached their mentions already; a second pass would re-open conversations.
    if (reply.visibility !== "direct") app.jobs.enqueue("status.fanout", { statusId: reply.id });
  });
}

/** The job: fetch the parent (stored or from its origin); transient failures are retried. */
export async function handleThreadResolve(app: App, payload: { statusId?: unknown }): Promise<void> {
  const id = parseId(payload?.statusId);
  if (!id) throw new PermanentJobError("thread.resolve needs a statusId");
  const reply = findStatusById(app.db, id);
  if (!reply || reply.inReplyToId !== null || !reply.inReplyToUri) return;
  let parent: Status | undefined;
  try {
    parent = await resolveStatusByUri(app, reply.inReplyToUri);
  } catch (err) {
    if (err instanceof FederationError && err.permanent) throw new PermanentJobError(err.message);
    throw err;
  }
  if (parent && parent.id !== reply.id) linkReply(app, reply.id, parent);
}

export function registerThreadJobs(app: App): void {
  app.jobs.register(THREAD_RESOLVE_JOB, handleThreadResolve, { queue: "federation" });
}
