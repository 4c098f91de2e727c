// https://docs.joinmastodon.org/entities/Tag/ (entities-core.md "Tag"): the rich form, with the
// last seven days of use, as v2 search, GET /api/v1/tags/:name and the followed and suggested
// tag lists return hashtags.
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { tagUrl } from "../lib/urls.ts";
import { featuredTagIdsAmong } from "../storage/featured-tags.ts";
import { followedTagIdsAmong } from "../storage/tag-follows.ts";
import { tagDailyUses } from "../storage/tag-history.ts";
import type { TagRow } from "../storage/tag-search.ts";

export interface ApiTagHistory {
  day: string;
  uses: string;
  accounts: string;
}

export interface ApiTag {
  id: string;
  name: string;
  url: string;
  history: ApiTagHistory[];
  following?: boolean;
  featuring?: boolean;
}

const DAY = 86_400_000;

/**
 * Tags as Mastodon renders them, with one query each for the page's history, follows and
 * features. `history` has seven days, newest first: `day` is the UTC midnight in Unix seconds,
 * every value a string (Trends::History). `following`/`featuring` only for a signed-in viewer.
 * A tag not stored yet (id "") has no uses and is neither followed nor featured.
 */
export function toApiTags(app: App, tags: TagRow[], viewerId: Id | null): ApiTag[] {
  const now = app.now();
  const today = now - (now % DAY);
  const ids = tags.map((t) => t.id).filter((id) => id !== "");
  const uses = tagDailyUses(app.db, ids, today - 6 * DAY);
  const following = viewerId ? followedTagIdsAmong(app.db, viewerId, ids) : undefined;
  const featuring = viewerId ? featuredTagIdsAmong(app.db, viewerId, ids) : undefined;
  return tags.map((t) => {
    const byDay = new Map((uses.get(t.id) ?? []).map((u) => [u.day, u]));
    const history: ApiTagHistory[] = [];
    for (let i = 0; i < 7; i++) {
      const day = today - i * DAY;
      const u = byDay.get(day);
      history.push({ day: String(day / 1000), uses: String(u?.uses ?? 0), accounts: String(u?.accounts ?? 0) });
    }
    const out: ApiTag = { id: t.id, name: t.displayName, url: tagUrl(app.baseUrl, t.name), history };
    if (following && featuring) Object.assign(out, { following: following.has(t.id), featuring: featuring.has(t.id) });
    return out;
  });
}

export function toApiTag(app: App, tag: TagRow, viewerId: Id | null): ApiTag {
  return toApiTags(app, [tag], viewerId)[0];
}
