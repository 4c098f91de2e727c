// https://docs.joinmastodon.org/methods/endorsements/ and
// https://docs.joinmastodon.org/methods/accounts/#endorse (4.4; legacy /pin and /unpin)
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { optionalUser, requireUser } from "../../../auth.ts";
import { cachePublicIfAnonymous } from "../../../headers.ts";
import { pageParams, setLinkHeader } from "../../../pagination.ts";
import { readAppParams } from "../../../params.ts";
import { toApiAccounts } from "../../../../serializers/account.ts";
import { toApiRelationship } from "../../../../serializers/relationship.ts";
import { requireVisibleAccount } from "../../../../services/account-lookup.ts";
import { endorseAccount, listEndorsements, unendorseAccount } from "../../../../services/endorsements.ts";
import { accountsOfPage } from "../../../../services/relationships.ts";

export function registerEndorsementsRoutes(app: App, r: Router): void {
  for (const [name, run] of [
    ["endorse", endorseAccount],
    ["pin", endorseAccount],
    ["unendorse", unendorseAccount],
    ["unpin", unendorseAccount],
  ] as const) {
    r.post(`/api/v1/accounts/:id/${name}`, async (event) => {
      await readAppParams(app, event);
      const viewer = requireUser(app, event, "write:accounts");
      const target = requireVisibleAccount(app, getRouterParam(event, "id"));
      run(app, viewer.account, target);
      return toApiRelationship(app, viewer.account.id, target.id);
    });
  }

  // Own endorsements: limit=0 returns them all, without a Link header.
  r.get("/api/v1/endorsements", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "read:accounts");
    const all = p.str("limit")?.trim() === "0";
    const page = all ? { limit: -1 } : pageParams(p, 40, 80);
    const { accounts, cursors } = accountsOfPage(app, listEndorsements(app, viewer.account, page));
    if (!all) setLinkHeader(app, event, p, { cursors, limit: page.limit, prevParam: "since_id" });
    return toApiAccounts(app, accounts);
  });

  r.get("/api/v1/accounts/:id/endorsements", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = optionalUser(app, event, "read:accounts");
    const owner = requireVisibleAccount(app, getRouterParam(event, "id"));
    const page = pageParams(p, 40, 80);
    const { accounts, cursors } = accountsOfPage(app, listEndorsements(app, owner, page));
    setLinkHeader(app, event, p, { cursors, limit: page.limit, prevParam: "since_id" });
    cachePublicIfAnonymous(event, viewer !== null);
    return toApiAccounts(app, accounts);
  });
}
