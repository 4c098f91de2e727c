// https://docs.joinmastodon.org/methods/streaming/ (streaming.md): the WebSocket at
// /api/v1/streaming and the Server-Sent Events endpoints, on the API's own port.
import { setWebSocketHooks } from "crossws";
import type { H3Event } from "h3";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { App } from "../../../../app.ts";
import { ApiError } from "../../../../errors.ts";
import type { Router } from "../../../router.ts";
import { clientIp, firstSubprotocol, isWebSocketUpgrade, requireStreamingUser, type Viewer } from "../../../auth.ts";
import { isTruthy, resolveChannel, StreamError, streamOfPath, type StreamViewer } from "../../../../streaming/channels.ts";
import type { StreamingHub } from "../../../../streaming/hub.ts";
import { SseSession } from "../../../../streaming/sse.ts";
import { websocketHooks } from "../../../../streaming/websocket.ts";

const SSE_PATHS = [
  "/api/v1/streaming/user",
  "/api/v1/streaming/user/notification",
  "/api/v1/streaming/public",
  "/api/v1/streaming/public/local",
  "/api/v1/streaming/public/remote",
  "/api/v1/streaming/hashtag",
  "/api/v1/streaming/hashtag/local",
  "/api/v1/streaming/list",
  "/api/v1/streaming/direct",
];

const streamViewer = (v: Viewer): StreamViewer => ({ accountId: v.account.id, tokenId: v.token.id, scopes: v.token.scopes });

/**
 * A refused upgrade, as Mastodon's streaming server answers it: no body, the reason in
 * X-Error-Message, then the connection closes.
 */
function refuseUpgrade(status: number, message: string): Response {
  return new Response(null, {
    status,
    headers: { connection: "close", "content-type": "text/plain", "content-length": "0", "x-error-message": message },
  });
}

/** The WebSocket upgrade. Mastodon's upgrade handler ignores the path: the streams come from `?stream=` and later frames. */
function upgrade(app: App, hub: StreamingHub, event: H3Event): Response {
  let viewer: StreamViewer;
  try {
    viewer = streamViewer(requireStreamingUser(app, event));
  } catch (e) {
    if (e instanceof ApiError) return refuseUpgrade(e.status, e.error);
    throw e;
  }
  const ip = clientIp(event);
  const refused = hub.admission(viewer, ip);
  if (refused) return refuseUpgrade(refused.status, refused.message);
  const q = event.url.searchParams;
  const stream = q.get("stream");
  const hooks = websocketHooks(app, hub, {
    viewer,
    ip,
    requestId: (event.context as { requestId?: string }).requestId ?? "",
    protocol: firstSubprotocol(event),
    initial: stream === null ? undefined : { stream, tag: q.get("tag") ?? undefined, list: q.get("list") ?? undefined },
    // The node adapter (http/upgrade.ts) upgrades this very socket.
    socket: (event.runtime?.node as { req?: IncomingMessage } | undefined)?.req?.socket ?? undefined,
  });
  // Where the WebSocket adapter (http/upgrade.ts) finds them, on the request and the response.
  setWebSocketHooks(event.req, hooks);
  return Object.assign(new Response(null, { status: 426 }), { crossws: hooks });
}

/** One SSE stream: the path names it (`only_media` picks the media variant). */
function eventStream(app: App, hub: StreamingHub, event: H3Event): Response {
  const q = event.url.searchParams;
  const name = streamOfPath(event.url.pathname, isTruthy(q.get("only_media")));
  if (!name) throw new ApiError(400, "Unknown channel requested");
  const viewer = streamViewer(requireStreamingUser(app, event));
  let channel;
  try {
    channel = resolveChannel(app, viewer, name, { tag: q.get("tag") ?? undefined, list: q.get("list") ?? undefined });
  } catch (e) {
    if (e instanceof StreamError) throw new ApiError(e.status, e.message);
    throw e;
  }
  const ip = clientIp(event);
  const session = new SseSession(hub, viewer, ip);
  if (!hub.add(session)) {
    const refused = hub.admission(viewer, ip);
    throw new ApiError(refused?.status ?? 429, refused?.message ?? "Too many streaming connections");
  }
  hub.subscribe(session, channel);
  const res = (event.runtime?.node as { res?: ServerResponse } | undefined)?.res;
  res?.once("close", () => session.gone());
  return new Response(session.body, {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "private, no-store",
      // Reverse proxies must pass events on at once (nginx buffers responses otherwise).
      "x-accel-buffering": "no",
    },
  });
}

export function registerStreamingRoutes(app: App, r: Router): void {
  const hub = app.streams;
  if (!hub) return;
  r.get("/api/v1/streaming/health", (event) => {
    event.res.headers.set("content-type", "text/plain");
    return "OK";
  });
  // A plain GET on the REST host: Mastodon answers 404 when streaming is served on the same host.
  r.get("/api/v1/streaming", (event) => {
    if (isWebSocketUpgrade(event)) return upgrade(app, hub, event);
    throw new ApiError(404, "Not Found");
  });
  const sse = (event: H3Event) => (isWebSocketUpgrade(event) ? upgrade(app, hub, event) : eventStream(app, hub, event));
  for (const path of SSE_PATHS) r.get(path, sse);
  // Any other path under /api/v1/streaming/: 400 "Unknown channel requested" (Mastodon).
  r.get("/api/v1/streaming/**", sse);
}
