import type { App } from "../../app.ts";
import { parseId } from "../../lib/ids.ts";
import { PermanentJobError } from "../../errors.ts";
import { fanOutStatus } from "../../services/fanout.ts";

/** `status.fanout` {statusId}: enqueued with every new status and boost. */
export function handleStatusFanout(app: App, payload: { statusId?: unknown }): void {
  const statusId = parseId(payload?.statusId);
  if (!statusId) throw new PermanentJobError("status.fanout without a valid statusId");
  fanOutStatus(app, statusId);
}
