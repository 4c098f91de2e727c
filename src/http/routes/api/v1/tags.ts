// https://docs.joinmastodon.org/methods/tags/ and https://docs.joinmastodon.org/methods/followed_tags/
import { getRouterParam, type H3Event } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { toApiTag, toApiTags } from "../../../../serializers/tag.ts";
import { featureTag, unfeatureTag } from "../../../../services/featured-tags.ts";
import { followTag, listFollowedTags, tagByName, unfollowTag } from "../../../../services/tags.ts";
import { bearerToken, optionalUser, requireUser } from "../../../auth.ts";
import { cachePublicIfAnonymous } from "../../../headers.ts";
import { pageParams, setLinkHeader } from "../../../pagination.ts";
import { readAppParams } from "../../../params.ts";

/** The `:name` segment, percent-decoded; a malformed escape stays as typed (then 404s as no tag name). */
function tagName(event: H3Event): string {
  const raw = getRouterParam(event, "name") ?? "";
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export function registerTagsRoutes(app: App, r: Router): void {
  // Public: a token only adds `following` and `featuring`. Unknown but valid names answer an
  // unsaved tag (id ""); a name no post could carry answers 404.
  r.get("/api/v1/tags/:name", (event) => {
    const viewer = optionalUser(app, event);
    const tag = tagByName(app, tagName(event));
    cachePublicIfAnonymous(event, viewer !== null || bearerToken(event) !== undefined);
    return toApiTag(app, tag, viewer?.account.id ?? null);
  });

  const actions = [
    ["follow", followTag, "write:follows"],
    ["unfollow", unfollowTag, "write:follows"],
    ["feature", featureTag, "write:accounts"],
    ["unfeature", unfeatureTag, "write:accounts"],
  ] as const;
  for (const [name, run, scope] of actions) {
    r.post(`/api/v1/tags/:name/${name}`, async (event) => {
      await readAppParams(app, event);
      const viewer = requireUser(app, event, scope);
      const tag = run(app, viewer.account, tagName(event));
      return toApiTag(app, tag, viewer.account.id);
    });
  }

  r.get("/api/v1/followed_tags", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "read:follows");
    const page = pageParams(p, 100, 200);
    const rows = listFollowedTags(app, viewer.account, page);
    setLinkHeader(app, event, p, { cursors: rows.map((f) => f.cursor), limit: page.limit, prevParam: "since_id" });
    return toApiTags(app, rows.map((f) => f.tag), viewer.account.id);
  });
}
