// Storing an activity once and queueing its deliveries, inside the caller's transaction.
import type { App } from "../../app.ts";
import type { Id } from "../../lib/ids.ts";
import { insertOutgoingActivity } from "../../storage/outgoing-activities.ts";
import type { ApObject } from "../types.ts";

export const DISTRIBUTE_JOB = "federation.distribute";
export const DELIVER_JOB = "federation.deliver";
export const FEDERATION_QUEUE = "federation";
/** AP §9.3: up to 16 attempts, over about three days (deliveryBackoffMs). */
export const DELIVERY_MAX_ATTEMPTS = 16;
/**
 * Above this many inboxes the deliveries are queued by a `federation.distribute` fan-out job,
 * so a user's transaction (deleting a post seen by many servers) stays short.
 */
const INLINE_DELIVERIES = 16;

/** Payload of `federation.deliver`: kept tiny, there is one per inbox. */
export interface DeliverPayload {
  /** outgoing_activities id. */
  a: Id;
  /** Inbox URL. */
  i: string;
  /** Follow requests are delivered even to peers marked unavailable (AP §9.3). */
  f?: 1;
}

export interface Outgoing {
  /** The acting local account; null for the instance actor (reports). */
  actorAccountId: Id | null;
  activity: ApObject;
  inboxes: string[];
  bypassAvailability?: boolean;
}

/** Queues one delivery per inbox of an activity already stored as `activityId`. */
export function enqueueDeliveries(app: App, activityId: Id, inboxes: string[], bypassAvailability = false): void {
  for (const inbox of inboxes) {
    const payload: DeliverPayload = bypassAvailability ? { a: activityId, i: inbox, f: 1 } : { a: activityId, i: inbox };
    app.jobs.enqueue(DELIVER_JOB, payload, { queue: FEDERATION_QUEUE, maxAttempts: DELIVERY_MAX_ATTEMPTS });
  }
}

/**
 * Stores the activity body once and queues its deliveries (directly, or through a fan-out job
 * when there are many). Synchronous; runs inside the caller's transaction. Returns the
 * outgoing activity id, or undefined when there is nobody to send to.
 */
export function sendActivity(app: App, o: Outgoing): Id | undefined {
  if (o.inboxes.length === 0) return undefined;
  const id = app.ids.next();
  insertOutgoingActivity(app.db, { id, actorAccountId: o.actorAccountId, body: JSON.stringify(o.activity), createdAt: app.now() });
  if (o.inboxes.length <= INLINE_DELIVERIES) enqueueDeliveries(app, id, o.inboxes, o.bypassAvailability);
  else app.jobs.enqueue(DISTRIBUTE_JOB, { kind: "fanout", a: id, inboxes: o.inboxes, f: o.bypassAvailability ? 1 : undefined }, { queue: FEDERATION_QUEUE });
  return id;
}
