import type { App } from "../app.ts";
import { readTx } from "../db/db.ts";
import { compareIds, type Id } from "../lib/ids.ts";
import { normalizeTag } from "../lib/tags.ts";
import { requireVisibleAccount } from "./account-lookup.ts";
import { requireOwnList } from "./lists.ts";
import { requireTrendingLink } from "./trends.ts";
import { isBlocking, isFollowing } from "../storage/relationship-checks.ts";
import { findLiveStatusesCached } from "../storage/status-cache.ts";
import type { Status } from "../storage/statuses.ts";
import {
  accountStatusesPage,
  type AccountStatusesFilter,
  findTagIdsByNames,
  homeTimelinePage,
  linkTimelinePage,
  listTimelinePage,
  type Page,
  type PublicFilter,
  publicTimelinePage,
  tagTimelinePage,
  viewerHides,
} from "../storage/timelines.ts";

export type { Page, PublicFilter, AccountStatusesFilter };

/** Mastodon's TagFeed::LIMIT_PER_MODE: extra tag names considered per any/all/none. */
const TAGS_PER_MODE = 4;

/** Runs a page query and loads its statuses, in page order, in one read transaction. */
function statusesOfPage(app: App, pageIds: () => Id[]): Status[] {
  return readTx(app.db, () => {
    const ids = pageIds();
    const found = findLiveStatusesCached(app, ids);
    return ids.map((id) => found.get(id)).filter((st): st is Status => st !== undefined);
  });
}

export function homeTimeline(app: App, viewerId: Id, page: Page): Status[] {
  return statusesOfPage(app, () => homeTimelinePage(app.db, viewerId, page, app.now()));
}

/** 404 when the list is not the viewer's. */
export function listTimeline(app: App, viewerId: Id, rawListId: unknown, page: Page): Status[] {
  const list = requireOwnList(app, viewerId, rawListId);
  return statusesOfPage(app, () => listTimelinePage(app.db, list.id, viewerId, page, app.now()));
}

export function publicTimeline(app: App, viewerId: Id | null, f: PublicFilter, page: Page): Status[] {
  return statusesOfPage(app, () => publicTimelinePage(app.db, viewerId, f, page, app.now()));
}

export interface TagQuery extends PublicFilter {
  tag: string;
  any?: string[];
  all?: string[];
  none?: string[];
}

/**
 * Posts tagged with `tag` or one of `any`, that also carry every `all` tag and none of the
 * `none` tags. An unknown main tag gives an empty timeline; so does an unknown `all` tag
 * (no post can carry it). Each candidate tag is one indexed page; they are merged here.
 */
export function tagTimeline(app: App, viewerId: Id | null, q: TagQuery, page: Page): Status[] {
  const norm = (names: string[] | undefined) =>
    [...new Set((names ?? []).slice(0, TAGS_PER_MODE).map(normalizeTag).filter(Boolean))];
  const main = normalizeTag(q.tag);
  const any = norm(q.any);
  const all = norm(q.all);
  const none = norm(q.none);
  const ids = findTagIdsByNames(app.db, [main, ...any, ...all, ...none]);
  const mainId = ids.get(main);
  if (!mainId || all.some((n) => !ids.has(n))) return [];
  const candidates = [...new Set([mainId, ...any.map((n) => ids.get(n)).filter((x): x is Id => !!x)])];
  const filter = {
    local: q.local,
    remote: q.remote,
    onlyMedia: q.onlyMedia,
    allTagIds: all.map((n) => ids.get(n)!),
    noneTagIds: none.map((n) => ids.get(n)).filter((x): x is Id => !!x),
  };
  return statusesOfPage(app, () => {
    const hides = viewerHides(app.db, viewerId, app.now());
    const pages = candidates.map((t) => tagTimelinePage(app.db, t, hides, filter, page));
    if (pages.length === 1) return pages[0];
    const ascending = page.minId !== undefined;
    const sorted = [...new Set(pages.flat())].sort((a, b) => (ascending ? compareIds(a, b) : compareIds(b, a)));
    const taken = sorted.slice(0, page.limit);
    return ascending ? taken.reverse() : taken;
  });
}

/**
 * GET /api/v1/timelines/link: public posts carrying the card of a link that trends now (404
 * for any other URL); empty while the link has no card (its page gave none).
 */
export function linkTimeline(app: App, viewerId: Id | null, url: string | undefined, page: Page): Status[] {
  const cardId = requireTrendingLink(app, url).cardId;
  if (!cardId) return [];
  return statusesOfPage(app, () => linkTimelinePage(app.db, cardId, viewerHides(app.db, viewerId, app.now()), page));
}

/**
 * GET /api/v1/accounts/:id/statuses. 404 for unknown or hidden accounts; an empty page for
 * suspended accounts and accounts that block the viewer.
 */
export function accountStatuses(app: App, viewerId: Id | null, rawAccountId: unknown, f: AccountStatusesFilter & { tagged?: string }, page: Page): Status[] {
  const account = requireVisibleAccount(app, rawAccountId);
  if (account.suspendedAt !== null) return [];
  if (viewerId && viewerId !== account.id && isBlocking(app.db, account.id, viewerId)) return [];
  let taggedId: Id | undefined;
  if (f.tagged !== undefined) {
    const name = normalizeTag(f.tagged);
    taggedId = name ? findTagIdsByNames(app.db, [name]).get(name) : undefined;
    if (!taggedId) return [];
  }
  const relation = !viewerId
    ? "anonymous"
    : viewerId === account.id
      ? "owner"
      : isFollowing(app.db, viewerId, account.id)
        ? "follower"
        : "other";
  return statusesOfPage(app, () => accountStatusesPage(app.db, account.id, viewerId, relation, { ...f, taggedId }, page, app.now()));
}
