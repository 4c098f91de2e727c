// A remote actor's featured hashtags: its `featuredTags` collection, read by a job after each
// fetch of the actor (Mastodon's SynchronizeFeaturedTagsCollectionService), and kept up to
// date by the Add / Remove of a Hashtag it sends (federation/inbox/featured.ts).
import type { App } from "../../app.ts";
import { tx } from "../../db/db.ts";
import { PermanentJobError } from "../../errors.ts";
import { parseId } from "../../lib/ids.ts";
import { isValidTagName, normalizeTag } from "../../lib/tags.ts";
import { type Account, findAccountById } from "../../storage/accounts.ts";
import { countFeaturedTags, deleteFeaturedTag, findFeaturedTagByTag, insertFeaturedTag, replaceFeaturedTags } from "../../storage/featured-tags.ts";
import { findOrCreateTag, findTagByName } from "../../storage/tags.ts";
import { fetchApObject } from "../fetch-object.ts";
import { asArray, hasType, httpUrl, idOf, isObject, sameOrigin, str } from "../parse/common.ts";
import type { ApObject } from "../types.ts";

export const FEATURED_TAGS_SYNC_JOB = "account.featured-tags";
/** FeaturedTag::LIMIT: what Mastodon reads of a remote collection; also the most we keep. */
const MAX_TAGS = 10;
/** Pages of a paged collection followed before giving up. */
const MAX_PAGES = 3;

export interface RemoteHashtag {
  /** Without `#`, as the owner spelt it. */
  name: string;
  href: string | null;
}

/** A Hashtag object → name and href; undefined unless it names a valid tag. */
export function parseHashtag(v: unknown): RemoteHashtag | undefined {
  if (!isObject(v) || !hasType(v, "Hashtag")) return undefined;
  const name = str(v.name)?.trim().replace(/^#/, "");
  if (!name || !isValidTagName(name)) return undefined;
  return { name, href: httpUrl(v.href) ?? null };
}

/** Queues a read of the actor's featured tags (called where a fetched actor was just stored). */
export function scheduleFeaturedTagsSync(app: App, account: Account): void {
  if (account.domain === null || account.suspendedAt !== null || !account.featuredTagsUrl) return;
  app.jobs.enqueue(FEATURED_TAGS_SYNC_JOB, { accountId: account.id }, { maxAttempts: 3 });
}

const itemsOf = (page: ApObject) => asArray(page.orderedItems ?? page.items);

/** The collection's Hashtags, following `first` and `next` on the owner's server, at most MAX_TAGS. */
async function readCollection(app: App, account: Account, url: string): Promise<RemoteHashtag[] | undefined> {
  const root = await fetchApObject(app, url);
  if (!root) return undefined;
  const out: RemoteHashtag[] = [];
  let page: ApObject | undefined = root;
  for (let n = 0; page && out.length < MAX_TAGS && n <= MAX_PAGES; n++) {
    for (const item of itemsOf(page)) {
      const tag = parseHashtag(item);
      if (tag && !out.some((t) => normalizeTag(t.name) === normalizeTag(tag.name))) out.push(tag);
    }
    // The root may embed or link its first page; pages link the next one.
    const link: unknown = n === 0 ? root.first : page.next;
    if (isObject(link)) page = link;
    else {
      const linkUrl = idOf(link);
      page = linkUrl && sameOrigin(linkUrl, account.uri) ? await fetchApObject(app, linkUrl) : undefined;
    }
  }
  return out.slice(0, MAX_TAGS);
}

/** The job: reads the collection and makes the stored featured tags exactly what it lists. */
export async function syncFeaturedTags(app: App, payload: { accountId?: unknown }): Promise<void> {
  const id = parseId(payload?.accountId);
  if (!id) throw new PermanentJobError(`${FEATURED_TAGS_SYNC_JOB} needs an accountId`);
  const account = findAccountById(app.db, id);
  const url = account?.featuredTagsUrl;
  if (!account || account.domain === null || account.suspendedAt !== null || !url) return;
  // A collection elsewhere than on the actor's own server is not the actor's to claim.
  if (!sameOrigin(url, account.uri)) return;
  const tags = await readCollection(app, account, url);
  if (!tags) return;
  tx(app.db, () => {
    const now = app.now();
    const rows = tags.map((t) => ({
      id: app.ids.next(),
      tagId: findOrCreateTag(app.db, { id: app.ids.next(), name: normalizeTag(t.name), display: t.name, at: now }).id,
      name: t.name,
      url: t.href,
      createdAt: now,
    }));
    replaceFeaturedTags(app.db, account.id, rows);
  });
}

/** Add of a Hashtag to the actor's featured collection. */
export function addRemoteFeaturedTag(app: App, account: Account, tag: RemoteHashtag): void {
  tx(app.db, () => {
    const stored = findOrCreateTag(app.db, { id: app.ids.next(), name: normalizeTag(tag.name), display: tag.name, at: app.now() });
    if (findFeaturedTagByTag(app.db, account.id, stored.id) || countFeaturedTags(app.db, account.id) >= MAX_TAGS) return;
    insertFeaturedTag(app.db, { id: app.ids.next(), accountId: account.id, tagId: stored.id, name: tag.name, url: tag.href, createdAt: app.now() });
  });
}

/** Remove of a Hashtag from the actor's featured collection. */
export function removeRemoteFeaturedTag(app: App, account: Account, tag: RemoteHashtag): void {
  const stored = findTagByName(app.db, normalizeTag(tag.name));
  const featured = stored && findFeaturedTagByTag(app.db, account.id, stored.id);
  if (featured) deleteFeaturedTag(app.db, featured.id);
}
