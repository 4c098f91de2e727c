// https://docs.joinmastodon.org/methods/follow_requests/
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { requireUser } from "../../../auth.ts";
import { pageParams, setLinkHeader } from "../../../pagination.ts";
import { readAppParams } from "../../../params.ts";
import { notFound } from "../../../../errors.ts";
import { parseId } from "../../../../lib/ids.ts";
import { toApiAccounts } from "../../../../serializers/account.ts";
import { toApiRelationship } from "../../../../serializers/relationship.ts";
import { authorizeFollowRequest, listFollowRequests, rejectFollowRequest } from "../../../../services/follows.ts";
import { accountsOfPage } from "../../../../services/relationships.ts";

export function registerFollowRequestsRoutes(app: App, r: Router): void {
  r.get("/api/v1/follow_requests", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "read:follows");
    const page = pageParams(p, 40, 80);
    const { accounts, cursors } = accountsOfPage(app, listFollowRequests(app, viewer.account, page));
    setLinkHeader(app, event, p, { cursors, limit: page.limit, prevParam: "since_id" });
    return toApiAccounts(app, accounts);
  });

  // The path id is the requesting account's id; the answer is the relationship to it.
  for (const [name, run] of [
    ["authorize", authorizeFollowRequest],
    ["reject", rejectFollowRequest],
  ] as const) {
    r.post(`/api/v1/follow_requests/:id/${name}`, async (event) => {
      await readAppParams(app, event);
      const viewer = requireUser(app, event, "write:follows");
      const requesterId = parseId(getRouterParam(event, "id"));
      if (!requesterId) throw notFound();
      run(app, viewer.account, requesterId);
      return toApiRelationship(app, viewer.account.id, requesterId);
    });
  }
}
