// https://docs.joinmastodon.org/methods/push/ (push.md §1): one subscription per access token,
// for user tokens with the `push` scope only.
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { bearerToken, requireUser } from "../../../auth.ts";
import { type Params, readAppParams } from "../../../params.ts";
import { missingParam } from "../../../../errors.ts";
import {
  type PushDataInput,
  requirePushSubscriptionOfToken,
  type SubscriptionInput,
  subscribeToPush,
  unsubscribeFromPush,
  updatePushData,
} from "../../../../services/push-subscriptions.ts";
import { toApiWebPushSubscription } from "../../../../serializers/web-push-subscription.ts";

/** `subscription[endpoint]`, `subscription[keys][p256dh|auth]`, `subscription[standard]`; 400 without it. */
export function readSubscriptionParam(p: Params): SubscriptionInput {
  const sub = p.obj("subscription");
  if (!sub) throw missingParam("subscription");
  const keys = sub.obj("keys");
  return { endpoint: sub.str("endpoint"), p256dh: keys?.str("p256dh"), auth: keys?.str("auth"), standard: sub.bool("standard") };
}

/** `data[alerts][<type>]` (Rails booleans; blank is off) and `data[policy]`; undefined without `data`. */
export function readDataParam(p: Params): PushDataInput | undefined {
  const data = p.obj("data");
  if (!data) return undefined;
  const alerts: Record<string, boolean> = {};
  const given = data.obj("alerts");
  if (given) for (const type of Object.keys(given.raw)) alerts[type] = given.bool(type) ?? false;
  return { alerts, policy: data.str("policy") };
}

export function registerPushSubscriptionRoutes(app: App, r: Router): void {
  r.post("/api/v1/push/subscription", async (event) => {
    const viewer = requireUser(app, event, "push");
    // The token string requireUser resolved (read before the body, as requireUser was).
    const owner = { userId: viewer.user.id, tokenId: viewer.token.id, token: bearerToken(event)! };
    const p = await readAppParams(app, event);
    const input = readSubscriptionParam(p);
    return toApiWebPushSubscription(app, subscribeToPush(app, owner, input, readDataParam(p)));
  });

  r.get("/api/v1/push/subscription", (event) => {
    const viewer = requireUser(app, event, "push");
    return toApiWebPushSubscription(app, requirePushSubscriptionOfToken(app, viewer.token.id));
  });

  r.put("/api/v1/push/subscription", async (event) => {
    const viewer = requireUser(app, event, "push");
    const p = await readAppParams(app, event);
    return toApiWebPushSubscription(app, updatePushData(app, viewer.token.id, readDataParam(p)));
  });

  r.delete("/api/v1/push/subscription", (event) => {
    const viewer = requireUser(app, event, "push");
    unsubscribeFromPush(app, viewer.token.id);
    return {};
  });
}
