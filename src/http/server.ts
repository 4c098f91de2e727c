import { H3, HTTPError, type H3Event } from "h3";
import { randomUUID } from "node:crypto";
import type { App } from "../app.ts";
import { ApiError } from "../errors.ts";
import { logAccessWhenDone } from "./access-log.ts";
import { countRequestWhenDone } from "./request-metrics.ts";
import { corsHeaders, preflightHeaders } from "./headers.ts";
import { Router } from "./router.ts";
import { registerRoutes } from "./routes.ts";
import { routeKey } from "../services/capabilities.ts";
import { StreamingHub } from "../streaming/hub.ts";
import { ipRefused } from "../services/ip-blocks.ts";
import { clientIp } from "./auth.ts";

const API_CSP = "default-src 'none'; frame-ancestors 'none'; form-action 'none'";

// Mastodon's wording for the statuses h3 itself may raise.
const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "The access token is invalid",
  403: "This action is not allowed",
  404: "Not Found",
  405: "Not Found",
  406: "Not Acceptable",
  410: "Gone",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too many requests",
};

function wantsHtml(event: H3Event): boolean {
  const p = event.url.pathname;
  if (p.startsWith("/api/") || p.startsWith("/oauth/token") || p.startsWith("/oauth/revoke") || p.startsWith("/.well-known/") || p.startsWith("/nodeinfo"))
    return false;
  const accept = event.req.headers.get("accept") ?? "";
  return accept.includes("text/html") && !accept.includes("json");
}

function errorPage(status: number, message: string): string {
  const esc = message.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status}</title></head><body><h1>${status}</h1><p>${esc}</p></body></html>`;
}

/** Renders every error as Mastodon does; internals are logged, never sent. */
function renderError(app: App, err: HTTPError, event: H3Event): Response {
  const cause = err.cause;
  let status: number;
  let body: Record<string, unknown>;
  const headers = new Headers({ "cache-control": "private, no-store" });
  if (cause instanceof ApiError) {
    status = cause.status;
    body = { error: cause.error };
    if (cause.description !== undefined) body.error_description = cause.description;
    if (cause.details) body.details = cause.details;
    for (const [k, v] of Object.entries(cause.headers ?? {})) headers.set(k, v);
  } else if (!err.unhandled && err.status >= 400 && err.status < 500) {
    status = err.status === 405 ? 404 : err.status;
    body = { error: STATUS_TEXT[status] ?? "Bad Request" };
  } else {
    status = 500;
    body = { error: "Internal server error" };
    const original = cause instanceof Error ? cause : err;
    app.log.error("request failed", {
      requestId: (event.context as { requestId?: string }).requestId,
      method: event.req.method,
      path: event.url.pathname,
      err: original,
    });
  }
  corsHeaders(event.url.pathname, headers);
  const reqId = (event.context as { requestId?: string }).requestId;
  if (reqId) headers.set("x-request-id", reqId);
  if (wantsHtml(event)) {
    headers.set("content-type", "text/html; charset=utf-8");
    return new Response(errorPage(status, String(body.error)), { status, headers });
  }
  headers.set("content-type", "application/json; charset=utf-8");
  return new Response(JSON.stringify(body), { status, headers });
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export interface HttpApp {
  h3: H3;
  router: Router;
}

export function createHttpApp(app: App): HttpApp {
  const h3 = new H3({
    silent: true,
    onError: (error, event) => renderError(app, error, event),
  });

  h3.use((event) => {
    const path = event.url.pathname;
    const requestId = randomUUID();
    (event.context as { requestId?: string }).requestId = requestId;
    logAccessWhenDone(app, event, requestId);
    if (app.metrics.enabled) countRequestWhenDone(app, event);
    // An IP block with no_access: every request refused before routing (Mastodon's Rack::Attack blocklist).
    if (ipRefused(app, clientIp(event))) throw new ApiError(403, "This action is not allowed");
    if (event.req.method === "OPTIONS") {
      const pre = preflightHeaders(path, event.req);
      if (pre) return new Response(null, { status: 204, headers: pre });
    }
    const h = event.res.headers;
    h.set("x-request-id", requestId);
    corsHeaders(path, h);
    // Mastodon's default: nothing is cached unless an endpoint says otherwise.
    h.set("cache-control", "private, no-store");
    if (path.startsWith("/api/")) {
      h.set("vary", "Authorization, Origin");
      h.set("content-security-policy", API_CSP);
      h.set("x-content-type-options", "nosniff");
    }
  });

  // A write is answered once its commit is on disk: the WAL's fsync runs off the event loop
  // and is shared by the writes of the moment (db/commit-sync.ts). Reads, and requests that
  // wrote nothing (refused, not found), do not wait.
  h3.use(async (event, next) => {
    const commits = app.commits;
    if (!commits || SAFE_METHODS.has(event.req.method)) return next();
    const before = commits.writes();
    try {
      return await next();
    } finally {
      if (commits.writes() !== before) await commits.flush();
    }
  });

  app.streams ??= new StreamingHub(app, {
    perUser: app.config.streamingMaxPerUser,
    perIp: app.config.streamingMaxPerIp,
    bufferBytes: app.config.streamingBufferBytes,
  });
  const router = new Router(h3);
  registerRoutes(app, router);
  app.routes = new Set(router.routes.map((r) => routeKey(r.method, r.path)));
  return { h3, router };
}
