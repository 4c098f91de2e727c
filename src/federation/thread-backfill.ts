// `thread.backfill` (issue 19 part 1): completes a remote thread. Walks up the missing
// ancestors (`inReplyTo`), then down the `replies` collections of the thread's remote posts
// (paged: first/next, items as ids or embedded objects), storing what is missing as backfill
// (no notification, fan-out, stream or delivery; ids from the publication time). Bounded by
// threadBackfillMaxPosts/MaxDepth/MaxPages and a time limit; at most backfillHostConcurrency
// requests at once per host; suspended domains are never asked; all through the safe fetch.
import type { App } from "../app.ts";
import { parseId } from "../lib/ids.ts";
import { addAsyncRefreshResults, deleteAsyncRefreshesBefore, FINISHED_REFRESH_TTL_MS, finishAsyncRefresh } from "../storage/async-refreshes.ts";
import { findStatusByLink } from "../storage/status-urls.ts";
import { findStatusById, replyIdsOf, type Status } from "../storage/statuses.ts";
import { isSuspendedDomain } from "./domain-policy.ts";
import { fetchApObject } from "./fetch-object.ts";
import { asArray, hostOf, httpUrl, idOf, isObject, sameOrigin } from "./parse/common.ts";
import { isNoteLike } from "./parse/note.ts";
import { resolveStatusByUri, resolveStatusFromDocument } from "./resolve/statuses.ts";
import { linkReply } from "./thread-resolve.ts";
import type { ApObject } from "./types.ts";

interface Walk {
  app: App;
  refreshId: string;
  deadline: number;
  posts: number;
  pages: number;
  /** Statuses this walk stored: never fanned out when linked. */
  stored: Set<string>;
}

// Requests in flight per host, per app (state of the app's lifetime, not of the module's).
const inFlight = new WeakMap<App, Map<string, { active: number; waiting: (() => void)[] }>>();

/** Runs `fn` once fewer than backfillHostConcurrency requests to `url`'s host are running. */
async function politely<T>(app: App, url: string, fn: () => Promise<T>): Promise<T> {
  const host = hostOf(url) ?? "";
  let hosts = inFlight.get(app);
  if (!hosts) inFlight.set(app, (hosts = new Map()));
  let slot = hosts.get(host);
  if (!slot) hosts.set(host, (slot = { active: 0, waiting: [] }));
  const s = slot;
  while (s.active >= app.config.backfillHostConcurrency) await new Promise<void>((r) => s.waiting.push(r));
  s.active++;
  try {
    return await fn();
  } finally {
    s.active--;
    s.waiting.shift()?.();
    if (s.active === 0 && s.waiting.length === 0) hosts.delete(host);
  }
}

const expired = (w: Walk) => Date.now() > w.deadline;

/** May this walk ask `url`'s host? Not when out of time or the domain is suspended. */
const mayAsk = (w: Walk, url: string) => !expired(w) && !!httpUrl(url) && !isSuspendedDomain(w.app, url);

/** A status by uri, fetched from its own origin when missing (counted as a result). */
async function resolve(w: Walk, uri: string, embedded?: ApObject): Promise<Status | undefined> {
  const known = findStatusByLink(w.app.db, uri, { remoteOnly: true });
  if (known) return known;
  if (w.posts <= 0 || !mayAsk(w, uri)) return undefined;
  w.posts--;
  try {
    const status = await politely(w.app, uri, () =>
      embedded ? resolveStatusFromDocument(w.app, embedded, { backfill: true }) : resolveStatusByUri(w.app, uri, { backfill: true }),
    );
    if (status) {
      w.stored.add(status.id);
      addAsyncRefreshResults(w.app.db, w.refreshId, 1);
    }
    return status;
  } catch (e) {
    w.app.log.debug("thread backfill: status not fetched", { uri, err: e instanceof Error ? e.message : String(e) });
    return undefined;
  }
}

async function fetchDoc(w: Walk, url: string): Promise<ApObject | undefined> {
  if (!mayAsk(w, url)) return undefined;
  try {
    return await politely(w.app, url, () => fetchApObject(w.app, url));
  } catch (e) {
    w.app.log.debug("thread backfill: document not fetched", { url, err: e instanceof Error ? e.message : String(e) });
    return undefined;
  }
}

/** Up the thread: links each missing parent; returns the top-most post reached. */
async function walkUp(w: Walk, start: Status, maxDepth: number): Promise<Status> {
  let cur = start;
  for (let depth = 0; depth < maxDepth; depth++) {
    if (cur.inReplyToId) {
      const parent = findStatusById(w.app.db, cur.inReplyToId);
      if (!parent) break;
      cur = parent;
      continue;
    }
    if (!cur.inReplyToUri) break;
    const parent = await resolve(w, cur.inReplyToUri);
    if (!parent || parent.id === cur.id) break;
    linkReply(w.app, cur.id, parent, { fanout: !w.stored.has(cur.id) });
    cur = parent;
  }
  return cur;
}

