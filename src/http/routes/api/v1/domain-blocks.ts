// https://docs.joinmastodon.org/methods/domain_blocks/ (a user's own blocks of remote domains)
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { requireUser } from "../../../auth.ts";
import { pageParams, setLinkHeader } from "../../../pagination.ts";
import { readAppParams } from "../../../params.ts";
import {
  blockDomain,
  listDomainBlocks,
  previewDomainBlock,
  requireDomainParam,
  unblockDomain,
} from "../../../../services/account-domain-blocks.ts";

export function registerDomainBlocksRoutes(app: App, r: Router): void {
  r.get("/api/v1/domain_blocks", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "read:blocks");
    const page = pageParams(p, 100, 200);
    const rows = listDomainBlocks(app, viewer.account, page);
    setLinkHeader(app, event, p, { cursors: rows.map((x) => x.cursor), limit: page.limit, prevParam: "since_id" });
    return rows.map((x) => x.domain);
  });

  r.post("/api/v1/domain_blocks", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "write:blocks");
    blockDomain(app, viewer.account, requireDomainParam(p.str("domain")));
    return {};
  });

  r.delete("/api/v1/domain_blocks", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "write:blocks");
    unblockDomain(app, viewer.account, p.str("domain"));
    return {};
  });

  // 4.3: how many follows a block would sever (DomainBlockPreview).
  r.get("/api/v1/domain_blocks/preview", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "write:blocks");
    return previewDomainBlock(app, viewer.account, requireDomainParam(p.str("domain")));
  });
}
