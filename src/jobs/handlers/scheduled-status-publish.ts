import type { App } from "../../app.ts";
import { parseId } from "../../lib/ids.ts";
import { PermanentJobError } from "../../errors.ts";
import { publishScheduledStatus } from "../../services/scheduled-statuses.ts";

/**
 * `scheduled_status.publish` {id}: enqueued to run at a scheduled post's time. Transactional:
 * synchronous, database writes only, so the status, the removal of the scheduled row and the
 * end of this job commit together (and a batch of posts due at once shares one commit).
 */
export function handleScheduledStatusPublish(app: App, payload: { id?: unknown }): void {
  const id = parseId(payload?.id);
  if (!id) throw new PermanentJobError("scheduled_status.publish without a valid id");
  publishScheduledStatus(app, id);
}
