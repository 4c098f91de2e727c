// POST /api/v1/follows: Mastodon's old remote-follow endpoint (removed in 3.x; kept because the
// seed lists it). `uri` is a handle (`user@domain`); the answer is the followed Account.
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { requireUser } from "../../../auth.ts";
import { readAppParams } from "../../../params.ts";
import { toApiAccount } from "../../../../serializers/account.ts";
import { followByHandle } from "../../../../services/follows.ts";

export function registerFollowsRoutes(app: App, r: Router): void {
  r.post("/api/v1/follows", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "write:follows");
    return toApiAccount(app, await followByHandle(app, viewer.account, p.str("uri")));
  });
}
