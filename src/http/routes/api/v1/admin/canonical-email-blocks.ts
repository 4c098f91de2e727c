// https://docs.joinmastodon.org/methods/admin/canonical_email_blocks/ (endpoints-admin.md §4).
import { getRouterParam } from "h3";
import type { App } from "../../../../../app.ts";
import type { Router } from "../../../../router.ts";
import {
  blockCanonicalEmail,
  listCanonicalEmailBlocks,
  requireCanonicalEmailBlock,
  testCanonicalEmail,
  unblockCanonicalEmail,
} from "../../../../../admin/canonical-email-blocks.ts";
import { missingParam } from "../../../../../errors.ts";
import { toApiAdminCanonicalEmailBlock } from "../../../../../serializers/admin-canonical-email-block.ts";
import { adminScopes, requirePermission } from "../../../../admin-auth.ts";
import { pageParams, setLinkHeader } from "../../../../pagination.ts";
import { readAppParams } from "../../../../params.ts";

const READ = adminScopes("read", "canonical_email_blocks");
const WRITE = adminScopes("write", "canonical_email_blocks");

export function registerAdminCanonicalEmailBlocksRoutes(app: App, r: Router): void {
  r.get("/api/v1/admin/canonical_email_blocks", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, READ, "manage_blocks");
    const k = pageParams(p, 100, 200);
    const blocks = listCanonicalEmailBlocks(app, actor, k);
    setLinkHeader(app, event, p, { cursors: blocks.map((b) => b.id), limit: k.limit, prevParam: "min_id" });
    return blocks.map(toApiAdminCanonicalEmailBlock);
  });

  r.get("/api/v1/admin/canonical_email_blocks/:id", (event) => {
    requirePermission(app, event, READ, "manage_blocks");
    return toApiAdminCanonicalEmailBlock(requireCanonicalEmailBlock(app, getRouterParam(event, "id")));
  });

  // Mastodon answers a missing `email` with a 500; the seed wants a handled error.
  r.post("/api/v1/admin/canonical_email_blocks/test", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, READ, "manage_blocks");
    const email = p.str("email");
    if (email === undefined) throw missingParam("email");
    return testCanonicalEmail(app, actor, email).map(toApiAdminCanonicalEmailBlock);
  });

  r.post("/api/v1/admin/canonical_email_blocks", async (event) => {
    const p = await readAppParams(app, event);
    const actor = requirePermission(app, event, WRITE, "manage_blocks");
    return toApiAdminCanonicalEmailBlock(blockCanonicalEmail(app, actor, { email: p.str("email"), hash: p.str("canonical_email_hash") }));
  });

  r.delete("/api/v1/admin/canonical_email_blocks/:id", async (event) => {
    await readAppParams(app, event);
    const actor = requirePermission(app, event, WRITE, "manage_blocks");
    unblockCanonicalEmail(app, actor, requireCanonicalEmailBlock(app, getRouterParam(event, "id")));
    return {};
  });
}
