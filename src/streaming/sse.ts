import type { StreamViewer } from "./channels.ts";
import type { StreamingHub } from "./hub.ts";
import { type Frame, StreamSession } from "./session.ts";

// The Server-Sent Events transport (streaming.md §5): one stream per response. The body is a
// ReadableStream the HTTP layer sends as it is read, so what the client has not taken yet
// waits in its queue, and that queue is what the hub bounds.

const encoder = new TextEncoder();
const THUMP = encoder.encode(":thump\n");

export class SseSession extends StreamSession {
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private queued: Uint8Array[] = [];
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

  private send(bytes: Uint8Array): number {
    if (this.closed) return 0;
    try {
      this.controller.enqueue(bytes);
    } catch {
      return 0; // ended (end()) and not yet gone: nothing more is sent
    }
    return -(this.controller.desiredSize ?? 0);
  }

  write(f: Frame): void {
    // An event without a payload still needs a data line, or EventSource drops it.
    f.sse ??= encoder.encode(`event: ${f.event}\ndata: ${f.payload ?? "undefined"}\n\n`);
    this.queued.push(f.sse);
  }

  flushWrites(): number {
    const q = this.queued;
    if (q.length === 0) return -(this.controller.desiredSize ?? 0);
    this.queued = [];
    // One chunk for the whole burst: the response writes (and frames) each chunk on its own.
    return this.send(q.length === 1 ? q[0] : Buffer.concat(q));
  }

  override heartbeat(): void {
    this.send(THUMP);
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
