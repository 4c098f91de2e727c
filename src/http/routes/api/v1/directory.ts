// https://docs.joinmastodon.org/methods/directory/ — GET /api/v1/directory, and the seed's
// GET /api/v1/directories with the same answer. Public (a token only filters the list for its
// user); offset paging without a Link header, as Mastodon. /directory is the HTML page.
import type { H3Event } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { toApiAccounts } from "../../../../serializers/account.ts";
import { directoryAccounts, type DirectoryInput } from "../../../../services/directory.ts";
import { optionalUser } from "../../../auth.ts";
import { directoryPage } from "../../../html/directory-page.ts";
import { htmlPage, newNonce } from "../../../html/layout.ts";
import { cachePublicIfAnonymous } from "../../../headers.ts";
import { pageParams } from "../../../pagination.ts";
import { type Params, readAppParams } from "../../../params.ts";
import { searchOffset } from "../v2/search.ts";

/** `order`, `local`, `limit` (40, at most 80) and `offset`; an unknown order is the default. */
export function directoryInput(p: Params): DirectoryInput {
  return {
    order: p.str("order") === "new" ? "new" : "active",
    local: p.bool("local") ?? false,
    limit: pageParams(p, 40, 80).limit,
    offset: searchOffset(p),
  };
}

export function registerDirectoryRoutes(app: App, r: Router): void {
  const handler = async (event: H3Event) => {
    const p = await readAppParams(app, event);
    const viewer = optionalUser(app, event);
    const input = directoryInput(p);
    cachePublicIfAnonymous(event, viewer !== null);
    return toApiAccounts(app, directoryAccounts(app, viewer?.account.id ?? null, input));
  };
  r.get("/api/v1/directory", handler);
  r.get("/api/v1/directories", handler);

  // The same list for browsers (anonymous: no one's blocks apply).
  r.get("/directory", async (event) => {
    const input = directoryInput(await readAppParams(app, event));
    const accounts = toApiAccounts(app, directoryAccounts(app, null, input));
    const nonce = newNonce();
    return htmlPage(event, 200, directoryPage({ nonce, title: app.config.title, accounts, ...input }), nonce);
  });
}
