import type { App } from "../../app.ts";
import { parseId } from "../../lib/ids.ts";
import { PermanentJobError } from "../../errors.ts";
import { mergeIntoHome } from "../../services/feeds.ts";

/**
 * `feed.merge` {ownerId, targetId}: backfills the owner's home with the target's recent posts
 * (enqueued by follows and unmutes). Transactional: synchronous, database writes only;
 * re-running it adds nothing twice (INSERT OR IGNORE).
 */
export function handleFeedMerge(app: App, payload: { ownerId?: unknown; targetId?: unknown }): void {
  const ownerId = parseId(payload?.ownerId);
  const targetId = parseId(payload?.targetId);
  if (!ownerId || !targetId) throw new PermanentJobError("feed.merge needs ownerId and targetId");
  mergeIntoHome(app, ownerId, targetId);
}
