// https://docs.joinmastodon.org/methods/accounts/#search — accounts by handle, username or
// display name; `resolve` looks an exact remote handle up through WebFinger.
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { toApiAccountsByIds } from "../../../../serializers/account.ts";
import { findAccounts } from "../../../../services/search.ts";
import { requireUser } from "../../../auth.ts";
import { pageParams } from "../../../pagination.ts";
import { readAppParams } from "../../../params.ts";
import { searchOffset } from "../v2/search.ts";

export function registerAccountsSearchRoutes(app: App, r: Router): void {
  r.get("/api/v1/accounts/search", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "read:accounts");
    const q = p.requireStr("q");
    const page = pageParams(p, 40, 80);
    const accounts = await findAccounts(app, viewer.account, q, {
      resolve: p.bool("resolve") ?? false,
      following: p.bool("following") ?? false,
      limit: page.limit,
      offset: searchOffset(p),
      // Unlike v2 search, this endpoint reports an unreachable remote server (503).
      strict: true,
    });
    return toApiAccountsByIds(app, accounts);
  });
}
