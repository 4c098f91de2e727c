// https://docs.joinmastodon.org/methods/suggestions/ — GET /api/v2/suggestions (Suggestion[]),
// the deprecated GET /api/v1/suggestions (Account[]) and DELETE /api/v1/suggestions/:account_id.
// Offset paging without a Link header, as Mastodon (conventions.md §(b)); v1 takes no offset.
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { toApiAccounts } from "../../../../serializers/account.ts";
import { toApiSuggestions } from "../../../../serializers/suggestion.ts";
import { dismissSuggestion, followSuggestions } from "../../../../services/suggestions.ts";
import { requireUser } from "../../../auth.ts";
import { pageParams } from "../../../pagination.ts";
import { readAppParams } from "../../../params.ts";
import { searchOffset } from "../v2/search.ts";

export function registerSuggestionsRoutes(app: App, r: Router): void {
  r.get("/api/v2/suggestions", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "read:accounts");
    const page = { limit: pageParams(p, 40, 80).limit, offset: searchOffset(p) };
    return toApiSuggestions(app, followSuggestions(app, viewer.account.id, page));
  });

  r.get("/api/v1/suggestions", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "read:accounts");
    // Deprecated since 3.4 (2021-05-16).
    event.res.headers.set("deprecation", "@1621123200");
    const found = followSuggestions(app, viewer.account.id, { limit: pageParams(p, 40, 80).limit, offset: 0 });
    return toApiAccounts(app, found.map((s) => s.account));
  });

  r.delete("/api/v1/suggestions/:account_id", async (event) => {
    await readAppParams(app, event);
    const viewer = requireUser(app, event, "write:accounts");
    dismissSuggestion(app, viewer.account.id, getRouterParam(event, "account_id"));
    return {};
  });
}
