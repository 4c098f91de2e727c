import { getWebSocketHooks, type Hooks } from "crossws";
import nodeAdapter from "crossws/adapters/node";
import type { H3 } from "h3";
import type { Server } from "node:http";
import type { Duplex } from "node:stream";
import { NodeRequest } from "srvx/node";

// WebSocket upgrades reach the same h3 app as every request: the route decides (auth, caps)
// and answers with crossws hooks (routes/api/v1/streaming.ts), which the node adapter then
// runs on the socket. Any other answer is sent as a plain HTTP response and the socket closed.

/** Frames from clients are subscribe/unsubscribe messages of a few hundred bytes. */
const MAX_FRAME_BYTES = 64 * 1024;
/** Ping every 30 s; a socket that did not answer the previous ping is cut (Mastodon's streaming server). */
const PING_SECONDS = 30;

export interface WebSocketUpgrades {
  /** Cuts every socket at once (the hub closes them politely first). */
  terminateAll(): void;
}

export function attachWebSocketUpgrades(server: Server, h3: H3): WebSocketUpgrades {
  const ws = nodeAdapter({
    idleTimeout: PING_SECONDS,
    serverOptions: { maxPayload: MAX_FRAME_BYTES },
    resolve: async (request): Promise<Partial<Hooks>> => {
      const res = await h3.fetch(request);
      const hooks = (res as { crossws?: Partial<Hooks> }).crossws ?? getWebSocketHooks(request);
      if (hooks) {
        res.body?.cancel().catch(() => {});
        return hooks;
      }
      // Not a WebSocket route (or a refused upgrade): the route's status and headers, no body.
      const body = res.body;
      const headers = new Headers(res.headers);
      if (body) {
        body.cancel().catch(() => {});
        headers.set("content-length", "0");
      }
      headers.set("connection", "close");
      return { upgrade: () => new Response(null, { status: res.status, statusText: res.statusText, headers }) };
    },
  });
  server.on("upgrade", (req, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const request = new NodeRequest({ req, upgrade: { socket, head } } as ConstructorParameters<typeof NodeRequest>[0]);
    ws.handleUpgrade(req, socket, head, request as unknown as Request).catch(() => socket.destroy());
  });
  return { terminateAll: () => ws.closeAll(undefined, undefined, true) };
}
