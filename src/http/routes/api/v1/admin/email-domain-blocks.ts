// https://docs.joinmastodon.org/methods/admin/email_domain_blocks/ (endpoints-admin.md §4).
import { getRouterParam } from "h3";
import type { App } from "../../../../../app.ts";
import type { Router } from "../../../../router.ts";
import { blockEmailDomain, listEmailDomainBlocks, requireEmailDomainBlock, unblockEmailDomain } from "../../../../../admin/email-domain-blocks.ts";
import { toApiAdminEmailDomainBlocks } from "../../../../../serializers/admin-email-domain-block.ts";
import { adminScopes, requirePermission } from "../../../../admin-auth.ts";
import { pageParams, setLinkHeader } from "../../../../pagination.ts";
import { readAppParams } from "../../../../params.ts";

const READ = adminScopes("read", "email_domain_blocks");
const WRITE = adminScopes("write", "email_domain_blocks");

export function registerAdminEmailDomainBlocksRoutes(app: App, r: Router): void {
  r.get("/api/v1/admin/email_domain_blocks", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, READ, "manage_blocks");
    const k = pageParams(p, 100, 200);
    const blocks = listEmailDomainBlocks(app, actor, k);
    setLinkHeader(app, event, p, { cursors: blocks.map((b) => b.id), limit: k.limit, prevParam: "min_id" });
    return toApiAdminEmailDomainBlocks(app, blocks);
  });

  r.get("/api/v1/admin/email_domain_blocks/:id", (event) => {
    requirePermission(app, event, READ, "manage_blocks");
    return toApiAdminEmailDomainBlocks(app, [requireEmailDomainBlock(app, getRouterParam(event, "id"))])[0];
  });

  r.post("/api/v1/admin/email_domain_blocks", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, WRITE, "manage_blocks");
    const block = blockEmailDomain(app, actor, { domain: p.str("domain"), allowWithApproval: p.bool("allow_with_approval") });
    return toApiAdminEmailDomainBlocks(app, [block])[0];
  });

  r.delete("/api/v1/admin/email_domain_blocks/:id", async (event) => {
    await readAppParams(app, event);
    const actor = requirePermission(app, event, WRITE, "manage_blocks");
    unblockEmailDomain(app, actor, requireEmailDomainBlock(app, getRouterParam(event, "id")));
    return {};
  });
}
