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

/**
 * One event as the transports write it. A public event reaches many connections with the same
 * stream, name and payload: its frame is built once per transport and shared.
 */
export class Frame {
  /** The WebSocket text frame's payload, encoded once for every socket it goes to. */
  ws?: Buffer;
  /** The SSE bytes. */
  sse?: Uint8Array;
  constructor(
    readonly label: string[],
    readonly event: string,
    /** undefined: an event without payload (filters_changed). */
    readonly payload: string | undefined,
  ) {}
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

  /** Queues one event: nothing reaches the connection before flushWrites(), which the hub calls in the same turn. */
  abstract write(frame: Frame): void;

  /**
   * Sends what write() queued with as few socket writes as the transport allows (a burst of
   * posts reaches a socket as one write, not one per event); returns the bytes now waiting to
   * be sent (the hub drops a client that stopped reading).
   */
  abstract flushWrites(): number;

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
