import type { App } from "../../app.ts";
import { parseId } from "../../lib/ids.ts";
import { PermanentJobError } from "../../errors.ts";
import { mergeIntoFeeds, mergeIntoList } from "../../services/feeds.ts";

/**
 * `feed.merge` {ownerId, targetId}: backfills the owner's home and the owner's lists that
 * contain the target with the target's recent posts (follows, accepted requests, unmutes).
 * {listId, targetId}: backfills one list with a member just added. Transactional: synchronous,
 * database writes only; re-running it adds nothing twice (INSERT OR IGNORE).
 */
export function handleFeedMerge(app: App, payload: { ownerId?: unknown; targetId?: unknown; listId?: unknown }): void {
  const targetId = parseId(payload?.targetId);
  if (payload?.listId !== undefined) {
    const listId = parseId(payload.listId);
    if (!listId || !targetId) throw new PermanentJobError("feed.merge needs listId and targetId");
    mergeIntoList(app, listId, targetId);
    return;
  }
  const ownerId = parseId(payload?.ownerId);
  if (!ownerId || !targetId) throw new PermanentJobError("feed.merge needs ownerId and targetId");
  mergeIntoFeeds(app, ownerId, targetId);
}
