// https://docs.joinmastodon.org/methods/instance/#peers, #activity, #rules, #domain_blocks
import type { H3Event } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { ApiError, notFound } from "../../../../errors.ts";
import { bearerToken, optionalUser, type Viewer } from "../../../auth.ts";
import { cachePublicAlways, cachePublicIfAnonymous, jsonText } from "../../../headers.ts";
import { getPeers, searchPeers } from "../../../../services/instance.ts";
import { getInstanceActivity } from "../../../../services/instance-activity.ts";
import { getRules } from "../../../../services/rules.ts";
import { getPublicDomainBlocks } from "../../../../services/domain-blocks.ts";
import { toApiRule } from "../../../../serializers/rule.ts";
import { toApiDomainBlock } from "../../../../serializers/domain-block.ts";

/** The signed-in user, if a valid user token was sent; never an error (these lists are public). */
function signedInUser(app: App, event: H3Event): Viewer | null {
  if (!bearerToken(event)) return null;
  try {
    return optionalUser(app, event);
  } catch (e) {
    if (e instanceof ApiError && (e.status === 401 || e.status === 403)) return null;
    throw e;
  }
}

export function registerInstanceListRoutes(app: App, r: Router): void {
  r.get("/api/v1/instance/peers", (event) => {
    if (!app.config.peersApi) throw notFound();
    cachePublicAlways(event);
    return getPeers(app);
  });

  // Undocumented, used by Mastodon's web UI for domain autocompletion.
  r.get("/api/v1/peers/search", (event) => {
    if (!app.config.peersApi) throw notFound();
    cachePublicAlways(event);
    const q = event.url.searchParams.get("q") ?? "";
    // Mastodon answers a blank query with a JSON null.
    if (q.trim() === "") {
      return jsonText(event, "null");
    }
    return searchPeers(app, q);
  });

  r.get("/api/v1/instance/activity", (event) => {
    if (!app.config.activityApi) throw notFound();
    cachePublicAlways(event);
    // Every figure is a string, as Mastodon sends them.
    return getInstanceActivity(app).map((w) => ({
      week: String(Math.floor(w.week / 1000)),
      statuses: String(w.statuses),
      logins: String(w.logins),
      registrations: String(w.registrations),
    }));
  });

  r.get("/api/v1/instance/rules", (event) => {
    cachePublicAlways(event);
    return getRules(app).map(toApiRule);
  });

  r.get("/api/v1/instance/domain_blocks", (event) => {
    const mode = app.config.showDomainBlocks;
    const rationale = app.config.showDomainBlocksRationale;
    const needsUser = mode === "users" || rationale === "users";
    const user = needsUser ? signedInUser(app, event) : null;
    if (mode === "disabled" || (mode === "users" && !user)) throw notFound();
    const withComment = rationale === "all" || (rationale === "users" && user !== null);
    // Public caching only when the answer is the same for everyone; otherwise a signed-in
    // caller's answer (with comments) must not land in a shared cache.
    if (!needsUser) cachePublicAlways(event);
    else cachePublicIfAnonymous(event, user !== null);
    return getPublicDomainBlocks(app).map((b) => toApiDomainBlock(b, withComment));
  });
}
