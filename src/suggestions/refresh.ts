// The periodic task suggestions.refresh: the global ranking of follow suggestions (Mastodon's
// follow_recommendations view, refreshed on a schedule there too) computed by reads, then
// stored. Reads and writes go by pages of at most PAGE rows (reads) or WRITE_PAGE rows
// (writes, only the rows that changed), each in its own short transaction, with the event
// loop let go between them: the ranking as one statement held the loop for about 1 s at 100k
// posts, and rewriting the whole table another 50-130 ms.
import type { App } from "../app.ts";
import { readTx, tx } from "../db/db.ts";
import { idAt, type Id } from "../lib/ids.ts";
import {
  activeLocalAccountIds,
  type FollowRecommendation,
  followedPage,
  deleteFollowRecommendations,
  followRecommendationsPage,
  type GlobalReason,
  interactionsPage,
  rankableAccountIds,
  REASONS,
  upsertFollowRecommendations,
} from "../storage/suggestions.ts";

export const SUGGESTIONS_REFRESH_TASK = "suggestions.refresh";
export const SUGGESTIONS_REFRESH_EVERY_MS = 60 * 60_000;

/** Mastodon's window (30 days) and threshold (5 followers, 5 interactions). */
const WINDOW_MS = 30 * 86_400_000;
const MINIMUM = 5;
/** Rows read per slice: a few ms of work between two turns of the event loop. */
const PAGE = 2000;
/** Rows written per transaction (each commit also waits for the disk). */
const WRITE_PAGE = 500;

const yieldToRequests = () => new Promise((r) => setImmediate(r));

/**
 * most_followed: for each account, how many local users active in the window follow it.
 * Walks the active users' follows (follows_account), PAGE rows per slice.
 */
async function countFollowers(app: App, since: number): Promise<Map<Id, number>> {
  const counts = new Map<Id, number>();
  const followers = readTx(app.db, () => activeLocalAccountIds(app.db, since));
  let i = 0;
  let after: Id = "0";
  while (i < followers.length) {
    readTx(app.db, () => {
      // At most PAGE rows, and at most PAGE / 10 statements (users who follow nobody).
      let budget = PAGE;
      for (let reads = 0; budget > 0 && reads < PAGE / 10 && i < followers.length; reads++) {
        const page = followedPage(app.db, followers[i], after, budget);
        for (const f of page) counts.set(f.targetId, (counts.get(f.targetId) ?? 0) + 1);
        budget -= page.length;
        if (page.length > 0 && budget === 0) after = page[page.length - 1].id;
        else {
          i++;
          after = "0";
        }
      }
    });
    await yieldToRequests();
  }
  return counts;
}

/** most_interactions: for each author, the boosts and favourites of its posts in the window. */
async function countInteractions(app: App, sinceId: bigint): Promise<Map<Id, number>> {
  const sums = new Map<Id, number>();
  let after = sinceId - 1n;
  for (;;) {
    const page = readTx(app.db, () => interactionsPage(app.db, after, PAGE));
    for (const s of page) sums.set(s.accountId, (sums.get(s.accountId) ?? 0) + s.n);
    if (page.length < PAGE) return sums;
    after = page[page.length - 1].id;
    await yieldToRequests();
  }
}

/**
 * The ranking: most_followed (at least MINIMUM followers among local users active in the last
 * 30 days) and most_interactions (at least MINIMUM boosts and favourites of the account's posts
 * of the last 30 days); only unlocked accounts that opted into discovery, neither suspended,
 * silenced nor moved. Rank: n / (1 + n) per reason, summed (Mastodon's formula). Each slice
 * is read in its own snapshot: a follow or favourite landing during the refresh (a second or
 * so) may count or not, as it would had the refresh started a moment earlier or later.
 */
export async function rankFollowRecommendations(app: App, now: number): Promise<FollowRecommendation[]> {
  const since = now - WINDOW_MS;
  const counts: Record<GlobalReason, Map<Id, number>> = {
    most_followed: await countFollowers(app, since),
    most_interactions: await countInteractions(app, BigInt(idAt(since)) & ~0xffffn),
  };
  const candidates = new Set<Id>();
  for (const reason of REASONS) for (const [id, n] of counts[reason]) if (n >= MINIMUM) candidates.add(id);
  const ids = [...candidates];
  const out: FollowRecommendation[] = [];
  for (let i = 0; i < ids.length; i += PAGE) {
    const chunk = ids.slice(i, i + PAGE);
    const rankable = readTx(app.db, () => rankableAccountIds(app.db, chunk));
    for (const id of chunk) {
      if (!rankable.has(id)) continue;
      const reasons = REASONS.filter((r) => (counts[r].get(id) ?? 0) >= MINIMUM);
      const rank = reasons.reduce((sum, r) => sum + counts[r].get(id)! / (1 + counts[r].get(id)!), 0);
      out.push({ accountId: id, rank, reasons });
    }
    await yieldToRequests();
  }
  return out;
}

/**
 * Brings the stored ranking to `ranked`: the rows that changed or are new written, the rows of
 * accounts no longer ranked dropped, WRITE_PAGE at a time. Between two pages a request may see
 * some accounts ranked anew and others not yet; each row is a whole ranking of its account,
 * and the requests check every suggested account again (storage/suggestions.ts SUGGESTIBLE).
 */
async function storeRanking(app: App, ranked: FollowRecommendation[]): Promise<void> {
  const wanted = new Map(ranked.map((r) => [r.accountId, r]));
  const stale: Id[] = [];
  const unchanged = new Set<Id>();
  for (let after: Id = "0"; ; ) {
    const page = readTx(app.db, () => followRecommendationsPage(app.db, after, PAGE));
    for (const old of page) {
      const r = wanted.get(old.accountId);
      if (!r) stale.push(old.accountId);
      else if (r.rank === old.rank && JSON.stringify(r.reasons) === old.reasons) unchanged.add(old.accountId);
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1].accountId;
    await yieldToRequests();
  }
  const changed = ranked.filter((r) => !unchanged.has(r.accountId));
  for (let i = 0; i < changed.length; i += WRITE_PAGE) {
    tx(app.db, () => upsertFollowRecommendations(app.db, changed.slice(i, i + WRITE_PAGE)));
    await yieldToRequests();
  }
  for (let i = 0; i < stale.length; i += WRITE_PAGE) {
    tx(app.db, () => deleteFollowRecommendations(app.db, stale.slice(i, i + WRITE_PAGE)));
    await yieldToRequests();
  }
}

/** Returns how many accounts the global sources rank. */
export async function refreshSuggestions(app: App): Promise<number> {
  const ranked = await rankFollowRecommendations(app, app.now());
  await storeRanking(app, ranked);
  return ranked.length;
}
