import { type DB, type Row, stmt, str, num, bool, json } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export type PushPolicy = "all" | "followed" | "follower" | "none";
export const PUSH_POLICIES: readonly PushPolicy[] = ["all", "followed", "follower", "none"];

/** A Web Push subscription (Mastodon's Web::PushSubscription), bound to one access token. */
export interface PushSubscription {
  id: Id;
  userId: Id;
  tokenId: Id;
  endpoint: string;
  /** base64url, unpadded. */
  keyP256dh: string;
  keyAuth: string;
  /** RFC 8291 aes128gcm; false: the legacy aesgcm draft. */
  standard: boolean;
  /** The alert types the client sent, each on or off. */
  alerts: Record<string, boolean>;
  policy: PushPolicy;
  /** The access token, sealed (lib/sealed-box.ts). */
  tokenBox: string;
  createdAt: number;
  updatedAt: number;
}

function rowToPushSubscription(r: Row): PushSubscription {
  return {
    id: str(r.id),
    userId: str(r.user_id),
    tokenId: str(r.token_id),
    endpoint: r.endpoint as string,
    keyP256dh: r.key_p256dh as string,
    keyAuth: r.key_auth as string,
    standard: bool(r.standard),
    alerts: json<Record<string, boolean>>(r.alerts, {}),
    policy: r.policy as PushPolicy,
    tokenBox: r.token_box as string,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export function insertPushSubscription(db: DB, s: PushSubscription): void {
  stmt(
    db,
    `INSERT INTO web_push_subscriptions
       (id, user_id, token_id, endpoint, key_p256dh, key_auth, standard, alerts, policy, token_box, created_at, updated_at)
     VALUES (@id, @userId, @tokenId, @endpoint, @keyP256dh, @keyAuth, @standard, @alerts, @policy, @tokenBox, @createdAt, @updatedAt)`,
  ).run({
    id: BigInt(s.id),
    userId: BigInt(s.userId),
    tokenId: BigInt(s.tokenId),
    endpoint: s.endpoint,
    keyP256dh: s.keyP256dh,
    keyAuth: s.keyAuth,
    standard: s.standard ? 1 : 0,
    alerts: JSON.stringify(s.alerts),
    policy: s.policy,
    tokenBox: s.tokenBox,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  });
}

export function findPushSubscriptionById(db: DB, id: Id): PushSubscription | undefined {
  const r = stmt(db, "SELECT * FROM web_push_subscriptions WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToPushSubscription(r);
}

export function findPushSubscriptionOfToken(db: DB, tokenId: Id): PushSubscription | undefined {
  const r = stmt(db, "SELECT * FROM web_push_subscriptions WHERE token_id = ?").get(BigInt(tokenId)) as Row | undefined;
  return r && rowToPushSubscription(r);
}

/**
 * The subscriptions of a local account's user whose tokens are live: the ones a new
 * notification may be pushed to. Most users have none; the lookup is one indexed probe.
 */
export function listLivePushSubscriptionsOfAccount(db: DB, accountId: Id, now: number): PushSubscription[] {
  const rows = stmt(
    db,
    `SELECT s.* FROM users u
       JOIN web_push_subscriptions s ON s.user_id = u.id
       JOIN oauth_tokens t ON t.id = s.token_id
      WHERE u.account_id = ? AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > ?)`,
  ).all(BigInt(accountId), now) as Row[];
  return rows.map(rowToPushSubscription);
}

export function updatePushSubscriptionData(db: DB, id: Id, data: { alerts: Record<string, boolean>; policy: PushPolicy }, now: number): void {
  stmt(db, "UPDATE web_push_subscriptions SET alerts = ?, policy = ?, updated_at = ? WHERE id = ?").run(
    JSON.stringify(data.alerts),
    data.policy,
    now,
    BigInt(id),
  );
}

export function deletePushSubscription(db: DB, id: Id): boolean {
  return stmt(db, "DELETE FROM web_push_subscriptions WHERE id = ?").run(BigInt(id)).changes > 0;
}

/** Deletes the token's subscription (there is at most one); the number deleted. */
export function deletePushSubscriptionsOfToken(db: DB, tokenId: Id): number {
  return stmt(db, "DELETE FROM web_push_subscriptions WHERE token_id = ?").run(BigInt(tokenId)).changes;
}
