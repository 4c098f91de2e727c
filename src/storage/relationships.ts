import { type DB, type Row, stmt, str, numOrNull, bool, json, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

/** Everything Mastodon's Relationship entity says about viewer → target, from stored state. */
export interface RelationshipState {
  id: Id;
  /** The viewer's accepted follow, with its options. */
  follow: { showReblogs: boolean; notify: boolean; languages: string[] | null } | null;
  /** The viewer's pending follow request, with its options. */
  request: { showReblogs: boolean; notify: boolean; languages: string[] | null } | null;
  followedBy: boolean;
  requestedBy: boolean;
  blocking: boolean;
  blockedBy: boolean;
  /** The viewer's active mute. */
  mute: { hideNotifications: boolean; expiresAt: number | null } | null;
  domainBlocking: boolean;
  endorsed: boolean;
  note: string;
}

/**
 * One query for a whole batch: each flag is a lookup on a unique or (owner, target) index,
 * so the cost is fixed per target however large the relationship tables grow.
 */
export function loadRelationshipStates(db: DB, viewerId: Id, targetIds: Iterable<Id>, now: number): Map<Id, RelationshipState> {
  const rows = stmt(
    db,
    `SELECT a.id,
       f.id AS f_id, f.show_reblogs AS f_reblogs, f.notify AS f_notify, f.languages AS f_languages,
       r.id AS r_id, r.show_reblogs AS r_reblogs, r.notify AS r_notify, r.languages AS r_languages,
       m.id AS m_id, m.hide_notifications AS m_hide, m.expires_at AS m_expires,
       n.comment AS note,
       EXISTS (SELECT 1 FROM follows x WHERE x.account_id = a.id AND x.target_account_id = @viewer) AS followed_by,
       EXISTS (SELECT 1 FROM follow_requests x WHERE x.account_id = a.id AND x.target_account_id = @viewer) AS requested_by,
       EXISTS (SELECT 1 FROM blocks x WHERE x.account_id = @viewer AND x.target_account_id = a.id) AS blocking,
       EXISTS (SELECT 1 FROM blocks x WHERE x.account_id = a.id AND x.target_account_id = @viewer) AS blocked_by,
       EXISTS (SELECT 1 FROM account_pins x WHERE x.account_id = @viewer AND x.target_account_id = a.id) AS endorsed,
       (a.domain IS NOT NULL AND EXISTS (SELECT 1 FROM account_domain_blocks x
          WHERE x.account_id = @viewer AND x.domain = lower(a.domain))) AS domain_blocking
     FROM accounts a
     LEFT JOIN follows f ON f.account_id = @viewer AND f.target_account_id = a.id
     LEFT JOIN follow_requests r ON r.account_id = @viewer AND r.target_account_id = a.id
     LEFT JOIN mutes m ON m.account_id = @viewer AND m.target_account_id = a.id AND (m.expires_at IS NULL OR m.expires_at > @now)
     LEFT JOIN account_notes n ON n.account_id = @viewer AND n.target_account_id = a.id
     WHERE a.id IN (SELECT value FROM json_each(@ids))`,
  ).all({ viewer: BigInt(viewerId), ids: idListJson(targetIds), now }) as Row[];
  const out = new Map<Id, RelationshipState>();
  for (const r of rows) {
    const id = str(r.id);
    out.set(id, {
      id,
      follow:
        r.f_id === null
          ? null
          : { showReblogs: bool(r.f_reblogs), notify: bool(r.f_notify), languages: json<string[] | null>(r.f_languages, null) },
      request:
        r.r_id === null
          ? null
          : { showReblogs: bool(r.r_reblogs), notify: bool(r.r_notify), languages: json<string[] | null>(r.r_languages, null) },
      followedBy: bool(r.followed_by),
      requestedBy: bool(r.requested_by),
      blocking: bool(r.blocking),
      blockedBy: bool(r.blocked_by),
      mute: r.m_id === null ? null : { hideNotifications: bool(r.m_hide), expiresAt: numOrNull(r.m_expires) },
      domainBlocking: bool(r.domain_blocking),
      endorsed: bool(r.endorsed),
      note: (r.note as string | null) ?? "",
    });
  }
  return out;
}

/**
 * FamiliarFollowers: for each target, the accounts the viewer follows that follow it too.
 * Followers that hide their collections are left out (their follows are private), as are
 * suspended ones. Newest follow first.
 */
export function familiarFollowersOf(db: DB, viewerId: Id, targetIds: Iterable<Id>): Map<Id, Id[]> {
  const rows = stmt(
    db,
    `SELECT f2.target_account_id AS target, f2.account_id AS follower
     FROM follows f2
     JOIN follows f1 ON f1.account_id = @viewer AND f1.target_account_id = f2.account_id
     JOIN accounts a ON a.id = f2.account_id
     WHERE f2.target_account_id IN (SELECT value FROM json_each(@ids))
       AND a.suspended_at IS NULL AND a.hide_collections = 0
     ORDER BY f2.id DESC`,
  ).all({ viewer: BigInt(viewerId), ids: idListJson(targetIds) }) as Row[];
  const out = new Map<Id, Id[]>();
  for (const r of rows) {
    const t = str(r.target);
    let list = out.get(t);
    if (!list) out.set(t, (list = []));
    list.push(str(r.follower));
  }
  return out;
}
