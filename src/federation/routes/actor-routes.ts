// ActivityPub GET side (AP §2, §3, §6, §11): actors, objects and collections, negotiated
// against the HTML pages on the same URLs. Mastodon's routes:
// https://docs.joinmastodon.org/spec/activitypub/ and https://docs.joinmastodon.org/spec/security/
import type { H3Event } from "h3";
import type { App } from "../../app.ts";
import { messagePage } from "../../http/html/layout.ts";
import type { Router } from "../../http/router.ts";
import { toApActor, toApInstanceActor } from "../serializers/actor.ts";
import { toApEmptyOutbox } from "../serializers/collections.ts";
import { BASIC_CONTEXT, withContext } from "../serializers/context.ts";
import { toApEmoji } from "../serializers/emoji.ts";
import { instanceActorUri } from "../instance-actor.ts";
import { notFoundAp, param, redirectForBrowsers, requester, sendAp, wantsJson } from "./ap-response.ts";
import { registerCollectionRoutes } from "./collection-routes.ts";
import { profilePage } from "./html-pages.ts";
import { findLocalEmoji, findServedAccount, recentPublicStatuses, wantsNoindex } from "./served-objects.ts";
import { registerStatusObjectRoutes } from "./status-routes.ts";
import { registerContextRoutes } from "./context-routes.ts";

// Mastodon caches the instance actor for 10 minutes.
const INSTANCE_ACTOR_MAX_AGE = 600;
const PROFILE_POSTS = 20;

export function registerActorRoutes(app: App, r: Router): void {
  /** The actor for peers; browsers go to the profile page (`/users/…`) or get it (`/@…`). */
  const actor = (humanUrl: boolean) => async (event: H3Event) => {
    const found = findServedAccount(app, param(event, "username"));
    if (!found) throw notFoundAp();
    const { account } = found;
    if (!wantsJson(event, found.forcedJson)) {
      if (!humanUrl) return redirectForBrowsers(event, account.url ?? `${app.baseUrl}/@${account.username}`);
      if (account.suspendedAt !== null) return messagePage(event, 403, "Account suspended", "This account has been suspended.");
      return profilePage(app, event, account, recentPublicStatuses(app, account, PROFILE_POSTS), wantsNoindex(app, account));
    }
    await requester(app, event);
    return sendAp(app, event, toApActor(app, account), "public");
  };
  r.get("/users/:username", actor(false));
  r.get("/@:username", actor(true));

  // Never behind a signature: peers need its key to verify our signed fetches (AP §3.3).
  r.get("/actor", (event) => sendAp(app, event, toApInstanceActor(app), "always-public", INSTANCE_ACTOR_MAX_AGE));
  r.get("/actor/outbox", async (event) => {
    await requester(app, event);
    return sendAp(app, event, toApEmptyOutbox(`${instanceActorUri(app)}/outbox`), "public");
  });

  // Emoji ids are dereferenceable (peers refresh an emoji from its id).
  r.get("/emojis/:id", async (event) => {
    const emoji = findLocalEmoji(app, param(event, "id"));
    if (!emoji) throw notFoundAp();
    await requester(app, event);
    return sendAp(app, event, withContext(BASIC_CONTEXT, toApEmoji(app, emoji)), "public");
  });

  registerStatusObjectRoutes(app, r);
  registerCollectionRoutes(app, r);
  registerContextRoutes(app, r);
}
