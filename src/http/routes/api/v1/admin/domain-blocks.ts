// https://docs.joinmastodon.org/methods/admin/domain_blocks/ and /methods/admin/domain_allows/
// (endpoints-admin.md §3): the federation lists, behind manage_federation.
import { getRouterParam } from "h3";
import type { App } from "../../../../../app.ts";
import type { Router } from "../../../../router.ts";
import { allowDomain, disallowDomain, listDomainAllows, requireDomainAllow } from "../../../../../admin/domain-allows.ts";
import { blockDomain, listDomainBlocks, requireDomainBlock, unblockDomain, updateBlock } from "../../../../../admin/domain-blocks.ts";
import { DomainBlockExistsError } from "../../../../../services/domain-blocks.ts";
import { toApiAdminDomainAllow, toApiAdminDomainBlock } from "../../../../../serializers/admin-domain-block.ts";
import { adminScopes, requirePermission } from "../../../../admin-auth.ts";
import { pageParams, setLinkHeader } from "../../../../pagination.ts";
import { type Params, readAppParams } from "../../../../params.ts";

const BLOCKS_READ = adminScopes("read", "domain_blocks");
const BLOCKS_WRITE = adminScopes("write", "domain_blocks");
const ALLOWS_READ = adminScopes("read", "domain_allows");
const ALLOWS_WRITE = adminScopes("write", "domain_allows");

/** A text field: undefined when not sent, null when sent as null (clears it). */
const optText = (p: Params, k: string): string | null | undefined => (p.raw[k] === null ? null : p.str(k));

/** The fields POST and PUT share (Mastodon's domain_block_params). */
function blockFields(p: Params) {
  return {
    severity: p.str("severity")?.trim() as "noop" | "silence" | "suspend" | undefined,
    rejectMedia: p.bool("reject_media"),
    rejectReports: p.bool("reject_reports"),
    privateComment: optText(p, "private_comment"),
    publicComment: optText(p, "public_comment"),
    obfuscate: p.bool("obfuscate"),
  };
}

export function registerAdminDomainBlocksRoutes(app: App, r: Router): void {
  r.get("/api/v1/admin/domain_blocks", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, BLOCKS_READ, "manage_federation");
    const k = pageParams(p, 100, 500);
    const blocks = listDomainBlocks(app, actor, k);
    setLinkHeader(app, event, p, { cursors: blocks.map((b) => b.id), limit: k.limit, prevParam: "min_id" });
    return blocks.map(toApiAdminDomainBlock);
  });

  r.get("/api/v1/admin/domain_blocks/:id", (event) => {
    requirePermission(app, event, BLOCKS_READ, "manage_federation");
    return toApiAdminDomainBlock(requireDomainBlock(app, getRouterParam(event, "id")));
  });

  r.post("/api/v1/admin/domain_blocks", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, BLOCKS_WRITE, "manage_federation");
    try {
      return toApiAdminDomainBlock(blockDomain(app, actor, { domain: p.str("domain") ?? "", ...blockFields(p) }));
    } catch (e) {
      if (!(e instanceof DomainBlockExistsError)) throw e;
      // Mastodon's ExistingDomainBlockErrorSerializer: the message and the block in the way.
      event.res.status = 422;
      return { error: e.error, existing_domain_block: toApiAdminDomainBlock(e.existing) };
    }
  });

  r.put("/api/v1/admin/domain_blocks/:id", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, BLOCKS_WRITE, "manage_federation");
    const block = requireDomainBlock(app, getRouterParam(event, "id"));
    return toApiAdminDomainBlock(updateBlock(app, actor, block, blockFields(p)));
  });

  r.delete("/api/v1/admin/domain_blocks/:id", async (event) => {
    await readAppParams(app, event);
    const actor = requirePermission(app, event, BLOCKS_WRITE, "manage_federation");
    unblockDomain(app, actor, requireDomainBlock(app, getRouterParam(event, "id")));
    return {};
  });

  r.get("/api/v1/admin/domain_allows", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, ALLOWS_READ, "manage_federation");
    const k = pageParams(p, 100, 500);
    const allows = listDomainAllows(app, actor, k);
    setLinkHeader(app, event, p, { cursors: allows.map((a) => a.id), limit: k.limit, prevParam: "min_id" });
    return allows.map(toApiAdminDomainAllow);
  });

  r.get("/api/v1/admin/domain_allows/:id", (event) => {
    requirePermission(app, event, ALLOWS_READ, "manage_federation");
    return toApiAdminDomainAllow(requireDomainAllow(app, getRouterParam(event, "id")));
  });

  r.post("/api/v1/admin/domain_allows", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, ALLOWS_WRITE, "manage_federation");
    return toApiAdminDomainAllow(allowDomain(app, actor, p.str("domain")));
  });

  r.delete("/api/v1/admin/domain_allows/:id", async (event) => {
    await readAppParams(app, event);
    const actor = requirePermission(app, event, ALLOWS_WRITE, "manage_federation");
    disallowDomain(app, actor, requireDomainAllow(app, getRouterParam(event, "id")));
    return {};
  });
}
