import type { App } from "../app.ts";
import type { Config } from "../config/config.ts";
import { ROOST_VERSION } from "../version.ts";

// What this server can do right now, for the instance documents (serializers/instance.ts).
// Clients believe those documents: Phanpy and Mastodon for Android move their notifications tab to
// /api/v2/notifications on api_versions.mastodon >= 2, Ice Cubes does so on version >= 4.3, masto.js
// retries a streaming URL forever, Mastodon for Android subscribes to Web Push when it sees a VAPID
// key. So each advertisement is derived from the routes the HTTP layer registered (plus config
// where a route is not enough): a feature turns its advertisement on by registering its routes,
// and nothing has to remember to flip a flag. test/api/instance-capabilities.test.ts calls an
// endpoint for every advertised capability.

export interface Capabilities {
  /** Grouped notifications, /api/v2/notifications (api_versions.mastodon 2, Mastodon 4.3). */
  groupedNotifications: boolean;
  /** Filtered notifications (4.3): the notification policy and notification requests. */
  notificationRequests: boolean;
  /** GET /api/v1/timelines/link (4.3; timelines_access.trending_link_feeds). */
  linkTimeline: boolean;
  /** The WebSocket streaming API at GET /api/v1/streaming (configuration.urls.streaming). */
  streaming: boolean;
  /** Web Push subscriptions, with a VAPID key pair configured (configuration.vapid). */
  webPush: boolean;
  /** The media API (statuses.max_media_attachments, media_attachments.supported_mime_types). */
  mediaUpload: boolean;
  /** Reading and voting in polls (polls.max_options); posting them goes through POST /api/v1/statuses. */
  polls: boolean;
  /** POST /api/v1/statuses/:id/translate (configuration.translation.enabled). */
  translation: boolean;
  /** /api/v1/featured_tags (configuration.accounts.max_featured_tags). */
  featuredTags: boolean;
}

type Capability = keyof Capabilities;

/** The routes each capability needs, as Mastodon names them; parameter names do not matter. */
const REQUIRED_ROUTES: Record<Capability, string[]> = {
  groupedNotifications: [
    "GET /api/v2/notifications",
    "GET /api/v2/notifications/:group_key",
    "GET /api/v2/notifications/:group_key/accounts",
    "POST /api/v2/notifications/:group_key/dismiss",
    "GET /api/v2/notifications/unread_count",
  ],
  notificationRequests: [
    "GET /api/v2/notifications/policy",
    "PATCH /api/v2/notifications/policy",
    "GET /api/v1/notifications/requests",
    "POST /api/v1/notifications/requests/:id/accept",
    "POST /api/v1/notifications/requests/:id/dismiss",
  ],
  linkTimeline: ["GET /api/v1/timelines/link"],
  streaming: ["GET /api/v1/streaming"],
  webPush: [
    "POST /api/v1/push/subscription",
    "GET /api/v1/push/subscription",
    "PUT /api/v1/push/subscription",
    "DELETE /api/v1/push/subscription",
  ],
  mediaUpload: ["POST /api/v2/media", "POST /api/v1/media", "GET /api/v1/media/:id", "PUT /api/v1/media/:id"],
  polls: ["GET /api/v1/polls/:id", "POST /api/v1/polls/:id/votes"],
  translation: ["POST /api/v1/statuses/:id/translate"],
  featuredTags: ["GET /api/v1/featured_tags", "POST /api/v1/featured_tags", "DELETE /api/v1/featured_tags/:id"],
};

/** Config a capability needs besides its routes. */
const REQUIRED_CONFIG: Partial<Record<Capability, (c: Config) => boolean>> = {
  webPush: (c) => c.vapidPublicKey !== "" && c.vapidPrivateKey !== "",
};

/** "GET /api/v1/media/:id/" → "GET /api/v1/media/:" (the key routes are compared by). */
export function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/:[^/]+/g, ":").replace(/(.)\/+$/, "$1")}`;
}

export function deriveCapabilities(routes: ReadonlySet<string>, config: Config): Capabilities {
  const caps = {} as Capabilities;
  for (const name of Object.keys(REQUIRED_ROUTES) as Capability[]) {
    const routesServed = REQUIRED_ROUTES[name].every((r) => {
      const [method, path] = r.split(" ");
      return routes.has(routeKey(method, path));
    });
    caps[name] = routesServed && (REQUIRED_CONFIG[name]?.(config) ?? true);
  }
  return caps;
}

/** What the running server serves (nothing before createHttpApp registered the routes). */
export function serverCapabilities(app: App): Capabilities {
  return deriveCapabilities(app.routes, app.config);
}

// api_versions.mastodon levels are cumulative: a client at level N may use everything up to N.
// Level 3 (PKCE, 4.4) and up sit on top of level 2, so roost cannot claim them before level 2.
const API_LEVELS: { level: number; needs: Capability[] }[] = [{ level: 2, needs: ["groupedNotifications"] }];

/** `api_versions.mastodon`, or undefined: Mastodon 4.2 sent no api_versions at all. */
export function mastodonApiVersion(caps: Capabilities): number | undefined {
  let level: number | undefined;
  for (const l of API_LEVELS) {
    if (!l.needs.every((c) => caps[c])) break;
    level = l.level;
  }
  return level;
}

/**
 * Releases clients compare `version` against, newest first, with the capabilities they then use
 * without asking. At 4.3 Ice Cubes switches to grouped notifications, the notification policy
 * and requests, and link timelines by version number alone.
 */
const RELEASES: { version: string; needs: Capability[] }[] = [
  { version: "4.3.0", needs: ["groupedNotifications", "notificationRequests", "linkTimeline"] },
];

/**
 * The floor. Below it clients switch off what roost serves (exclusive lists 4.2, v2 filters 4.0,
 * editing 3.5) or use endpoints Mastodon removed.
 */
const FLOOR_RELEASE = "4.2.0";

/** The Mastodon release the capabilities amount to, e.g. "4.2.0" (NodeInfo's metadata.upstream). */
export function compatibleRelease(caps: Capabilities): string {
  return RELEASES.find((r) => r.needs.every((c) => caps[c]))?.version ?? FLOOR_RELEASE;
}

/** `version` of both instance documents, e.g. "4.2.0 (compatible; roost 0.1.0)". */
export function instanceVersion(caps: Capabilities): string {
  return `${compatibleRelease(caps)} (compatible; roost ${ROOST_VERSION})`;
}
