// `thread.backfill` (issue 19 part 1): completes a remote thread. Walks up the missing
// ancestors (`inReplyTo`), then down the `replies` collections of the thread's remote posts
// (paged: first/next, items as ids or embedded objects), storing what is missing as backfill
// (no notification, fan-out, stream or delivery; ids from the publication time). Bounded by
// threadBackfillMaxPosts/MaxDepth/MaxPages and a time limit (an AbortSignal on each request,
// so a slow host cannot hold the job past it); each host asked politely (backfill-hosts.ts);
// suspended domains and accounts are never asked; all through the safe fetch.
import type { App } from "../app.ts";
import { parseId } from "../lib/ids.ts";
import { addAsyncRefreshResults, deleteAsyncRefreshesBefore, FINISHED_REFRESH_TTL_MS, finishAsyncRefresh } from "../storage/async-refreshes.ts";
import { findStatusByLink } from "../storage/status-urls.ts";
import { findStatusById, replyIdsOf, type Status } from "../storage/statuses.ts";
import { isSuspendedDomain } from "./domain-policy.ts";
import { fetchApObject } from "./fetch-object.ts";
import { hostOf, httpUrl, idOf, isObject, sameOrigin } from "./parse/common.ts";
import { collectionItems, type PageWalk } from "./collection-pages.ts";
import { mapLimited } from "../lib/map-limited.ts";
import { isNoteLike } from "./parse/note.ts";
import { resolveStatusFromDocument } from "./resolve/statuses.ts";
import { politely } from "./backfill-hosts.ts";
import { findAccountById } from "../storage/accounts.ts";
import { linkReply } from "./thread-resolve.ts";
import type { ApObject } from "./types.ts";

interface Walk {
  app: App;
  refreshId: string;
  deadline: number;
  /** Aborts at the deadline: a request in flight stops there too. */
  signal: AbortSignal;
  posts: number;
  pages: number;
  /** Statuses this walk stored: never fanned out when linked. */
  stored: Set<string>;
  /** Documents fetched for a status (by uri), kept until its `replies` are read: one GET per post. */
  docs: Map<string, ApObject>;
}

const expired = (w: Walk) => Date.now() > w.deadline || w.signal.aborted;

const isSuspendedAccount = (app: App, accountId: string) => findAccountById(app.db, accountId)?.suspendedAt != null;

/** May this walk ask `url`'s host? Not when out of time or the domain is suspended. */
const mayAsk = (w: Walk, url: string) => !expired(w) && !!httpUrl(url) && !isSuspendedDomain(w.app, url);

/** A status by uri, fetched from its own origin when missing (counted as a result). */
async function resolve(w: Walk, uri: string, embedded?: ApObject): Promise<Status | undefined> {
  const known = findStatusByLink(w.app.db, uri, { remoteOnly: true });
  if (known) return known;
  // Our own posts are all stored: a uri on this server that is not, does not exist.
  if (w.posts <= 0 || !mayAsk(w, uri) || hostOf(uri) === hostOf(w.app.baseUrl)) return undefined;
  w.posts--;
  try {
    const doc = embedded ?? (await politely(w.app, uri, w.signal, () => fetchApObject(w.app, uri, { exactId: false, signal: w.signal })));
    const status = doc && (await resolveStatusFromDocument(w.app, doc, { backfill: true, signal: w.signal }));
    if (status && doc && !embedded && status.uri === doc.id) w.docs.set(status.uri, doc);
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
    return await politely(w.app, url, w.signal, () => fetchApObject(w.app, url, { signal: w.signal }));
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

/** The walk's view of a `replies` collection: pages fetched lazily, within its page and post bounds. */
const pageWalk = (w: Walk): PageWalk => ({
  get pages() {
    return w.pages;
  },
  set pages(n: number) {
    w.pages = n;
  },
  stop: () => expired(w) || w.posts <= 0,
  fetch: (id) => fetchDoc(w, id),
});

/** Items of one `replies` collection resolved at once. */
const ITEMS_AT_ONCE = 8;

/** Posts of one thread walked at once (each host still sees at most backfillHostConcurrency requests). */
const WALKERS = 4;

/** One post of the walk down: its `replies` collection (remote posts), then its stored replies queued. */
async function visit(w: Walk, status: Status, depth: number, maxDepth: number, queue: { status: Status; depth: number }[], visited: Set<string>): Promise<void> {
  const cached = status.uri ? w.docs.get(status.uri) : undefined;
  if (cached) w.docs.delete(status.uri!);
  // The replies of a suspended account's post are not asked for (nor stored: its author is refused).
  if (!status.local && w.posts > 0 && status.uri && !isSuspendedAccount(w.app, status.accountId)) {
    const doc = cached ?? (await fetchDoc(w, status.uri));
    const replies = doc?.replies;
    if (doc && replies) {
      // Items are resolved a batch at a time, several at once (each host still sees at most
      // backfillHostConcurrency requests): one by one, a long thread would take minutes.
      let batch: { uri: string; embedded?: ApObject }[] = [];
      const flush = async () => {
        await mapLimited(batch, ITEMS_AT_ONCE, (b) => resolve(w, b.uri, b.embedded));
        batch = [];
      };
      for await (const { item, from } of collectionItems(pageWalk(w), replies, doc.id as string)) {
        const uri = idOf(item);
        if (!uri || !httpUrl(uri) || w.posts <= 0) continue;
        // An embedded object is trusted only from its own origin; otherwise it is fetched there.
        const embedded = isObject(item) && isNoteLike(item) && sameOrigin(uri, from) ? item : undefined;
        batch.push({ uri, embedded });
        if (batch.length >= ITEMS_AT_ONCE * 2) await flush();
      }
      await flush();
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
      signal: AbortSignal.timeout(c.threadBackfillTimeout * 1000),
      docs: new Map(),
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

// Rows are kept as long as the longer interval needs them (profiles share the table).
const backfillInterval = (app: App) => Math.max(app.config.threadBackfillInterval, app.config.profileBackfillInterval) * 1000;
