import { afterCommit } from "../db/after-commit.ts";
import type { DB } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import type { Log } from "../lib/log.ts";

// The in-process event bus (issue 11 part 1): what Mastodon sends through Redis pub/sub.
// Producers (services/stream-events.ts) publish small messages naming the rows that changed;
// a message is delivered only after the transaction that wrote those rows commits, and never
// at all if it rolls back. Publishing is synchronous and cheap (a map lookup, an array push)
// and can neither block nor fail the write: listeners run later, on their own turn of the
// event loop, each in a try/catch. Listeners render what they need themselves
// (streaming/delivery.ts), so nothing is rendered for a topic nobody listens to.

export type BusEventName =
  | "update"
  | "status.update"
  | "delete"
  | "notification"
  | "notifications_merged"
  | "conversation"
  | "filters_changed"
  | "announcement"
  | "announcement.reaction"
  | "announcement.delete"
  /** System: the connections of a token or an account must close. */
  | "kill";

export interface BusMessage {
  event: BusEventName;
  /** update, status.update, delete. */
  statusId?: Id;
  notificationId?: Id;
  /** conversation: the account_conversations row. */
  conversationId?: Id;
  /** announcement, announcement.reaction: rendered on delivery (streaming/delivery.ts). */
  announcementId?: Id;
  /** announcement.reaction: the emoji whose count changed. */
  reactionName?: string;
  /** A payload given as is (notifications_merged, announcement.delete). */
  payload?: string;
}

export type BusListener = (topic: string, message: BusMessage) => void;

export class EventBus {
  private readonly listeners = new Map<string, Set<BusListener>>();
  private readonly observers = new Set<BusListener>();
  private queue: [string, BusMessage][] = [];
  private scheduled = false;

  constructor(
    private readonly db: DB,
    private readonly log: Log,
  ) {}

  /** Listens to one topic; returns the unsubscribe function. */
  subscribe(topic: string, listener: BusListener): () => void {
    let set = this.listeners.get(topic);
    if (!set) this.listeners.set(topic, (set = new Set()));
    set.add(listener);
    return () => {
      const s = this.listeners.get(topic);
      if (!s) return;
      s.delete(listener);
      if (s.size === 0) this.listeners.delete(topic);
    };
  }

  /**
   * Sees every message of every topic (after commit, like subscribers): for consumers that
   * act on events of accounts with no open stream (Web Push).
   */
  observe(listener: BusListener): () => void {
    this.observers.add(listener);
    return () => this.observers.delete(listener);
  }

  /** Whether anything listens at all (producers skip look-ups otherwise). */
  listening(): boolean {
    return this.observers.size > 0 || this.listeners.size > 0;
  }

  /** Whether a message on `topic` would reach anyone (producers skip work otherwise). */
  wants(topic: string): boolean {
    return this.observers.size > 0 || this.listeners.has(topic);
  }

  /** Delivers `message` to the topic's listeners once the current transaction commits. */
  publish(topic: string, message: BusMessage): void {
    if (!this.wants(topic)) return;
    afterCommit(this.db, () => this.enqueue(topic, message), (err) => this.log.error("event bus: publish failed", { topic, err }));
  }

  private enqueue(topic: string, message: BusMessage): void {
    this.queue.push([topic, message]);
    if (this.scheduled) return;
    this.scheduled = true;
    // Never in the writer's turn: its response goes out first.
    setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    for (const [topic, message] of batch) {
      for (const l of this.observers) this.call(l, topic, message);
      const set = this.listeners.get(topic);
      if (set) for (const l of [...set]) this.call(l, topic, message);
    }
  }

  private call(l: BusListener, topic: string, message: BusMessage): void {
    try {
      l(topic, message);
    } catch (err) {
      this.log.error("event bus: listener failed", { topic, event: message.event, err });
    }
  }
}
