import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import type { Account } from "../storage/accounts.ts";
import { deleteNotificationsBetween } from "../storage/blocks.ts";
import { activeMutesAmong, deleteMute, listMutesPage, type Mute, upsertMute } from "../storage/mutes.ts";
import type { KeysetPage, PageRow } from "../storage/relationship-pages.ts";
import { clearFeeds } from "./follows.ts";
import { scheduleFeedMerge } from "./feeds.ts";
import { isFollowing } from "../storage/relationship-checks.ts";
import { inTx } from "../db/db.ts";

// Mastodon's MuteService (+ the BlockWorker/MuteWorker it schedules) and UnmuteService.

// 9999-12-31T23:59:59.999Z: a huge duration must still render as an RFC 3339 datetime.
const MAX_TIME = 253_402_300_799_999;

export interface MuteInput {
  /** Also hide their notifications; default true. */
  notifications?: boolean;
  /** Seconds; 0 (default) or less = until unmuted. */
  duration?: number;
}

/**
 * POST /api/v1/accounts/:id/mute: creates the mute or replaces its options. A mute that hides
 * notifications also clears the existing ones from that account, as Mastodon's BlockWorker.
 * Muting oneself does nothing.
 */
export function muteAccount(app: App, source: Account, target: Account, input: MuteInput): Mute | undefined {
  if (source.id === target.id) return undefined;
  const now = app.now();
  const hide = input.notifications ?? true;
  const duration = input.duration ?? 0;
  const mute = inTx(app.db, () => {
    const m = upsertMute(
      app.db,
      {
        id: app.ids.next(),
        accountId: source.id,
        targetAccountId: target.id,
        hideNotifications: hide,
        expiresAt: duration > 0 ? Math.min(now + duration * 1000, MAX_TIME) : null,
        createdAt: now,
        updatedAt: now,
      },
      now,
    );
    if (hide) deleteNotificationsBetween(app.db, source.id, target.id);
    return m;
  });
  clearFeeds(app, source, target.id);
  return mute;
}

/** POST /api/v1/accounts/:id/unmute. Idempotent. */
export function unmuteAccount(app: App, source: Account, target: Account): void {
  inTx(app.db, () => {
    // Mastodon's UnmuteService: the account's posts come back into a follower's home and lists.
    if (deleteMute(app.db, source.id, target.id) && isFollowing(app.db, source.id, target.id)) scheduleFeedMerge(app, source.id, target.id);
  });
}

/** GET /api/v1/mutes: the page and, per muted account, when its mute ends (null = never). */
export function listMutes(app: App, owner: Account, page: KeysetPage): { rows: PageRow[]; expiresAt: Map<Id, number | null> } {
  const now = app.now();
  const rows = listMutesPage(app.db, owner.id, page, now);
  const mutes = activeMutesAmong(app.db, owner.id, rows.map((r) => r.accountId), now);
  return { rows, expiresAt: new Map([...mutes].map(([id, m]) => [id, m.expiresAt])) };
}
