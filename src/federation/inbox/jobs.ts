import type { App } from "../../app.ts";
import { tx } from "../../db/db.ts";
import { PermanentJobError } from "../../errors.ts";
import { isId } from "../../lib/ids.ts";
import { purgeActivityIds } from "../../storage/inbox-activity-ids.ts";
import { isObject } from "../parse/common.ts";
import { processInboxActivity } from "./dispatch.ts";
import { INBOX_QUEUE, type InboxJobPayload, waitForIntakeLull } from "./intake.ts";

const HOUR = 3600_000;
/**
 * How long an activity id is remembered. Senders retry failed deliveries for days (Mastodon:
 * 16 attempts over ~3 days), and a retry of something we already took must stay a no-op.
 */
export const ACTIVITY_ID_TTL_MS = 7 * 24 * HOUR;
const PURGE_BATCH = 5000;

function checkPayload(p: unknown): InboxJobPayload {
  const payload = p as Partial<InboxJobPayload>;
  if (!isObject(payload) || !isObject(payload.activity) || !isId(payload.signerId) || (payload.recipientId !== undefined && !isId(payload.recipientId))) {
    throw new PermanentJobError("inbox.process: malformed payload");
  }
  return payload as InboxJobPayload;
}

/** Forgets old activity ids, a batch per transaction so that requests are served in between. */
export function purgeOldActivityIds(app: App): number {
  const before = app.now() - ACTIVITY_ID_TTL_MS;
  let total = 0;
  for (;;) {
    const n = tx(app.db, () => purgeActivityIds(app.db, before, PURGE_BATCH));
    total += n;
    if (n < PURGE_BATCH) return total;
  }
}

/** `inbox.process` and any other job of the inbox side. */
export function registerInboxJobs(app: App): void {
  app.jobs.register(
    "inbox.process",
    async (a, payload) => {
      const checked = checkPayload(payload);
      await waitForIntakeLull(a);
      await processInboxActivity(a, checked);
    },
    { queue: INBOX_QUEUE },
  );
  app.jobs.every("inbox.purge-activity-ids", HOUR, (a) => void purgeOldActivityIds(a));
}
