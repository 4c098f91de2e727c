import type { Hooks, Message, Peer } from "crossws";
import type { App } from "../app.ts";
import { resolveChannel, StreamError, type StreamViewer } from "./channels.ts";
import type { StreamingHub } from "./hub.ts";
import { type Frame, StreamSession } from "./session.ts";

// The WebSocket transport (streaming.md §4): crossws hooks for one accepted upgrade. Several
// streams share a socket; each event carries its `stream`. The adapter (http/upgrade.ts)
// pings every 30 s and cuts sockets that stop answering.

/** A text frame's JSON: `{"type": "subscribe" | "unsubscribe", "stream": ..., "tag": ..., "list": ...}`. */
type ClientMessage = { type?: unknown; stream?: unknown; tag?: unknown; list?: unknown };

/** The upgraded TCP socket, corked while a burst of frames is written (node: the request's socket). */
export interface CorkableSocket {
  cork(): void;
  uncork(): void;
}

class WebSocketSession extends StreamSession {
  private queued: Frame[] = [];

  constructor(
    hub: StreamingHub,
    viewer: StreamViewer,
    ip: string | null,
    private readonly peer: Peer,
    private readonly socket: CorkableSocket | undefined,
  ) {
    super(hub, "websocket", viewer, ip);
  }

  write(f: Frame): void {
    this.queued.push(f);
  }

  flushWrites(): number {
    const q = this.queued;
    if (q.length === 0) return this.peer.bufferedAmount;
    this.queued = [];
    // ws writes each frame's header and payload as one socket write per frame; corked, the
    // burst leaves in one write (a post reaching many sockets costs a write per socket, not
    // one per socket and event).
    this.socket?.cork();
    try {
      for (const f of q) {
        // `payload` is a string: the entity JSON is encoded a second time, as clients expect.
        f.ws ??= Buffer.from(
          JSON.stringify(f.payload === undefined ? { stream: f.label, event: f.event } : { stream: f.label, event: f.event, payload: f.payload }),
        );
        // A text frame from bytes encoded once (the node adapter passes `binary` on to ws).
        this.peer.send(f.ws, { binary: false } as { compress?: boolean });
      }
    } finally {
      this.socket?.uncork();
    }
    return this.peer.bufferedAmount;
  }

  /** A plain text frame (subscription errors). */
  say(obj: unknown): void {
    if (!this.closed) this.peer.send(JSON.stringify(obj));
  }

  end(shutdown = false): void {
    if (shutdown) this.peer.close(1001, "Server shutting down");
    else this.peer.close();
  }

  terminate(): void {
    this.peer.terminate();
  }
}

export interface WebSocketInit {
  viewer: StreamViewer;
  ip: string | null;
  requestId: string;
  /** The first sub-protocol the client offered: echoed, or browsers fail the handshake. */
  protocol?: string;
  /** `?stream=` (with `tag`, `list`) of the upgrade request: subscribed on open. */
  initial?: ClientMessage;
  /** The upgraded socket, when the adapter exposes it: bursts of frames are written corked. */
  socket?: CorkableSocket;
}

function subscribe(app: App, hub: StreamingHub, session: WebSocketSession, m: ClientMessage): void {
  try {
    hub.subscribe(session, resolveChannel(app, session.viewer, m.stream, m));
  } catch (e) {
    if (!(e instanceof StreamError)) throw e;
    session.say({ error: e.message, status: e.status });
  }
}

function unsubscribe(app: App, hub: StreamingHub, session: WebSocketSession, m: ClientMessage): void {
  try {
    hub.unsubscribe(session, resolveChannel(app, session.viewer, m.stream, m, { checkScopes: false }).key);
  } catch (e) {
    if (!(e instanceof StreamError)) throw e;
    session.say({ error: "Error unsubscribing from channel" });
  }
}

/** The hooks of one connection; the viewer was authenticated by the upgrade request's route. */
export function websocketHooks(app: App, hub: StreamingHub, init: WebSocketInit): Partial<Hooks> {
  let session: WebSocketSession | undefined;
  return {
    upgrade() {
      const headers: Record<string, string> = { "x-request-id": init.requestId };
      if (init.protocol) headers["sec-websocket-protocol"] = init.protocol;
      return { headers };
    },
    open(peer: Peer) {
      const s = new WebSocketSession(hub, init.viewer, init.ip, peer, init.socket);
      if (!hub.add(s)) {
        // A cap filled up between the upgrade request and now.
        peer.close(1008, "Too many streaming connections");
        return;
      }
      session = s;
      if (init.initial?.stream !== undefined) subscribe(app, hub, s, init.initial);
    },
    message(peer: Peer, message: Message) {
      if (!session || session.closed) return;
      if (typeof message.rawData !== "string") {
        peer.close(1003, "Binary messages are not supported");
        return;
      }
      let m: unknown;
      try {
        m = JSON.parse(message.rawData);
      } catch {
        return; // malformed JSON is ignored (Mastodon)
      }
      if (m === null || typeof m !== "object" || Array.isArray(m)) return;
      const msg = m as ClientMessage;
      if (msg.type === "subscribe") subscribe(app, hub, session, msg);
      else if (msg.type === "unsubscribe") unsubscribe(app, hub, session, msg);
    },
    close() {
      session?.gone();
    },
    error() {
      session?.gone();
    },
  };
}
