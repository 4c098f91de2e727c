import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { loadRelationshipStates, type RelationshipState } from "../storage/relationships.ts";

// https://docs.joinmastodon.org/entities/Relationship/ — flattened flags (showing_reblogs,
// notifying, muting_notifications ...), in Mastodon's key order.

export interface ApiRelationship {
  id: string;
  following: boolean;
  showing_reblogs: boolean;
  notifying: boolean;
  languages: string[] | null;
  followed_by: boolean;
  blocking: boolean;
  blocked_by: boolean;
  muting: boolean;
  muting_notifications: boolean;
  muting_expires_at: string | null;
  requested: boolean;
  requested_by: boolean;
  domain_blocking: boolean;
  endorsed: boolean;
  note: string;
}

/** Values that replace the stored state (the follow endpoint's optimistic answer). */
export type RelationshipOverride = Partial<Omit<ApiRelationship, "id">>;

function toApi(s: RelationshipState): ApiRelationship {
  // The options come from the follow, else from the pending request (reblogs hold from the start).
  const opts = s.follow ?? s.request;
  return {
    id: s.id,
    following: s.follow !== null,
    showing_reblogs: opts?.showReblogs ?? false,
    notifying: opts?.notify ?? false,
    languages: opts?.languages ?? null,
    followed_by: s.followedBy,
    blocking: s.blocking,
    blocked_by: s.blockedBy,
    muting: s.mute !== null,
    muting_notifications: s.mute?.hideNotifications ?? false,
    muting_expires_at: s.mute?.expiresAt != null ? new Date(s.mute.expiresAt).toISOString() : null,
    requested: s.request !== null,
    requested_by: s.requestedBy,
    domain_blocking: s.domainBlocking,
    endorsed: s.endorsed,
    note: s.note,
  };
}

/**
 * Relationships of the viewer to each target, in `targetIds` order (unknown ids skipped).
 * One query for the whole batch.
 */
export function toApiRelationships(
  app: App,
  viewerId: Id,
  targetIds: Id[],
  overrides?: Map<Id, RelationshipOverride>,
): ApiRelationship[] {
  const states = loadRelationshipStates(app.db, viewerId, targetIds, app.now());
  const out: ApiRelationship[] = [];
  for (const id of targetIds) {
    const s = states.get(id);
    if (!s) continue;
    const o = overrides?.get(id);
    out.push(o ? { ...toApi(s), ...o } : toApi(s));
  }
  return out;
}

export function toApiRelationship(app: App, viewerId: Id, targetId: Id, override?: RelationshipOverride): ApiRelationship {
  const [r] = toApiRelationships(app, viewerId, [targetId], override ? new Map([[targetId, override]]) : undefined);
  return r;
}
