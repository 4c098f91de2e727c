import { type DB, type Row, stmt, str, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Cheap yes/no questions about relationships, used by visibility rules, notifications and
// timelines. Each is one indexed lookup; batch variants answer for a page of accounts at once.

export function isFollowing(db: DB, accountId: Id, targetId: Id): boolean {
  return !!stmt(db, "SELECT 1 FROM follows WHERE account_id = ? AND target_account_id = ?").get(BigInt(accountId), BigInt(targetId));
}

export function isBlocking(db: DB, accountId: Id, targetId: Id): boolean {
  return !!stmt(db, "SELECT 1 FROM blocks WHERE account_id = ? AND target_account_id = ?").get(BigInt(accountId), BigInt(targetId));
}

/** Either side blocks the other. */
export function isBlockedEitherWay(db: DB, a: Id, b: Id): boolean {
  return !!stmt(
    db,
    `SELECT 1 FROM blocks WHERE (account_id = @a AND target_account_id = @b) OR (account_id = @b AND target_account_id = @a) LIMIT 1`,
  ).get({ a: BigInt(a), b: BigInt(b) });
}

/** An active (not expired) mute. */
export function isMuting(db: DB, accountId: Id, targetId: Id, now: number): boolean {
  return !!stmt(
    db,
    "SELECT 1 FROM mutes WHERE account_id = ? AND target_account_id = ? AND (expires_at IS NULL OR expires_at > ?)",
  ).get(BigInt(accountId), BigInt(targetId), now);
}

/** An active mute that also hides notifications. */
export function isMutingNotifications(db: DB, accountId: Id, targetId: Id, now: number): boolean {
  return !!stmt(
    db,
    "SELECT 1 FROM mutes WHERE account_id = ? AND target_account_id = ? AND hide_notifications = 1 AND (expires_at IS NULL OR expires_at > ?)",
  ).get(BigInt(accountId), BigInt(targetId), now);
}

export function isDomainBlocking(db: DB, accountId: Id, domain: string | null): boolean {
  if (!domain) return false;
  return !!stmt(db, "SELECT 1 FROM account_domain_blocks WHERE account_id = ? AND domain = ?").get(BigInt(accountId), domain.toLowerCase());
}

export function isConversationMuted(db: DB, accountId: Id, conversationId: Id | null): boolean {
  if (!conversationId) return false;
  return !!stmt(db, "SELECT 1 FROM conversation_mutes WHERE account_id = ? AND conversation_id = ?").get(
    BigInt(accountId),
    BigInt(conversationId),
  );
}

/** Account ids among `targets` that the viewer follows (one query for a page). */
export function followedAmong(db: DB, accountId: Id, targets: Iterable<Id>): Set<Id> {
  const rows = stmt(
    db,
    "SELECT target_account_id AS id FROM follows WHERE account_id = ? AND target_account_id IN (SELECT value FROM json_each(?))",
  ).all(BigInt(accountId), idListJson(targets)) as Row[];
  return new Set(rows.map((r) => str(r.id)));
}

/**
 * Account ids among `targets` whose content the viewer must not see: blocked by or blocking
 * the viewer, muted (active), or on a domain the viewer blocks. One query for a page.
 */
export function hiddenAuthorsAmong(db: DB, viewerId: Id, targets: Iterable<Id>, now: number): Set<Id> {
  const rows = stmt(
    db,
    `SELECT a.id FROM accounts a WHERE a.id IN (SELECT value FROM json_each(@ids)) AND (
       EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = @viewer AND b.target_account_id = a.id)
       OR EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = a.id AND b.target_account_id = @viewer)
       OR EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = @viewer AND m.target_account_id = a.id
                  AND (m.expires_at IS NULL OR m.expires_at > @now))
       OR (a.domain IS NOT NULL AND EXISTS (SELECT 1 FROM account_domain_blocks d
                  WHERE d.account_id = @viewer AND d.domain = lower(a.domain))))`,
  ).all({ ids: idListJson(targets), viewer: BigInt(viewerId), now }) as Row[];
  return new Set(rows.map((r) => str(r.id)));
}

/**
 * The same rule as hiddenAuthorsAmong, the other way round: which of `viewerIds` must not see
 * content by any of `authorIds` (blocked by or blocking it, muting it, or blocking its domain).
 * One query for all the viewers of a live-stream event; the two must agree (a unit test checks).
 */
export function viewersHidingAuthors(db: DB, viewerIds: Iterable<Id>, authorIds: Iterable<Id>, now: number): Set<Id> {
  const rows = stmt(
    db,
    `SELECT v.value AS id FROM json_each(@viewers) v WHERE EXISTS (
       SELECT 1 FROM accounts a WHERE a.id IN (SELECT value FROM json_each(@authors)) AND a.id <> v.value AND (
         EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = v.value AND b.target_account_id = a.id)
         OR EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = a.id AND b.target_account_id = v.value)
         OR EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = v.value AND m.target_account_id = a.id
                    AND (m.expires_at IS NULL OR m.expires_at > @now))
         OR (a.domain IS NOT NULL AND EXISTS (SELECT 1 FROM account_domain_blocks d
                    WHERE d.account_id = v.value AND d.domain = lower(a.domain)))))`,
  ).all({ viewers: idListJson(viewerIds), authors: idListJson(authorIds), now }) as Row[];
  return new Set(rows.map((r) => str(r.id)));
}
