import type { App } from "../../app.ts";
import { parseId } from "../../lib/ids.ts";
import { PermanentJobError } from "../../errors.ts";
import { fanOutStatus } from "../../services/fanout.ts";

/**
 * `status.fanout` {statusId, followersAfter?}: enqueued with every new status and boost, and
 * by a fan-out itself for the followers after its first batch. Registered as transactional:
 * synchronous, database writes only.
 */
export function handleStatusFanout(app: App, payload: { statusId?: unknown; followersAfter?: unknown }): void {
  const statusId = parseId(payload?.statusId);
  if (!statusId) throw new PermanentJobError("status.fanout without a valid statusId");
  let followersAfter: string | undefined;
  if (payload.followersAfter !== undefined) {
    followersAfter = parseId(payload.followersAfter);
    if (!followersAfter) throw new PermanentJobError("status.fanout with an invalid followersAfter");
  }
  fanOutStatus(app, statusId, { followersAfter });
}
