import { test } from "node:test";
import assert from "node:assert/strict";
import type { Config } from "../../src/config/config.ts";
import {
  type Capabilities,
  deriveCapabilities,
  instanceVersion,
  mastodonApiVersion,
  routeKey,
} from "../../src/services/capabilities.ts";

const config = { vapidPublicKey: "BPub", vapidPrivateKey: "priv" } as Config;
const routes = (...r: [string, string][]) => new Set(r.map(([m, p]) => routeKey(m, p)));
const NONE = deriveCapabilities(new Set(), config);

const GROUPED: [string, string][] = [
  ["GET", "/api/v2/notifications"],
  // Parameter names and trailing slashes do not matter.
  ["GET", "/api/v2/notifications/:id/"],
  ["GET", "/api/v2/notifications/:key/accounts"],
  ["POST", "/api/v2/notifications/:group/dismiss"],
  ["GET", "/api/v2/notifications/unread_count"],
];
const PUSH: [string, string][] = ["POST", "GET", "PUT", "DELETE"].map((m) => [m, "/api/v1/push/subscription"]);

test("routeKey ignores parameter names and trailing slashes", () => {
  assert.equal(routeKey("get", "/api/v1/media/:id/"), "GET /api/v1/media/:");
  assert.equal(routeKey("POST", "/api/v2/notifications/:group_key/dismiss"), "POST /api/v2/notifications/:/dismiss");
  assert.equal(routeKey("GET", "/"), "GET /");
});

test("a capability is on only when all of its routes are registered", () => {
  assert.ok(Object.values(NONE).every((v) => v === false));
  const grouped = deriveCapabilities(routes(...GROUPED), config);
  assert.deepEqual(grouped, { ...NONE, groupedNotifications: true });
  // One route short: off.
  assert.equal(deriveCapabilities(routes(...GROUPED.slice(1)), config).groupedNotifications, false);
  assert.equal(deriveCapabilities(routes(["GET", "/api/v1/streaming"]), config).streaming, true);
  assert.equal(deriveCapabilities(routes(["GET", "/api/v1/polls/:id"]), config).polls, false);
});

test("Web Push needs its routes and a VAPID key pair", () => {
  assert.equal(deriveCapabilities(routes(...PUSH), config).webPush, true);
  assert.equal(deriveCapabilities(routes(...PUSH), { ...config, vapidPrivateKey: "" }).webPush, false);
  assert.equal(deriveCapabilities(routes(...PUSH.slice(1)), config).webPush, false);
});

test("api_versions and version follow what is served", () => {
  assert.equal(mastodonApiVersion(NONE), undefined);
  assert.equal(instanceVersion(NONE), "4.2.0 (compatible; roost 0.1.0)");
  // Grouped notifications alone: API level 2, but Ice Cubes would use the notification policy
  // and link timelines on a 4.3 version number, so the version stays 4.2.
  const grouped: Capabilities = { ...NONE, groupedNotifications: true };
  assert.equal(mastodonApiVersion(grouped), 2);
  assert.equal(instanceVersion(grouped), "4.2.0 (compatible; roost 0.1.0)");
  const release43: Capabilities = { ...grouped, notificationRequests: true, linkTimeline: true };
  assert.equal(instanceVersion(release43), "4.3.0 (compatible; roost 0.1.0)");
  assert.equal(instanceVersion({ ...release43, groupedNotifications: false }), "4.2.0 (compatible; roost 0.1.0)");
});
