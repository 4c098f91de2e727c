// The items of a remote collection (AS2 Collection / OrderedCollection), page by page, for the
// backfill jobs: `replies` of a post, an actor's outbox and featured collection. Pages are
// fetched lazily, so a walk that has what it needs stops asking.
import { asArray, idOf, isObject, sameOrigin } from "./parse/common.ts";
import type { ApObject } from "./types.ts";

export interface PageWalk {
  /** Pages this walk may still fetch (shared by the job; decremented here). */
  pages: number;
  /** True when the job must stop (out of time or of posts). */
  stop(): boolean;
  /** One page by id: undefined when it cannot be had (404, refused, out of time). */
  fetch(id: string): Promise<ApObject | undefined>;
}

/**
 * Yields each item with the URL of the page it came in (`from`: an embedded object is trusted
 * only from its page's origin). The collection may be embedded or a URL; pages follow `first`,
 * then `next`, each fetched from its id unless it came embedded in a document from the same
 * origin. A page seen before ends the walk (a collection pointing to itself).
 */
export async function* collectionItems(w: PageWalk, collection: unknown, trustedFrom: string): AsyncGenerator<{ item: unknown; from: string }> {
  const seen = new Set<string>();
  let next: unknown = collection;
  let from = trustedFrom;
  while (next !== undefined && next !== null && !w.stop()) {
    let page: ApObject | undefined;
    const id = idOf(next);
    if (isObject(next) && (!id || sameOrigin(id, from))) page = next;
    else if (id && !seen.has(id) && w.pages > 0) {
      w.pages--;
      page = await w.fetch(id);
      from = id;
    }
    if (!page) return;
    const pageId = typeof page.id === "string" ? page.id : undefined;
    if (pageId) {
      if (seen.has(pageId) && page !== collection) return;
      seen.add(pageId);
    }
    for (const item of [...asArray(page.orderedItems), ...asArray(page.items)]) {
      if (w.stop()) return;
      yield { item, from };
    }
    const after = page.first ?? page.next;
    const afterId = idOf(after);
    if (afterId && seen.has(afterId)) return;
    next = after;
  }
}
