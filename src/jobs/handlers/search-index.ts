import type { App } from "../../app.ts";
import { PermanentJobError } from "../../errors.ts";
import { parseId } from "../../lib/ids.ts";
import { AUTHOR_JOB, indexBatch, markStatusIndexBuilt, REBUILD_JOB } from "../../search/status-index.ts";

/** Statuses indexed per run of a job (each batch commits on its own); then the job goes on as a new one. */
const PER_RUN = 5000;
const BATCH = 500;

/** Indexes up to PER_RUN statuses after `afterId`; the id to go on from, or null when done. */
function run(app: App, afterId: string, authorId?: string): string | null {
  let cursor = afterId;
  for (let done = 0; done < PER_RUN; ) {
    const b = indexBatch(app.db, cursor, BATCH, authorId);
    if (!b) return null;
    cursor = b.lastId;
    done += b.seen;
  }
  return cursor;
}

/**
 * `search.rebuild` {afterId?}: indexes the statuses that were there before the index was
 * (an upgraded instance), in runs of PER_RUN so that a stop waits for one run at most.
 */
export function handleSearchRebuild(app: App, payload: { afterId?: unknown }): void {
  const next = run(app, parseId(payload?.afterId) ?? "0");
  if (next) app.jobs.enqueue(REBUILD_JOB, { afterId: next });
  else markStatusIndexBuilt(app.db);
}

/** `search.author` {accountId, afterId?}: an author changed `indexable`; their public posts again. */
export function handleSearchAuthor(app: App, payload: { accountId?: unknown; afterId?: unknown }): void {
  const accountId = parseId(payload?.accountId);
  if (!accountId) throw new PermanentJobError("search.author needs accountId");
  const next = run(app, parseId(payload?.afterId) ?? "0", accountId);
  if (next) app.jobs.enqueue(AUTHOR_JOB, { accountId, afterId: next });
}
