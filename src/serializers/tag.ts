// https://docs.joinmastodon.org/entities/Tag/ (entities-core.md "Tag"): the rich form, with the
// last seven days of use, as v2 search returns hashtags.
import type { App } from "../app.ts";
import { tagUrl } from "../lib/urls.ts";
import { tagDailyUses, type TagRow } from "../storage/tag-search.ts";

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
 * Tags as Mastodon renders them; `history` has seven days, newest first, all values strings.
 * `following`/`featuring` only for a signed-in viewer (roost has no followed or featured
 * tags yet, so they are false).
 */
export function toApiTags(app: App, tags: TagRow[], signedIn: boolean): ApiTag[] {
  const now = app.now();
  const today = now - (now % DAY);
  const uses = tagDailyUses(app.db, tags.map((t) => t.id), app.ids.floor(today - 6 * DAY));
  return tags.map((t) => {
    const byDay = new Map((uses.get(t.id) ?? []).map((u) => [u.day, u]));
    const history: ApiTagHistory[] = [];
    for (let i = 0; i < 7; i++) {
      const day = today - i * DAY;
      const u = byDay.get(day);
      history.push({ day: String(day / 1000), uses: String(u?.uses ?? 0), accounts: String(u?.accounts ?? 0) });
    }
    const out: ApiTag = { id: t.id, name: t.displayName, url: tagUrl(app.baseUrl, t.name), history };
    if (signedIn) Object.assign(out, { following: false, featuring: false });
    return out;
  });
}
