// `push.send`: a batch of pushes, each one notification to one Web Push subscription (push.md
// §2-§5; Mastodon's Web::PushNotificationWorker). Each message is encrypted in the worker pool,
// signed with the cached VAPID header and POSTed through safe-fetch. 2xx is done; a 4xx other
// than 408 and 429 means the subscription is dead (404, 410: unsubscribed or expired) and it is
// deleted; 408, 429, 5xx and network failures are retried, each push on its own, in a new job
// after the runner's backoff (at most MAX_ATTEMPTS runs, as Mastodon's `retry: 5`).
import type { App } from "../app.ts";
import { backoffMs } from "../jobs/runner.ts";
import { mapLimited } from "../lib/map-limited.ts";
import { FetchError, logRemoteFailure, safeFetch } from "../federation/net/safe-fetch.ts";
import { unseal } from "../lib/sealed-box.ts";
import { isPushable, PUSH_SEND_JOB, type PushItem, type PushSendPayload } from "../services/push-notify.ts";
import { PUSH_TOKEN_PURPOSE, unsubscribeToken } from "../services/push-subscriptions.ts";
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
/** Runs of one push: the first and five retries. */
const MAX_ATTEMPTS = 6;
/** Pushes of a batch in flight at once. */
const CONCURRENCY = 16;

export type PushOutcome = "delivered" | "gone" | "retry";

/** push.md §5 by status code. */
export function pushOutcome(status: number): PushOutcome {
  if (status >= 200 && status < 300) return "delivered";
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return "gone";
  return "retry";
}

function drop(app: App, s: PushSubscription, reason: string): "done" {
  deletePushSubscription(app.db, s.id);
  app.log.info("push subscription removed", { id: s.id, userId: s.userId, endpoint: s.endpoint.slice(0, 300), reason });
  return "done";
}

export async function handlePushSend(app: App, payload: PushSendPayload): Promise<void> {
  const items = Array.isArray(payload.items) ? payload.items : [];
  const failed: PushItem[] = [];
  await mapLimited(items, CONCURRENCY, async (item) => {
    let outcome: "done" | "retry";
    try {
      outcome = await pushOne(app, item);
    } catch (err) {
      outcome = "retry";
      app.log.info("push failed, will retry", { subscription: item.s, error: (err as Error).message });
    }
    if (outcome === "retry") failed.push(item);
  });
  scheduleRetries(app, failed);
}

/** A new job per attempt count, due after the runner's backoff for it. */
function scheduleRetries(app: App, failed: PushItem[]): void {
  const byAttempts = new Map<number, PushItem[]>();
  for (const item of failed) {
    const attempts = (item.a ?? 0) + 1;
    if (attempts >= MAX_ATTEMPTS) {
      app.log.warn("push given up", { subscription: item.s, notification: item.n, attempts });
      continue;
    }
    byAttempts.set(attempts, [...(byAttempts.get(attempts) ?? []), { s: item.s, n: item.n, a: attempts }]);
  }
  for (const [attempts, items] of byAttempts) {
    const retry: PushSendPayload = { items };
    app.jobs.enqueue(PUSH_SEND_JOB, retry, { runAt: app.now() + backoffMs(attempts) });
  }
}

/** One push: "retry" (or a thrown error) when the push service should be asked again later. */
async function pushOne(app: App, item: PushItem): Promise<"done" | "retry"> {
  const sub = findPushSubscriptionById(app.db, item.s);
  if (!sub) return "done"; // unsubscribed, replaced or removed meanwhile
  const now = app.now();
  const token = findTokenById(app.db, sub.tokenId);
  if (!token || token.revokedAt !== null || (token.expiresAt !== null && token.expiresAt <= now)) {
    return drop(app, sub, "its access token is no longer valid");
  }
  const user = findUserById(app.db, sub.userId);
  if (!user) return "done";
  // Gone (its status deleted), hidden since (a block, a mute), or too old to be news.
  const notification = findVisibleNotification(app.db, user.accountId, item.n, now);
  if (!notification || now - notification.createdAt > MAX_AGE_MS) return "done";
  if (!isPushable(app, sub, notification)) return "done"; // the alerts or the policy changed since
  const sender = findAccountById(app.db, notification.fromAccountId);
  if (!sender) return "done";
  const accessToken = unseal(app.config.secret, PUSH_TOKEN_PURPOSE, sub.tokenBox);
  if (accessToken === undefined) return drop(app, sub, "its access token cannot be read (the server secret changed)");
  const status = notification.statusId ? findStatusById(app.db, notification.statusId) : undefined;
  const message = buildPushMessage(app, { notification, sender, status, locale: user.locale, accessToken });

  const task: EncryptPushPayload = { endpoint: sub.endpoint, p256dh: sub.keyP256dh, auth: sub.keyAuth, standard: sub.standard, message: JSON.stringify(message) };
  const encrypted = await app.pool.run<EncryptedPush>("encryptPush", task);
  const vapid = await vapidHeaders(app, sub.endpoint, sub.standard);
  const headers: Record<string, string> = {
    ...encrypted.headers,
    authorization: vapid.Authorization,
    // Mastodon 4.4: where the push service (or a relay) can drop a dead subscription.
    "unsubscribe-url": `${app.baseUrl}/api/web/push_subscriptions/${unsubscribeToken(app, sub.id)}`,
  };
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
    throw err; // timeouts, DNS, connection failures: safe-fetch logged them
  }
  const outcome = pushOutcome(answered);
  if (outcome === "gone") return drop(app, sub, `the push service answered ${answered}`);
  if (outcome === "retry") {
    logRemoteFailure(app, "POST", sub.endpoint, `answered ${answered}`);
    return "retry";
  }
  return "done";
}
