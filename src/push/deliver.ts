// `push.send`: one notification to one Web Push subscription (push.md §2-§5; Mastodon's
// Web::PushNotificationWorker). The message is encrypted in the worker pool, signed with the
// cached VAPID header and POSTed through safe-fetch. 2xx is done; a 4xx other than 408 and 429
// means the subscription is dead (404, 410: unsubscribed or expired) and it is deleted; 408,
// 429, 5xx and network failures are retried with the runner's backoff.
import type { App } from "../app.ts";
import type { JobInfo } from "../jobs/jobs.ts";
import { FetchError, logRemoteFailure, safeFetch } from "../federation/net/safe-fetch.ts";
import { unseal } from "../lib/sealed-box.ts";
import { isPushable, type PushSendPayload } from "../services/push-notify.ts";
import { PUSH_TOKEN_PURPOSE } from "../services/push-subscriptions.ts";
import { findAccountById } from "../storage/accounts.ts";
import { findVisibleNotification } from "../storage/notification-reads.ts";
import { deletePushSubscription, findPushSubscriptionById, type PushSubscription } from "../storage/push-subscriptions.ts";
import { findStatusById } from "../storage/statuses.ts";
import { findTokenById } from "../storage/tokens.ts";
import { findUserById } from "../storage/users.ts";
import type { EncryptedPush, EncryptPushPayload } from "../workers/push-tasks.ts";
import { buildPushMessage } from "./message.ts";
import { vapidHeaders } from "./vapid.ts";

/** A notification older than this is no longer news (Mastodon drops it at retry time too). */
const MAX_AGE_MS = 48 * 3600_000;
const TIMEOUT_MS = 20_000;
/** Push services answer with an empty body or a short error; more is not read. */
const RESPONSE_MAX_BYTES = 16 * 1024;

export type PushOutcome = "delivered" | "gone" | "retry";

/** push.md §5 by status code. */
export function pushOutcome(status: number): PushOutcome {
  if (status >= 200 && status < 300) return "delivered";
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return "gone";
  return "retry";
}

function drop(app: App, s: PushSubscription, reason: string): void {
  deletePushSubscription(app.db, s.id);
  app.log.info("push subscription removed", { id: s.id, userId: s.userId, endpoint: s.endpoint.slice(0, 300), reason });
}

export async function handlePushSend(app: App, payload: PushSendPayload, job: JobInfo): Promise<void> {
  const sub = findPushSubscriptionById(app.db, payload.s);
  if (!sub) return; // unsubscribed, replaced or removed meanwhile
  const now = app.now();
  const token = findTokenById(app.db, sub.tokenId);
  if (!token || token.revokedAt !== null || (token.expiresAt !== null && token.expiresAt <= now)) {
    return drop(app, sub, "its access token is no longer valid");
  }
  const user = findUserById(app.db, sub.userId);
  if (!user) return;
  // Gone (its status deleted), hidden since (a block, a mute), or too old to be news.
  const notification = findVisibleNotification(app.db, user.accountId, payload.n, now);
  if (!notification || now - notification.createdAt > MAX_AGE_MS) return;
  if (!isPushable(app, sub, notification)) return; // the alerts or the policy changed since
  const sender = findAccountById(app.db, notification.fromAccountId);
  if (!sender) return;
  const accessToken = unseal(app.config.secret, PUSH_TOKEN_PURPOSE, sub.tokenBox);
  if (accessToken === undefined) return drop(app, sub, "its access token cannot be read (the server secret changed)");
  const status = notification.statusId ? findStatusById(app.db, notification.statusId) : undefined;
  const message = buildPushMessage(app, { notification, sender, status, locale: user.locale, accessToken });

  const task: EncryptPushPayload = { endpoint: sub.endpoint, p256dh: sub.keyP256dh, auth: sub.keyAuth, standard: sub.standard, message: JSON.stringify(message) };
  const encrypted = await app.pool.run<EncryptedPush>("encryptPush", task);
  const vapid = vapidHeaders(app, sub.endpoint, sub.standard);
  const headers: Record<string, string> = { ...encrypted.headers, authorization: vapid.Authorization };
  if (vapid["Crypto-Key"]) headers["crypto-key"] = `${headers["crypto-key"]};${vapid["Crypto-Key"]}`;

  let answered: number;
  try {
    const res = await safeFetch(app, sub.endpoint, {
      method: "POST",
      headers,
      body: Buffer.from(encrypted.body.buffer, encrypted.body.byteOffset, encrypted.body.byteLength),
      timeoutMs: TIMEOUT_MS,
      maxBytes: RESPONSE_MAX_BYTES,
      truncateBody: true,
      maxRedirects: 0,
    });
    answered = res.status;
  } catch (err) {
    // Our own refusal (not a URL we may reach, a private address) will not change by retrying.
    if (err instanceof FetchError && (err.kind === "invalid-url" || err.kind === "private-address")) return drop(app, sub, err.message);
    throw err;
  }
  const outcome = pushOutcome(answered);
  if (outcome === "gone") return drop(app, sub, `the push service answered ${answered}`);
  if (outcome === "retry") {
    logRemoteFailure(app, "POST", sub.endpoint, `answered ${answered}`);
    throw new Error(`push service answered ${answered} (attempt ${job.attempts})`);
  }
}
