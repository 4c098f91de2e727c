import type { H3Event } from "h3";

// https://docs.joinmastodon.org/api/guidelines/ and Mastodon's rack-cors set-up: the API is open
// to any origin without credentials; browser clients (Elk, Phanpy) need preflight answers.
const EXPOSE = "Link, Mastodon-Async-Refresh, X-RateLimit-Reset, X-RateLimit-Limit, X-RateLimit-Remaining, X-Request-Id";

export function corsMethodsFor(path: string): string | undefined {
  if (path.startsWith("/api/")) return "GET, POST, PUT, PATCH, DELETE, OPTIONS";
  if (path === "/oauth/token" || path === "/oauth/revoke") return "POST, OPTIONS";
  if (path === "/oauth/userinfo") return "GET, POST, OPTIONS";
  if (
    path.startsWith("/.well-known/") ||
    path.startsWith("/nodeinfo/") ||
    path.startsWith("/users/") ||
    path.startsWith("/@")
  )
    return "GET, OPTIONS";
  return undefined;
}

export function corsHeaders(path: string, into: Headers): void {
  const methods = corsMethodsFor(path);
  if (!methods) return;
  into.set("access-control-allow-origin", "*");
  into.set("access-control-expose-headers", EXPOSE);
}

export function preflightHeaders(path: string, req: Request): Headers | undefined {
  const methods = corsMethodsFor(path);
  if (!methods) return undefined;
  const h = new Headers();
  h.set("access-control-allow-origin", "*");
  h.set("access-control-allow-methods", methods);
  h.set("access-control-allow-headers", req.headers.get("access-control-request-headers") || "*");
  h.set("access-control-max-age", "7200");
  h.set("access-control-expose-headers", EXPOSE);
  return h;
}

/** Responses that carry no user-specific data, cached whoever asks (instance metadata). */
export function cachePublicAlways(event: H3Event, seconds = 300): void {
  event.res.headers.set(
    "cache-control",
    `public, max-age=${seconds}, stale-while-revalidate=30, stale-if-error=86400`,
  );
  event.res.headers.delete("vary");
}

/**
 * "Cache if unauthenticated": public for anonymous callers, private for token holders
 * (the response is personalised then). Anonymous responses of these endpoints must never
 * read session cookies.
 */
export function cachePublicIfAnonymous(event: H3Event, authenticated: boolean): void {
  if (authenticated) return;
  event.res.headers.set("cache-control", "public, max-age=15, stale-while-revalidate=30, stale-if-error=86400");
}

/** Sends JSON the route already wrote as text (h3 would send a returned string as text/plain). */
export function jsonText(event: H3Event, text: string): string {
  event.res.headers.set("content-type", "application/json; charset=utf-8");
  return text;
}
