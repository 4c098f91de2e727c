// https://docs.joinmastodon.org/methods/search/#v2 — accounts, hashtags and (by URL) statuses.
// Roost's seed requires a token (Mastodon lets anonymous callers search without resolve).
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { badRequest } from "../../../../errors.ts";
import { parseId } from "../../../../lib/ids.ts";
import { toApiAccountsByIds } from "../../../../serializers/account.ts";
import { toApiStatusesJson } from "../../../../serializers/status.ts";
import { toApiTags } from "../../../../serializers/tag.ts";
import { search, type SearchType } from "../../../../services/search.ts";
import { requireUser } from "../../../auth.ts";
import { jsonText } from "../../../headers.ts";
import { pageParams } from "../../../pagination.ts";
import { type Params, readAppParams } from "../../../params.ts";

const TYPES: readonly string[] = ["accounts", "hashtags", "statuses"];

/** `offset` of the search endpoints: 0 when absent, 400 when negative (Mastodon's wording). */
export function searchOffset(p: Params): number {
  const offset = p.int("offset") ?? 0;
  if (offset < 0) throw badRequest("Pagination values for `offset` and `limit` must be positive");
  return offset;
}

export function registerSearchRoutes(app: App, r: Router): void {
  r.get("/api/v2/search", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "read:search");
    const q = p.requireStr("q");
    const page = pageParams(p, 20, 40);
    const offset = searchOffset(p);
    const type = p.str("type")?.trim() || undefined;
    const empty = { accounts: [], statuses: [], hashtags: [], collections: [] };
    // An unknown type selects no category, as Mastodon's SearchService does.
    if (type !== undefined && !TYPES.includes(type)) return empty;
    const res = await search(app, viewer.account, {
      q,
      type: type as SearchType | undefined,
      resolve: p.bool("resolve") ?? false,
      limit: page.limit,
      offset,
      following: p.bool("following") ?? false,
      accountId: parseId(p.str("account_id")),
      minId: page.minId,
      maxId: page.maxId,
      excludeUnreviewed: p.bool("exclude_unreviewed") ?? false,
    });
    // Statuses as the timelines send them, from cached JSON text; 4.6 collections: roost has none.
    const accounts = JSON.stringify(toApiAccountsByIds(app, res.accounts));
    const statuses = toApiStatusesJson(app, res.statuses, viewer.account.id);
    const hashtags = JSON.stringify(toApiTags(app, res.hashtags, viewer.account.id));
    return jsonText(event, `{"accounts":${accounts},"statuses":${statuses},"hashtags":${hashtags},"collections":[]}`);
  });
}
