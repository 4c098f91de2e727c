// https://docs.joinmastodon.org/entities/WebPushSubscription/ (push.md §1.5)
import type { App } from "../app.ts";
import type { PushPolicy, PushSubscription } from "../storage/push-subscriptions.ts";

export interface ApiWebPushSubscription {
  /** Mastodon emits its database id as a JSON number; ours are 64-bit snowflakes, so a string (as the docs say). */
  id: string;
  endpoint: string;
  standard: boolean;
  /** Exactly the alert types the client sent. */
  alerts: Record<string, boolean>;
  policy: PushPolicy;
  /** The VAPID public key, the client's applicationServerKey. */
  server_key: string;
}

export function toApiWebPushSubscription(app: App, s: PushSubscription): ApiWebPushSubscription {
  return {
    id: s.id,
    endpoint: s.endpoint,
    standard: s.standard,
    alerts: { ...s.alerts },
    policy: s.policy,
    server_key: app.config.vapidPublicKey,
  };
}
