import type { Channel, StreamViewer } from "./channels.ts";
import type { StreamingHub } from "./hub.ts";

// One client connection (a WebSocket or an SSE response) and its subscriptions. The hub
// (hub.ts) routes bus messages to subscriptions; delivery.ts renders them; a transport
// (websocket.ts, sse.ts) writes the frames.

export type Transport = "websocket" | "sse";

export interface Subscription {
  session: StreamSession;
  channel: Channel;
}

export abstract class StreamSession {
  /** By channel key. */
  readonly subscriptions = new Map<string, Subscription>();
  closed = false;
  private done!: () => void;
  /** Settles once the connection is gone. */
  readonly finished = new Promise<void>((resolve) => (this.done = resolve));

  constructor(
    readonly hub: StreamingHub,
    readonly transport: Transport,
    readonly viewer: StreamViewer,
    readonly ip: string | null,
  ) {}

  /**
   * Writes one event. `payload` undefined: an event without one (filters_changed). Returns
   * the bytes now waiting to be sent, so the hub can drop a client that stopped reading.
   */
  abstract write(label: string[], event: string, payload: string | undefined): number;

  /** An SSE heartbeat; WebSockets are pinged by the adapter instead. */
  heartbeat(): void {}

  /** Ends the connection politely (close frame, end of response); `shutdown`: the server is stopping. */
  abstract end(shutdown?: boolean): void;

  /** Cuts the connection at once (a client that does not read, a close that never completes). */
  abstract terminate(): void;

  /** The transport saw the connection go: the hub forgets it. Idempotent. */
  gone(): void {
    if (this.closed) return;
    this.closed = true;
    this.hub.remove(this);
    this.done();
  }
}
