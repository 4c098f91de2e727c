import { type DB, type Row, stmt, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export type PolicyAction = "accept" | "filter" | "drop";

/** The five kinds of sender a notification policy rules on (Mastodon 4.3's `for_*`). */
export const POLICY_FIELDS = [
  "for_not_following",
  "for_not_followers",
  "for_new_accounts",
  "for_private_mentions",
  "for_limited_accounts",
] as const;
export type PolicyField = (typeof POLICY_FIELDS)[number];

export type NotificationPolicy = Record<PolicyField, PolicyAction>;

/** What a recipient without a policy row gets (Mastodon's column defaults). */
export const DEFAULT_POLICY: Readonly<NotificationPolicy> = Object.freeze({
  for_not_following: "accept",
  for_not_followers: "accept",
  for_new_accounts: "accept",
  for_private_mentions: "filter",
  for_limited_accounts: "filter",
});

/** A policy with its summary, as the policy endpoints show it. */
export interface PolicyView {
  policy: Readonly<NotificationPolicy>;
  pendingRequests: number;
  pendingNotifications: number;
}

/** v1's booleans, each standing for one v2 field (v1 has no limited-accounts switch). */
export const V1_FIELDS = {
  filter_not_following: "for_not_following",
  filter_not_followers: "for_not_followers",
  filter_new_accounts: "for_new_accounts",
  filter_private_mentions: "for_private_mentions",
} as const satisfies Record<string, PolicyField>;
export type V1Field = keyof typeof V1_FIELDS;

function rowToPolicy(r: Row): NotificationPolicy {
  const out = { ...DEFAULT_POLICY };
  for (const f of POLICY_FIELDS) out[f] = r[f] as PolicyAction;
  return out;
}

/** The recipient's stored policy, or undefined (the defaults apply). */
export function findNotificationPolicy(db: DB, accountId: Id): NotificationPolicy | undefined {
  const r = stmt(db, `SELECT ${POLICY_FIELDS.join(", ")} FROM notification_policies WHERE account_id = ?`).get(BigInt(accountId)) as
    | Row
    | undefined;
  return r && rowToPolicy(r);
}

export function upsertNotificationPolicy(db: DB, accountId: Id, p: NotificationPolicy, now: number): void {
  stmt(
    db,
    `INSERT INTO notification_policies (account_id, ${POLICY_FIELDS.join(", ")}, created_at, updated_at)
     VALUES (@account, ${POLICY_FIELDS.map((f) => "@" + f).join(", ")}, @now, @now)
     ON CONFLICT (account_id) DO UPDATE SET ${POLICY_FIELDS.map((f) => `${f} = excluded.${f}`).join(", ")},
       updated_at = excluded.updated_at`,
  ).run({ account: BigInt(accountId), now, ...p });
}

/**
 * The policy's summary: pending requests (at most `cap` of them, as Mastodon counts) and the
 * filtered mentions they hold, each request counting at most `cap`.
 */
export function pendingRequestsSummary(db: DB, accountId: Id, cap: number): { requests: number; notifications: number } {
  const r = stmt(
    db,
    `SELECT count(*) AS requests, coalesce(sum(
       (SELECT count(*) FROM (SELECT 1 FROM notifications n WHERE n.account_id = r.account_id
          AND n.from_account_id = r.from_account_id AND n.filtered = 1 AND n.type = 'mention' LIMIT +@cap))), 0) AS notifications
     FROM (SELECT account_id, from_account_id FROM notification_requests WHERE account_id = @me LIMIT +@cap) r`,
  ).get({ me: BigInt(accountId), cap }) as Row;
  return { requests: num(r.requests), notifications: num(r.notifications) };
}

/** The recipient accepted a request from this sender (Mastodon's NotificationPermission). */
export function hasNotificationPermission(db: DB, accountId: Id, fromAccountId: Id): boolean {
  return !!stmt(db, "SELECT 1 FROM notification_permissions WHERE account_id = ? AND from_account_id = ?").get(
    BigInt(accountId),
    BigInt(fromAccountId),
  );
}

export function insertNotificationPermission(db: DB, accountId: Id, fromAccountId: Id, now: number): void {
  stmt(db, "INSERT OR IGNORE INTO notification_permissions (account_id, from_account_id, created_at) VALUES (?, ?, ?)").run(
    BigInt(accountId),
    BigInt(fromAccountId),
    now,
  );
}

/** When `accountId` started following `targetId` (undefined: it does not). */
export function followStartedAt(db: DB, accountId: Id, targetId: Id): number | undefined {
  const r = stmt(db, "SELECT created_at FROM follows WHERE account_id = ? AND target_account_id = ?").get(BigInt(accountId), BigInt(targetId)) as
    | Row
    | undefined;
  return r ? num(r.created_at) : undefined;
}

/**
 * Mastodon's `response_to_recipient?`: somewhere up the thread from `parentId` (within
 * `depth` posts) the recipient wrote a direct post that mentions the sender, so the sender's
 * private mention answers a conversation the recipient started.
 */
export function answersPrivateMentionOf(db: DB, parentId: Id, recipientId: Id, senderId: Id, depth: number): boolean {
  const own = `s.account_id = @recipient AND s.visibility = 'direct' AND s.limited = 0
    AND EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id AND m.account_id = @sender AND m.silent = 0)`;
  return !!stmt(
    db,
    `WITH RECURSIVE up(id, parent, found, depth) AS (
       SELECT s.id, s.in_reply_to_id, ${own}, 0 FROM statuses s WHERE s.id = @parent
       UNION ALL
       SELECT s.id, s.in_reply_to_id, ${own}, up.depth + 1 FROM up JOIN statuses s ON s.id = up.parent
        WHERE up.found = 0 AND up.depth < @depth)
     SELECT 1 FROM up WHERE found = 1 LIMIT 1`,
  ).get({ parent: BigInt(parentId), recipient: BigInt(recipientId), sender: BigInt(senderId), depth });
}

/** The role of a local account's user (undefined for remote accounts). */
export function localRoleOf(db: DB, accountId: Id): { position: number; permissions: number; highlighted: boolean } | undefined {
  const r = stmt(
    db,
    `SELECT r.position, r.permissions, r.highlighted FROM users u JOIN user_roles r ON r.id = u.role_id WHERE u.account_id = ?`,
  ).get(BigInt(accountId)) as Row | undefined;
  return r ? { position: Number(r.position), permissions: Number(r.permissions), highlighted: Number(r.highlighted) === 1 } : undefined;
}
