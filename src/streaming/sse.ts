import type { StreamViewer } from "./channels.ts";
import type { StreamingHub } from "./hub.ts";
import { StreamSession } from "./session.ts";

// The Server-Sent Events transport (streaming.md §5): one stream per response. The body is a
// ReadableStream the HTTP layer sends as it is read, so what the client has not taken yet
// waits in its queue, and that queue is what the hub bounds.

const encoder = new TextEncoder();

export class SseSession extends StreamSession {
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  readonly body: ReadableStream<Uint8Array>;

  constructor(hub: StreamingHub, viewer: StreamViewer, ip: string | null) {
    super(hub, "sse", viewer, ip);
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          this.controller = c;
          c.enqueue(encoder.encode(":)\n"));
        },
        cancel: () => this.gone(),
      },
      // No high-water mark: desiredSize is minus the bytes the client has not read yet.
      { highWaterMark: 0, size: (chunk) => chunk.byteLength },
    );
  }

  private send(text: string): number {
    if (this.closed) return 0;
    this.controller.enqueue(encoder.encode(text));
    return -(this.controller.desiredSize ?? 0);
  }

  write(_label: string[], event: string, payload: string | undefined): number {
    // An event without a payload still needs a data line, or EventSource drops it.
    return this.send(`event: ${event}\ndata: ${payload ?? "undefined"}\n\n`);
  }

  override heartbeat(): void {
    this.send(":thump\n");
  }

  end(): void {
    if (this.closed) return;
    try {
      this.controller.close();
    } catch {
      // already closed or errored
    }
  }

  terminate(): void {
    try {
      this.controller.error(new Error("stream dropped"));
    } catch {
      // already closed
    }
    this.gone();
  }
}
