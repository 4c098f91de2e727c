// Streaming clients for tests: a real WebSocket client (`ws`) and SSE read over node:http,
// each queueing what arrives so a test can await the next event. A test asserts that nothing
// arrived by publishing a later event that must arrive, then checking it is the next one:
// events of one connection arrive in the order they were published.
import assert from "node:assert/strict";
import { request, type IncomingMessage } from "node:http";
import WebSocket from "ws";
import type { TestServer } from "./server.ts";

/** Guards a wait for something that must happen: a failure, never a pause. */
const GUARD_MS = 10_000;

export interface StreamEvent {
  stream?: string[];
  event: string;
  /** As sent: a string (entity JSON or a bare id), or undefined. */
  payload?: string;
}

class Queue<T> {
  private items: T[] = [];
  private waiting: ((v: T) => void)[] = [];
  push(v: T): void {
    const w = this.waiting.shift();
    if (w) w(v);
    else this.items.push(v);
  }
  next(what: string): Promise<T> {
    const v = this.items.shift();
    if (v !== undefined) return Promise.resolve(v);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), GUARD_MS);
      this.waiting.push((x) => {
        clearTimeout(timer);
        resolve(x);
      });
    });
  }
  get pending(): T[] {
    return this.items;
  }
}

export interface SocketOptions {
  /** How the token travels: sub-protocol (browsers, masto.js), query or Authorization header. */
  via?: "protocol" | "query" | "header";
  /** Path and query after the host; default /api/v1/streaming. */
  path?: string;
}

export class TestSocket {
  readonly frames = new Queue<{ text: string; binary: boolean }>();
  readonly closed: Promise<{ code: number; reason: string }>;
  /** The 101 response's headers. */
  upgradeHeaders: Record<string, unknown> = {};
  constructor(readonly ws: WebSocket) {
    ws.on("upgrade", (res) => (this.upgradeHeaders = res.headers));
    ws.on("message", (data, binary) => this.frames.push({ text: String(data), binary }));
    this.closed = new Promise((resolve) => ws.once("close", (code, reason) => resolve({ code, reason: String(reason) })));
  }

  static open(s: TestServer, token: string | null, o: SocketOptions = {}): Promise<TestSocket> {
    const via = o.via ?? "protocol";
    let url = s.url.replace(/^http/, "ws") + (o.path ?? "/api/v1/streaming");
    if (token && via === "query") url += (url.includes("?") ? "&" : "?") + `access_token=${encodeURIComponent(token)}`;
    const headers: Record<string, string> = token && via === "header" ? { authorization: `Bearer ${token}` } : {};
    const ws = new WebSocket(url, token && via === "protocol" ? [token] : [], { headers });
    const socket = new TestSocket(ws);
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(socket));
      ws.once("unexpected-response", (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, headers: res.headers })));
      ws.once("error", reject);
    });
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  subscribe(stream: string | string[], params: Record<string, unknown> = {}): void {
    this.send({ type: "subscribe", stream, ...params });
  }

  /** The next frame, parsed; it must be a text frame. */
  async next(): Promise<Record<string, any>> {
    const f = await this.frames.next("a WebSocket frame");
    assert.equal(f.binary, false, "events come as text frames");
    return JSON.parse(f.text);
  }

  /** The next frame, which must be an event (not an error frame). */
  async nextEvent(): Promise<StreamEvent> {
    const m = await this.next();
    assert.ok(typeof m.event === "string", `expected an event, got ${JSON.stringify(m)}`);
    return m as StreamEvent;
  }

  close(): void {
    this.ws.close();
  }
}

/** An SSE response read as events (`event:` + `data:`) and comments (`:)`, `:thump`). */
export class TestEventStream {
  readonly events = new Queue<StreamEvent>();
  readonly comments: string[] = [];
  readonly ended: Promise<void>;
  private buf = "";
  constructor(readonly res: IncomingMessage) {
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => this.feed(chunk));
    this.ended = new Promise((resolve) => {
      res.once("end", resolve);
      res.once("close", resolve);
      res.once("error", () => resolve());
    });
  }

  private feed(chunk: string): void {
    this.buf += chunk;
    for (;;) {
      const comment = /^:([^\n]*)\n/.exec(this.buf);
      if (comment) {
        this.comments.push(comment[1]);
        this.buf = this.buf.slice(comment[0].length);
        continue;
      }
      const end = this.buf.indexOf("\n\n");
      if (end === -1 || this.buf.startsWith(":")) return;
      const block = this.buf.slice(0, end);
      this.buf = this.buf.slice(end + 2);
      const fields = Object.fromEntries(block.split("\n").map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]));
      this.events.push({ event: fields.event, payload: fields.data });
    }
  }

  next(): Promise<StreamEvent> {
    return this.events.next("an SSE event");
  }

  close(): void {
    this.res.destroy();
  }

  /** GET an SSE path; resolves with the stream (200) or the status and JSON body of a refusal. */
  static open(s: TestServer, token: string | null, path: string): Promise<TestEventStream | { status: number; body: any; headers: IncomingMessage["headers"] }> {
    return new Promise((resolve, reject) => {
      const req = request(s.url + path, { agent: false, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
        if (res.statusCode !== 200) {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (text += c));
          res.on("end", () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null, headers: res.headers }));
          return;
        }
        resolve(new TestEventStream(res));
      });
      req.on("error", reject);
      req.end();
    });
  }
}

/** Opens an SSE stream that must be accepted. */
export async function openEventStream(s: TestServer, token: string, path: string): Promise<TestEventStream> {
  const r = await TestEventStream.open(s, token, path);
  assert.ok(r instanceof TestEventStream, `${path} refused: ${JSON.stringify((r as { body: unknown }).body)}`);
  return r;
}

/** A WebSocket upgrade that must be refused: its status and headers. */
export async function refusedUpgrade(s: TestServer, token: string | null, o: SocketOptions = {}): Promise<{ status: number; headers: Record<string, unknown> }> {
  try {
    const socket = await TestSocket.open(s, token, o);
    socket.close();
  } catch (e) {
    const err = e as { status?: number; headers?: Record<string, unknown> };
    if (err.status) return { status: err.status, headers: err.headers ?? {} };
    throw e;
  }
  throw new Error("the upgrade was accepted");
}

/** The entity of an event's payload. */
export const entity = (e: StreamEvent): Record<string, any> => JSON.parse(e.payload!);
