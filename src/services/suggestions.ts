// Follow suggestions (src/suggestions/DESIGN.md), as Mastodon 4.3's AccountSuggestions: each
// source offers up to BATCH_SIZE accounts (featured by the admins, friends of friends, the
// global ranking of most followed and most interactions), merged with the sources that named
// each account, then paged by offset. Mastodon shuffles the merged list and caches it for 15
// minutes; roost keeps the sources' order (featured, friends of friends, global), so offsets
// page through a stable list without a cache, and a follow or a block applies at once.
import type { App } from "../app.ts";
import { readTx } from "../db/db.ts";
import { type Id, parseId } from "../lib/ids.ts";
import { type Account, findAccountsByIds } from "../storage/accounts.ts";
import { featuredSuggestions, friendsOfFriends, globalSuggestions, insertSuggestionMute } from "../storage/suggestions.ts";
import { findAccountById } from "../storage/accounts.ts";

/** Mastodon's AccountSuggestions::BATCH_SIZE: accounts asked of each source. */
const BATCH_SIZE = 40;

/** The 4.3 sources. similar_to_recently_followed needs Mastodon's Elasticsearch: never here. */
export type SuggestionSource = "featured" | "most_followed" | "most_interactions" | "similar_to_recently_followed" | "friends_of_friends";

export interface Suggestion {
  account: Account;
  sources: SuggestionSource[];
}

export function followSuggestions(app: App, viewerId: Id, page: { limit: number; offset: number }): Suggestion[] {
  if (page.limit <= 0) return [];
  return readTx(app.db, () => {
    const v = { viewerId, now: app.now(), limit: BATCH_SIZE };
    const merged = new Map<Id, SuggestionSource[]>();
    const add = (id: Id, sources: SuggestionSource[]) => {
      const had = merged.get(id);
      if (had) had.push(...sources.filter((s) => !had.includes(s)));
      else merged.set(id, [...sources]);
    };
    for (const id of featuredSuggestions(app.db, v)) add(id, ["featured"]);
    for (const id of friendsOfFriends(app.db, v)) add(id, ["friends_of_friends"]);
    for (const g of globalSuggestions(app.db, v)) add(g.id, g.reasons);
    const picked = [...merged].slice(page.offset, page.offset + page.limit);
    const accounts = findAccountsByIds(app.db, picked.map(([id]) => id));
    return picked.flatMap(([id, sources]) => {
      const account = accounts.get(id);
      return account ? [{ account, sources }] : [];
    });
  });
}

/**
 * DELETE /api/v1/suggestions/:account_id: never suggested to the viewer again (Mastodon's
 * FollowRecommendationMute). An unknown account is quietly ignored, as Mastodon's `create`.
 */
export function dismissSuggestion(app: App, viewerId: Id, rawAccountId: unknown): void {
  const id = parseId(rawAccountId);
  if (!id || id === viewerId || !findAccountById(app.db, id)) return;
  insertSuggestionMute(app.db, viewerId, id, app.now());
}
