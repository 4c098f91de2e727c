import type { App } from "../app.ts";
import type { BusMessage } from "../events/bus.ts";
import { topics } from "../events/topics.ts";
import type { Id } from "../lib/ids.ts";
import { usableTokenIds } from "../services/tokens.ts";
import { type Channel, StreamError, type StreamViewer } from "./channels.ts";
import { deliver, type DeliveryJob } from "./delivery.ts";
import { Frame, type StreamSession, type Subscription } from "./session.ts";

// Every open streaming connection of the process (streaming/DESIGN.md). The hub listens to the
// bus topics its subscriptions need, hands each turn's messages to delivery.ts, enforces the
// connection caps and the send-buffer bound, closes the connections of dead tokens, writes
// the SSE heartbeats and closes everything on shutdown.

/** How often the tokens behind open connections are checked (a revoked token's streams close within a second). */
const TOKEN_SWEEP_MS = 500;
/** SSE heartbeat comment (Mastodon's `:thump` every 15 s). */
const HEARTBEAT_MS = 15_000;
/**
 * Frames written per turn of the event loop. A slice of 256 writes takes a few milliseconds
 * (mostly the sockets' write calls); requests are served in between.
 */
const WRITES_PER_TURN = 256;
/** On shutdown, connections whose close handshake takes longer are cut. */
const CLOSE_GRACE_MS = 1_000;

export interface StreamingLimits {
  /** Open connections per account. */
  perUser: number;
  /** Open connections per client address. */
  perIp: number;
  /** Bytes a connection may have waiting to be sent; a client past it is dropped. */
  bufferBytes: number;
}

export class StreamingHub {
  private readonly sessions = new Set<StreamSession>();
  private readonly perAccount = new Map<Id, number>();
  private readonly perIp = new Map<string, number>();
  private readonly byTopic = new Map<string, Set<Subscription>>();
  /** Sessions by system topic (token, account): `kill` closes them. */
  private readonly bySystemTopic = new Map<string, Set<StreamSession>>();
  private readonly busUnsubscribe = new Map<string, () => void>();
  private pending: [string, BusMessage][] = [];
  private flushQueued = false;
  /** Frames rendered and waiting for their slice: subscription, frame, subscription, frame ... */
  private outbox: (Subscription | Frame)[] = [];
  private outboxHead = 0;
  /** A slice of the outbox is scheduled (setImmediate). */
  private slicing = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private closing = false;
  private readonly onBus = (topic: string, message: BusMessage) => this.receive(topic, message);

  constructor(
    private readonly app: App,
    readonly limits: StreamingLimits,
  ) {}

  /** Open connections, for the logs and tests. */
  get size(): number {
    return this.sessions.size;
  }

  /** Frames rendered and waiting for their slice (tests: delivery yields to the event loop). */
  get queuedWrites(): number {
    return (this.outbox.length - this.outboxHead) / 2;
  }

  /** Refuses a new connection over a cap (or while shutting down); null when it may open. */
  admission(viewer: StreamViewer, ip: string | null): StreamError | null {
    if (this.closing) return new StreamError(503, "The server is shutting down");
    if ((this.perAccount.get(viewer.accountId) ?? 0) >= this.limits.perUser) return new StreamError(429, "Too many streaming connections for this account");
    if (ip !== null && (this.perIp.get(ip) ?? 0) >= this.limits.perIp) return new StreamError(429, "Too many streaming connections from this address");
    return null;
  }

  /**
   * Registers an open connection; false (and nothing registered) when a cap filled up
   * since its admission: the caller then closes it.
   */
  add(session: StreamSession): boolean {
    const refused = this.admission(session.viewer, session.ip);
    if (refused) {
      this.app.log.info("stream refused", { transport: session.transport, accountId: session.viewer.accountId, reason: refused.message });
      return false;
    }
    this.sessions.add(session);
    bump(this.perAccount, session.viewer.accountId, 1);
    if (session.ip !== null) bump(this.perIp, session.ip, 1);
    for (const t of [topics.accessToken(session.viewer.tokenId), topics.system(session.viewer.accountId)]) {
      let set = this.bySystemTopic.get(t);
      if (!set) this.bySystemTopic.set(t, (set = new Set()));
      set.add(session);
      this.listen(t);
    }
    this.startTimers();
    this.app.log.info("stream opened", { transport: session.transport, accountId: session.viewer.accountId, connections: this.sessions.size });
    return true;
  }