/**
 * The items of a `replies` collection, page by page (first, then next), each page fetched
 * from its id unless it came embedded in a document from the same origin. A page seen
 * before ends the walk (a collection pointing to itself).
 */
async function collectionItems(w: Walk, collection: unknown, trustedFrom: string): Promise<{ item: unknown; from: string }[]> {
  const out: { item: unknown; from: string }[] = [];
  const seen = new Set<string>();
  let next: unknown = collection;
  let from = trustedFrom;
  while (next !== undefined && next !== null && w.pages > 0 && !expired(w)) {
    let page: ApObject | undefined;
    const id = idOf(next);
    if (isObject(next) && (!id || sameOrigin(id, from))) page = next;
    else if (id && !seen.has(id)) {
      w.pages--;
      page = await fetchDoc(w, id);
      from = id;
    }
    if (!page) break;
    const pageId = typeof page.id === "string" ? page.id : undefined;
    if (pageId) {
      if (seen.has(pageId) && page !== collection) break;
      seen.add(pageId);
    }
    for (const item of [...asArray(page.orderedItems), ...asArray(page.items)]) out.push({ item, from });
    const after = page.first ?? page.next;
    const afterId = idOf(after);
    if (afterId && seen.has(afterId)) break;
    next = after;
  }
  return out;
}

/** Posts of one thread walked at once (each host still sees at most backfillHostConcurrency requests). */
const WALKERS = 4;

/** One post of the walk down: its `replies` collection (remote posts), then its stored replies queued. */
async function visit(w: Walk, status: Status, depth: number, maxDepth: number, queue: { status: Status; depth: number }[], visited: Set<string>): Promise<void> {
  if (!status.local && w.posts > 0 && status.uri) {
    const doc = await fetchDoc(w, status.uri);
    const replies = doc?.replies;
    if (doc && replies) {
      for (const { item, from } of await collectionItems(w, replies, doc.id as string)) {
        const uri = idOf(item);
        if (!uri || !httpUrl(uri) || w.posts <= 0) continue;
        // An embedded object is trusted only from its own origin; otherwise it is fetched there.
        const embedded = isObject(item) && isNoteLike(item) && sameOrigin(uri, from) ? item : undefined;
        await resolve(w, uri, embedded);
      }
    }
  }
  if (depth + 1 > maxDepth) return;
  for (const id of replyIdsOf(w.app.db, status.id, 1000)) {
    if (visited.has(id)) continue;
    visited.add(id);
    const child = findStatusById(w.app.db, id);
    if (child) queue.push({ status: child, depth: depth + 1 });
  }
}

/** Down the thread from `root`, breadth first, through stored replies and `replies` collections. */
async function walkDown(w: Walk, root: Status, maxDepth: number): Promise<void> {
  const queue: { status: Status; depth: number }[] = [{ status: root, depth: 0 }];
  const visited = new Set<string>([root.id]);
  let active = 0;
  await new Promise<void>((done) => {
    const pump = () => {
      while (active < WALKERS && queue.length && !expired(w)) {
        const { status, depth } = queue.shift()!;
        active++;
        visit(w, status, depth, maxDepth, queue, visited)
          .catch((e) => w.app.log.debug("thread backfill: post skipped", { id: status.id, err: e instanceof Error ? e.message : String(e) }))
          .finally(() => {
            active--;
            pump();
          });
      }
      if (active === 0) done();
    };
    pump();
  });
}

/** The `thread.backfill` job {statusId, refreshId} (services/thread-refresh.ts enqueues it). */
export async function handleThreadBackfill(app: App, payload: { statusId?: unknown; refreshId?: unknown }): Promise<void> {
  const refreshId = typeof payload?.refreshId === "string" ? payload.refreshId : "";
  const id = parseId(payload?.statusId);
  try {
    const status = id ? findStatusById(app.db, id) : undefined;
    if (!status) return;
    const c = app.config;
    const w: Walk = {
      app,
      refreshId,
      deadline: Date.now() + c.threadBackfillTimeout * 1000,
      posts: c.threadBackfillMaxPosts,
      pages: c.threadBackfillMaxPages,
      stored: new Set(),
    };
    const root = await walkUp(w, status, c.threadBackfillMaxDepth);
    await walkDown(w, root, c.threadBackfillMaxDepth);
  } finally {
    finishAsyncRefresh(app.db, refreshId, app.now());
    deleteAsyncRefreshesBefore(app.db, app.now() - Math.max(FINISHED_REFRESH_TTL_MS, backfillInterval(app)));
  }
}

const backfillInterval = (app: App) => app.config.threadBackfillInterval * 1000;
