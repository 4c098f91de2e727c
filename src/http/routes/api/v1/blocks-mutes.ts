// https://docs.joinmastodon.org/methods/blocks/ and https://docs.joinmastodon.org/methods/mutes/
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { requireUser } from "../../../auth.ts";
import { pageParams, setLinkHeader } from "../../../pagination.ts";
import { readAppParams } from "../../../params.ts";
import { toApiAccounts } from "../../../../serializers/account.ts";
import { listBlocks } from "../../../../services/blocks.ts";
import { listMutes } from "../../../../services/mutes.ts";
import { accountsOfPage } from "../../../../services/relationships.ts";

export function registerBlocksMutesRoutes(app: App, r: Router): void {
  r.get("/api/v1/blocks", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "read:blocks");
    const page = pageParams(p, 40, 80);
    const { accounts, cursors } = accountsOfPage(app, listBlocks(app, viewer.account, page));
    setLinkHeader(app, event, p, { cursors, limit: page.limit, prevParam: "since_id" });
    return toApiAccounts(app, accounts);
  });

  // MutedAccount = Account + mute_expires_at.
  r.get("/api/v1/mutes", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "read:mutes");
    const page = pageParams(p, 40, 80);
    const { rows, expiresAt } = listMutes(app, viewer.account, page);
    const { accounts, cursors } = accountsOfPage(app, rows);
    setLinkHeader(app, event, p, { cursors, limit: page.limit, prevParam: "since_id" });
    return toApiAccounts(app, accounts).map((a) => {
      const at = expiresAt.get(a.id);
      return { ...a, mute_expires_at: at == null ? null : new Date(at).toISOString() };
    });
  });
}
