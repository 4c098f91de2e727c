import type { App } from "../../app.ts";
import { purgeOutgoingActivities } from "../../storage/outgoing-activities.ts";
import { handleDeliver } from "../delivery.ts";
import { handleDistribute } from "./distribute.ts";
import { DELIVER_JOB, DISTRIBUTE_JOB, FEDERATION_QUEUE } from "./send.ts";

const HOUR = 3_600_000;

/**
 * Mastodon's delivery retry schedule (AP §9.3): attempt⁴ + 15 s plus jitter, so 16 attempts
 * span about three days and a peer down for a weekend still gets what was sent meanwhile.
 */
export function deliveryBackoffMs(attempts: number): number {
  return (attempts ** 4 + 15 + Math.floor(Math.random() * 10) * (attempts + 1)) * 1000;
}

/** `federation.distribute`, `federation.deliver` and the outbox side's periodic tasks. */
export function registerOutboxJobs(app: App): void {
  // Database writes only (build, store, queue deliveries): batched in one commit with others.
  app.jobs.register(DISTRIBUTE_JOB, handleDistribute, { queue: FEDERATION_QUEUE, transactional: true });
  // Network-bound: the "federation" queue runs 16 at a time.
  app.jobs.register(DELIVER_JOB, handleDeliver, { queue: FEDERATION_QUEUE, backoff: deliveryBackoffMs });
  // A body is kept while a job still refers to it (retries go on for about three days);
  // the hour of grace keeps the bodies of recent deliveries for an operator to look at.
  app.jobs.every("federation.outgoing-purge", HOUR, (a) => {
    const n = purgeOutgoingActivities(a.db, a.now() - HOUR, [DELIVER_JOB, DISTRIBUTE_JOB]);
    if (n > 0) a.log.info("purged outgoing activities", { count: n });
  });
}
