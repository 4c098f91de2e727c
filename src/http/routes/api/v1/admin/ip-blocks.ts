// https://docs.joinmastodon.org/methods/admin/ip_blocks/ (endpoints-admin.md §4).
import { getRouterParam } from "h3";
import type { App } from "../../../../../app.ts";
import type { Router } from "../../../../router.ts";
import { blockIp, changeIpBlock, type IpBlockInput, listIpBlocks, requireIpBlock, unblockIp } from "../../../../../admin/ip-blocks.ts";
import { toApiAdminIpBlock } from "../../../../../serializers/admin-ip-block.ts";
import { adminScopes, requirePermission } from "../../../../admin-auth.ts";
import { pageParams, setLinkHeader } from "../../../../pagination.ts";
import { type Params, readAppParams } from "../../../../params.ts";

const READ = adminScopes("read", "ip_blocks");
const WRITE = adminScopes("write", "ip_blocks");

/** `expires_in` given blank clears the expiry (Mastodon's Expireable#expires_in=). */
function readInput(p: Params): IpBlockInput {
  const raw = p.str("expires_in");
  const expiresIn = p.has("expires_in") ? (raw === undefined || raw.trim() === "" ? null : (p.int("expires_in") ?? 0)) : undefined;
  return { ip: p.str("ip"), severity: p.str("severity"), comment: p.str("comment"), expiresIn };
}

export function registerAdminIpBlocksRoutes(app: App, r: Router): void {
  r.get("/api/v1/admin/ip_blocks", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, READ, "manage_blocks");
    const k = pageParams(p, 100, 200);
    const blocks = listIpBlocks(app, actor, k);
    setLinkHeader(app, event, p, { cursors: blocks.map((b) => b.id), limit: k.limit, prevParam: "min_id" });
    return blocks.map(toApiAdminIpBlock);
  });

  r.get("/api/v1/admin/ip_blocks/:id", (event) => {
    requirePermission(app, event, READ, "manage_blocks");
    return toApiAdminIpBlock(requireIpBlock(app, getRouterParam(event, "id")));
  });

  r.post("/api/v1/admin/ip_blocks", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, WRITE, "manage_blocks");
    return toApiAdminIpBlock(blockIp(app, actor, readInput(p)));
  });

  r.put("/api/v1/admin/ip_blocks/:id", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, WRITE, "manage_blocks");
    const block = requireIpBlock(app, getRouterParam(event, "id"));
    return toApiAdminIpBlock(changeIpBlock(app, actor, block, readInput(p), true));
  });

  r.delete("/api/v1/admin/ip_blocks/:id", async (event) => {
    await readAppParams(app, event);
    const actor = requirePermission(app, event, WRITE, "manage_blocks");
    unblockIp(app, actor, requireIpBlock(app, getRouterParam(event, "id")));
    return {};
  });
}