  /** Adds a subscription; subscribing twice to a channel is a no-op (Mastodon). */
  subscribe(session: StreamSession, channel: Channel): void {
    if (session.closed || session.subscriptions.has(channel.key)) return;
    const sub: Subscription = { session, channel };
    session.subscriptions.set(channel.key, sub);
    for (const t of channel.topics) {
      let set = this.byTopic.get(t);
      if (!set) this.byTopic.set(t, (set = new Set()));
      set.add(sub);
      this.listen(t);
    }
  }

  /** Removes a subscription; false when the session had none by that key. */
  unsubscribe(session: StreamSession, key: string): boolean {
    const sub = session.subscriptions.get(key);
    if (!sub) return false;
    session.subscriptions.delete(key);
    for (const t of sub.channel.topics) {
      const set = this.byTopic.get(t);
      set?.delete(sub);
      if (set?.size === 0) {
        this.byTopic.delete(t);
        this.unlisten(t);
      }
    }
    return true;
  }

  /** Forgets a connection (StreamSession.gone, or a client dropped here). Safe to call more than once. */
  remove(session: StreamSession): void {
    if (!this.sessions.delete(session)) return;
    for (const key of [...session.subscriptions.keys()]) this.unsubscribe(session, key);
    bump(this.perAccount, session.viewer.accountId, -1);
    if (session.ip !== null) bump(this.perIp, session.ip, -1);
    for (const t of [topics.accessToken(session.viewer.tokenId), topics.system(session.viewer.accountId)]) {
      const set = this.bySystemTopic.get(t);
      set?.delete(session);
      if (set?.size === 0) {
        this.bySystemTopic.delete(t);
        this.unlisten(t);
      }
    }
    this.app.log.info("stream closed", { transport: session.transport, accountId: session.viewer.accountId, connections: this.sessions.size });
    if (this.sessions.size === 0) this.stopTimers();
  }

