// The label a request is counted under in /metrics: a few dozen fixed groups, so the number of
// time series stays bounded whatever paths clients send.

const PREFIXES: [string, string][] = [
  ["/api/v1/timelines/", "timelines"],
  ["/api/v1/accounts/search", "search"],
  ["/api/v2/search", "search"],
  ["/api/v1/statuses", "statuses"],
  ["/api/v1/scheduled_statuses", "statuses"],
  ["/api/v1/polls", "statuses"],
  ["/api/v1/accounts", "accounts"],
  ["/api/v1/notifications", "notifications"],
  ["/api/v2/notifications", "notifications"],
  ["/api/v1/media", "media"],
  ["/api/v2/media", "media"],
  ["/api/v1/streaming", "streaming"],
  ["/api/v1/instance", "instance"],
  ["/api/v2/instance", "instance"],
  ["/api/v1/push", "push"],
  ["/api/v1/admin", "admin"],
  ["/api/", "api_other"],
  ["/oauth/", "oauth"],
  ["/system/", "media_files"],
  ["/.well-known/", "discovery"],
  ["/nodeinfo/", "discovery"],
  ["/health", "health"],
  ["/metrics", "metrics"],
];

export function routeGroup(pathname: string): string {
  if (pathname === "/inbox" || pathname.endsWith("/inbox")) return "inbox";
  for (const [prefix, group] of PREFIXES) if (pathname.startsWith(prefix)) return group;
  if (pathname.startsWith("/users/") || pathname === "/actor" || pathname.startsWith("/actor/")) return "activitypub";
  return "other";
}
