// https://docs.joinmastodon.org/methods/featured_tags/ and
// https://docs.joinmastodon.org/methods/accounts/#featured_tags
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { toApiFeaturedTags } from "../../../../serializers/featured-tag.ts";
import { toApiTags } from "../../../../serializers/tag.ts";
import { requireVisibleAccount } from "../../../../services/account-lookup.ts";
import {
  createFeaturedTag,
  listAccountFeaturedTags,
  listOwnFeaturedTags,
  removeFeaturedTag,
  suggestFeaturedTags,
} from "../../../../services/featured-tags.ts";
import { bearerToken, optionalUser, requireUser } from "../../../auth.ts";
import { cachePublicIfAnonymous } from "../../../headers.ts";
import { readAppParams } from "../../../params.ts";

export function registerFeaturedTagsRoutes(app: App, r: Router): void {
  r.get("/api/v1/featured_tags", async (event) => {
    await readAppParams(app, event);
    const viewer = requireUser(app, event, "read:accounts");
    return toApiFeaturedTags(app, viewer.account, listOwnFeaturedTags(app, viewer.account));
  });

  // `name` is required (400 when missing or blank, as Rails' params.require); a name that is
  // no valid hashtag, a tag featured already under another spelling or an eleventh tag is 422.
  r.post("/api/v1/featured_tags", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "write:accounts");
    const featured = createFeaturedTag(app, viewer.account, p.requireStr("name"));
    return toApiFeaturedTags(app, viewer.account, [featured])[0];
  });

  r.delete("/api/v1/featured_tags/:id", async (event) => {
    await readAppParams(app, event);
    const viewer = requireUser(app, event, "write:accounts");
    removeFeaturedTag(app, viewer.account, getRouterParam(event, "id"));
    return {};
  });

  r.get("/api/v1/featured_tags/suggestions", async (event) => {
    await readAppParams(app, event);
    const viewer = requireUser(app, event, "read:accounts");
    return toApiTags(app, suggestFeaturedTags(app, viewer.account), viewer.account.id);
  });

  // Public, with no scope checked (Mastodon's Accounts::FeaturedTagsController).
  r.get("/api/v1/accounts/:id/featured_tags", async (event) => {
    await readAppParams(app, event);
    const viewer = optionalUser(app, event);
    const account = requireVisibleAccount(app, getRouterParam(event, "id"));
    cachePublicIfAnonymous(event, viewer !== null || bearerToken(event) !== undefined);
    return toApiFeaturedTags(app, account, listAccountFeaturedTags(app, account));
  });
}