  /** Ends every connection (shutdown): close frames and ends of responses, then cuts the slow ones. */
  async close(): Promise<void> {
    this.closing = true;
    this.stopTimers();
    this.outbox = [];
    this.outboxHead = 0;
    const open = [...this.sessions];
    for (const s of open) s.end(true);
    const all = Promise.all(open.map((s) => s.finished));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), CLOSE_GRACE_MS)));
    if ((await Promise.race([all, late])) === "late") for (const s of open) if (!s.closed) s.terminate();
    clearTimeout(timer);
    await all;
    for (const s of open) this.remove(s);
    for (const off of this.busUnsubscribe.values()) off();
    this.busUnsubscribe.clear();
  }

  /** The SSE heartbeat comment on every SSE stream (every 15 s). */
  heartbeat(): void {
    for (const s of this.sessions) s.heartbeat();
  }

  private listen(topic: string): void {
    if (!this.busUnsubscribe.has(topic)) this.busUnsubscribe.set(topic, this.app.events.subscribe(topic, this.onBus));
  }

  private unlisten(topic: string): void {
    if (this.byTopic.has(topic) || this.bySystemTopic.has(topic)) return;
    this.busUnsubscribe.get(topic)?.();
    this.busUnsubscribe.delete(topic);
  }

  private receive(topic: string, message: BusMessage): void {
    const system = this.bySystemTopic.get(topic);
    if (system) {
      // filters_changed needs nothing here: the filters code forgot the compiled rules already.
      if (message.event === "kill") for (const s of [...system]) s.end();
    }
    if (!this.byTopic.has(topic)) return;
    this.pending.push([topic, message]);
    if (this.flushQueued) return;
    this.flushQueued = true;
    // After the bus's current drain: everything published in one turn is delivered together.
    queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.flushQueued = false;
    const batch = this.pending;
    this.pending = [];
    const jobs: DeliveryJob[] = [];
    for (const [topic, message] of batch) {
      for (const sub of this.byTopic.get(topic) ?? []) if (!sub.session.closed) jobs.push({ sub, message });
    }
    if (jobs.length === 0 || !this.app.db.open) return;
    // Frames by stream, event and payload: a public event is framed once for all its subscribers.
    const frames = new Map<string, Map<string | undefined, Frame>>();
    const before = this.outbox.length;
    deliver(this.app, jobs, (sub, event, payload) => {
      const key = `${event}\n${sub.channel.label.join("\n")}`;
      let byPayload = frames.get(key);
      if (!byPayload) frames.set(key, (byPayload = new Map()));
      let frame = byPayload.get(payload);
      if (!frame) byPayload.set(payload, (frame = new Frame(sub.channel.label, event, payload)));
      this.outbox.push(sub, frame);
    });
    // Behind earlier slices still due, so each stream keeps the order of its events.
    if (this.outbox.length > before && !this.slicing) this.writeSlice();
  }

  /**
   * Writes the next WRITES_PER_TURN queued frames, then yields to the event loop (setImmediate)
   * while more remain: a post with thousands of listeners does not hold back the requests
   * waiting. Each connection's frames of a slice leave in one socket write (flushWrites).
   */
  private writeSlice(): void {
    this.slicing = false;
    const box = this.outbox;
    const end = Math.min(this.outboxHead + 2 * WRITES_PER_TURN, box.length);
    const touched = new Set<StreamSession>();
    for (let i = this.outboxHead; i < end; i += 2) {
      const session = (box[i] as Subscription).session;
      if (session.closed) continue;
      session.write(box[i + 1] as Frame);
      touched.add(session);
    }
    this.outboxHead = end;
    if (end < box.length) {
      this.slicing = true;
      setImmediate(() => this.guard("delivery", () => this.writeSlice()));
    } else {
      this.outbox = [];
      this.outboxHead = 0;
    }
    for (const session of touched) this.guard("delivery", () => this.send(session));
  }

  private send(session: StreamSession): void {
    if (session.closed) return;
    const waiting = session.flushWrites();
    if (waiting > this.limits.bufferBytes) {
      // A client that does not read is dropped, never buffered without limit.
      this.app.log.warn("stream dropped: client not reading", { transport: session.transport, accountId: session.viewer.accountId, bufferedBytes: waiting });
      session.terminate();
      session.gone();
    }
  }

  /** Closes the connections whose token was revoked or expired, or whose owner may no longer log in. */
  private sweepTokens(): void {
    if (this.sessions.size === 0 || !this.app.db.open) return;
    const ids = new Set<Id>();
    for (const s of this.sessions) ids.add(s.viewer.tokenId);
    const live = usableTokenIds(this.app, ids);
    for (const s of [...this.sessions]) if (!live.has(s.viewer.tokenId) && !s.closed) s.end();
  }

  private startTimers(): void {
    if (this.sweepTimer || this.closing) return;
    this.sweepTimer = setInterval(() => this.guard("token sweep", () => this.sweepTokens()), TOKEN_SWEEP_MS).unref();
    this.heartbeatTimer = setInterval(() => this.guard("heartbeat", () => this.heartbeat()), HEARTBEAT_MS).unref();
  }

  private stopTimers(): void {
    clearInterval(this.sweepTimer);
    clearInterval(this.heartbeatTimer);
    this.sweepTimer = this.heartbeatTimer = undefined;
  }

  private guard(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.app.log.error(`streaming: ${what} failed`, { err });
    }
  }
}

function bump<K>(map: Map<K, number>, key: K, by: number): void {
  const n = (map.get(key) ?? 0) + by;
  if (n <= 0) map.delete(key);
  else map.set(key, n);
}
