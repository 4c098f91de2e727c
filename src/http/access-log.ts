import type { H3Event } from "h3";
import type { ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { App } from "../app.ts";
import { authenticatedAccountId } from "./auth.ts";

// One JSON line per request at `info` ("request"), so an admin can see which call an app made
// and how it was answered. Written when the response is done (or the client went away).

/** Query parameters that carry credentials: their values never reach the log. */
const SECRET_PARAMS = new Set([
  "access_token",
  "bearer_token",
  "refresh_token",
  "token",
  "code",
  "code_verifier",
  "client_secret",
  "password",
  "password_confirmation",
]);

function paramName(raw: string): string {
  const name = raw.replace(/\+/g, " ");
  try {
    return decodeURIComponent(name).toLowerCase();
  } catch {
    return name.toLowerCase();
  }
}

/** The request path with its query as sent, except that secret values read `[REDACTED]`. */
export function redactedPath(url: URL): string {
  if (url.search.length <= 1) return url.pathname;
  const parts = url.search.slice(1).split("&").map((part) => {
    const eq = part.indexOf("=");
    const name = eq === -1 ? part : part.slice(0, eq);
    return SECRET_PARAMS.has(paramName(name)) ? `${name}=[REDACTED]` : part;
  });
  return `${url.pathname}?${parts.join("&")}`;
}

/** Logs the request once its response has been sent; a no-op unless `info` is on. */
export function logAccessWhenDone(app: App, event: H3Event, requestId: string): void {
  if (!app.log.enabled("info")) return;
  const res = (event.runtime?.node as { res?: ServerResponse } | undefined)?.res;
  if (!res) return;
  const started = performance.now();
  res.once("close", () => {
    const entry: Record<string, unknown> = {
      method: event.req.method,
      path: redactedPath(event.url),
      status: res.headersSent ? res.statusCode : null,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    };
    const accountId = authenticatedAccountId(event);
    if (accountId) entry.accountId = accountId;
    entry.requestId = requestId;
    // The client went away before the whole response was sent.
    if (!res.writableFinished) entry.aborted = true;
    app.log.info("request", entry);
  });
}
