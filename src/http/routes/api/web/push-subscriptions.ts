// /api/web/push_subscriptions (push.md §6; Mastodon's Api::Web::PushSubscriptionsController):
// the browser session's Web Push subscription, bound to the session's token. POST and PUT are
// authenticated by the session cookie, with the CSRF token in `X-CSRF-Token` (Rails' header
// for XHR); DELETE takes the signed token of a push message's Unsubscribe-URL instead.
import type { H3Event } from "h3";
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { ApiError, missingParam } from "../../../../errors.ts";
import { csrfValid, sessionCookieValue } from "../../../cookies.ts";
import { type Params, readAppParams } from "../../../params.ts";
import { type BrowserSession, currentSession } from "../../../../services/web-sessions.ts";
import { subscribeSessionToPush, unsubscribeByToken, updateSessionPushData } from "../../../../services/push-subscriptions.ts";
import { toApiWebPushSubscription } from "../../../../serializers/web-push-subscription.ts";
import { readDataParam, readSubscriptionParam } from "../v1/push-subscription.ts";

/** Rails' protect_from_forgery first, then require_user!. */
function requireBrowser(app: App, event: H3Event, p: Params): BrowserSession {
  const submitted = event.req.headers.get("x-csrf-token") ?? p.str("authenticity_token");
  if (!csrfValid(app, event, submitted)) throw new ApiError(422, "Can't verify CSRF token authenticity.");
  const browser = currentSession(app, sessionCookieValue(event));
  if (!browser) throw new ApiError(401, "This method requires an authenticated user");
  return browser;
}

export function registerWebPushSubscriptionRoutes(app: App, r: Router): void {
  r.post("/api/web/push_subscriptions", async (event) => {
    const p = await readAppParams(app, event);
    const browser = requireBrowser(app, event, p);
    const s = subscribeSessionToPush(app, browser, readSubscriptionParam(p), readDataParam(p));
    return toApiWebPushSubscription(app, s);
  });

  // Mastodon requires `data` here (params.require(:data)).
  r.put("/api/web/push_subscriptions/:id", async (event) => {
    const p = await readAppParams(app, event);
    const browser = requireBrowser(app, event, p);
    const data = readDataParam(p);
    if (!data) throw missingParam("data");
    return toApiWebPushSubscription(app, updateSessionPushData(app, browser, getRouterParam(event, "id") ?? "", data));
  });

  // The Unsubscribe-URL of every push message (Mastodon 4.4): the signed token is the only
  // credential, no session, no CSRF. Always 200 with an empty body, whether it deleted anything.
  r.delete("/api/web/push_subscriptions/:id", (event) => {
    unsubscribeByToken(app, getRouterParam(event, "id") ?? "");
    return new Response(null, { status: 200 });
  });
}
