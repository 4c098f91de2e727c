import { ECDH } from "node:crypto";
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { ApiError, notFound, unprocessable } from "../errors.ts";
import { hmacHex, safeEqual } from "../lib/crypto.ts";
import type { Id } from "../lib/ids.ts";
import { seal } from "../lib/sealed-box.ts";
import {
  deletePushSubscription,
  deletePushSubscriptionsOfToken,
  findPushSubscriptionById,
  findPushSubscriptionOfToken,
  insertPushSubscription,
  PUSH_POLICIES,
  type PushPolicy,
  type PushSubscription,
  updatePushSubscriptionData,
} from "../storage/push-subscriptions.ts";
import { NOTIFICATION_TYPES } from "./notifications.ts";
import { type BrowserSession, sessionToken } from "./web-sessions.ts";

// Web Push subscriptions: POST/GET/PUT/DELETE /api/v1/push/subscription (one per access token)
// and the browser session's /api/web/push_subscriptions. Facts: push.md §1 and §6.

/** What the client sent as `subscription[...]`. */
export interface SubscriptionInput {
  endpoint?: string;
  p256dh?: string;
  auth?: string;
  standard?: boolean;
}

/** What the client sent as `data[...]`: only the alert types it named, already cast to booleans. */
export interface PushDataInput {
  alerts: Record<string, boolean>;
  policy?: string;
}

/** The sealed-box purpose of access tokens kept for push payloads. */
export const PUSH_TOKEN_PURPOSE = "push access token";

const MAX_ENDPOINT_CHARS = 2048;
const P256_POINT_BYTES = 65;
const AUTH_SECRET_BYTES = 16;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

const invalid = (what: string) => unprocessable(`Validation failed: ${what}`);

/** Either base64 alphabet, padding optional (Ruby's urlsafe_decode64 takes both), or undefined. */
function decodeBase64(v: string): Buffer | undefined {
  if (v.length > 200 || !BASE64.test(v)) return undefined;
  return Buffer.from(v.replace(/=+$/, ""), "base64");
}

/**
 * An endpoint the server will POST to: an absolute https URL (http only while this server
 * itself runs on plain http, a development or test set-up, as for WebFinger). Where it points
 * is judged at delivery time by safe-fetch, as every outgoing request is.
 */
function checkEndpoint(app: App, raw: string | undefined): string {
  const endpoint = raw?.trim() ?? "";
  if (!endpoint) throw invalid("Endpoint can't be blank");
  if (endpoint.length > MAX_ENDPOINT_CHARS) throw invalid(`Endpoint is too long (maximum is ${MAX_ENDPOINT_CHARS} characters)`);
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw invalid("Endpoint is not a valid URL");
  }
  const schemes = app.config.protocol === "http" ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol)) throw invalid("Endpoint must be an https URL");
  if (!url.hostname || url.username || url.password) throw invalid("Endpoint is not a valid URL");
  return url.href;
}

/** RFC 8291 §3.2: the user agent's P-256 public key, an uncompressed point (65 bytes). */
function checkP256dh(raw: string | undefined): string {
  if (!raw) throw invalid("Key p256dh can't be blank");
  const key = decodeBase64(raw);
  let onCurve = false;
  if (key?.length === P256_POINT_BYTES && key[0] === 0x04) {
    try {
      ECDH.convertKey(key, "prime256v1");
      onCurve = true;
    } catch {
      onCurve = false;
    }
  }
  if (!key || !onCurve) throw invalid(`Key p256dh is not a P-256 public key (${P256_POINT_BYTES} bytes, base64url)`);
  return key.toString("base64url");
}

/** RFC 8291 §3.2: the 16-byte authentication secret. */
function checkAuth(raw: string | undefined): string {
  if (!raw) throw invalid("Key auth can't be blank");
  const secret = decodeBase64(raw);
  if (secret?.length !== AUTH_SECRET_BYTES) throw invalid(`Key auth is not a ${AUTH_SECRET_BYTES}-byte secret (base64url)`);
  return secret.toString("base64url");
}

/** Only this server's notification types are kept (Mastodon permits Notification::TYPES). */
function checkData(data: PushDataInput | undefined, defaults: Record<string, boolean> = {}): { alerts: Record<string, boolean>; policy: PushPolicy } {
  const alerts: Record<string, boolean> = { ...defaults };
  for (const type of NOTIFICATION_TYPES) if (data?.alerts[type] !== undefined) alerts[type] = data.alerts[type];
  const policy = data?.policy === undefined || data.policy === "" ? "all" : data.policy;
  if (!PUSH_POLICIES.includes(policy as PushPolicy)) throw invalid(`Policy is not one of ${PUSH_POLICIES.join(", ")}`);
  return { alerts, policy: policy as PushPolicy };
}

interface Owner {
  userId: Id;
  tokenId: Id;
  /** The token itself: it goes into every push message (`access_token`). */
  token: string;
}

/** Replaces the token's subscription with a new one (POST: Mastodon deletes, then creates). */
function createSubscription(app: App, owner: Owner, input: SubscriptionInput, data: { alerts: Record<string, boolean>; policy: PushPolicy }): PushSubscription {
  const now = app.now();
  const s: PushSubscription = {
    id: app.ids.next(),
    userId: owner.userId,
    tokenId: owner.tokenId,
    endpoint: checkEndpoint(app, input.endpoint),
    keyP256dh: checkP256dh(input.p256dh),
    keyAuth: checkAuth(input.auth),
    standard: input.standard ?? false,
    alerts: data.alerts,
    policy: data.policy,
    tokenBox: seal(app.config.secret, PUSH_TOKEN_PURPOSE, owner.token),
    createdAt: now,
    updatedAt: now,
  };
  tx(app.db, () => {
    deletePushSubscriptionsOfToken(app.db, owner.tokenId);
    insertPushSubscription(app.db, s);
  });
  return s;
}

/** POST /api/v1/push/subscription. */
export function subscribeToPush(app: App, owner: Owner, input: SubscriptionInput, data: PushDataInput | undefined): PushSubscription {
  return createSubscription(app, owner, input, checkData(data));
}

/** GET /api/v1/push/subscription: 404 when the token has none. */
export function requirePushSubscriptionOfToken(app: App, tokenId: Id): PushSubscription {
  const s = findPushSubscriptionOfToken(app.db, tokenId);
  if (!s) throw notFound();
  return s;
}

/** PUT: the stored `data` is replaced by what was sent (omitted alerts off, policy `all`). */
export function updatePushData(app: App, tokenId: Id, data: PushDataInput | undefined): PushSubscription {
  const s = requirePushSubscriptionOfToken(app, tokenId);
  const next = checkData(data);
  updatePushSubscriptionData(app.db, s.id, next, app.now());
  return { ...s, ...next };
}

/** DELETE: idempotent. */
export function unsubscribeFromPush(app: App, tokenId: Id): void {
  deletePushSubscriptionsOfToken(app.db, tokenId);
}

/** Mastodon asks the browser gem whether the session's device is a phone or tablet. */
const MOBILE_UA = /Mobi|Android|iPhone|iPad|iPod|Tablet|Silk|Kindle|Opera Mini|IEMobile|BlackBerry/i;

/**
 * POST /api/web/push_subscriptions: the session's subscription, bound to the session's token.
 * Every alert defaults to on for a phone or tablet and off on a desktop (whose web app shows
 * notifications in the page), policy `all`; what the client sent is merged over that.
 */
export function subscribeSessionToPush(app: App, browser: BrowserSession, input: SubscriptionInput, data: PushDataInput | undefined): PushSubscription {
  const { session } = browser;
  const token = sessionToken(app, session);
  if (token === undefined) throw new ApiError(422, "This session cannot receive push notifications: sign in again");
  const mobile = MOBILE_UA.test(session.userAgent ?? "");
  const defaults = Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, mobile]));
  return createSubscription(app, { userId: session.userId, tokenId: session.tokenId, token }, input, checkData(data, defaults));
}

/** PUT /api/web/push_subscriptions/:id: one of the user's subscriptions, its data replaced. */
export function updateSessionPushData(app: App, browser: BrowserSession, id: string, data: PushDataInput | undefined): PushSubscription {
  const s = /^\d{1,19}$/.test(id) ? findPushSubscriptionById(app.db, id) : undefined;
  if (!s || s.userId !== browser.user.id) throw notFound();
  const next = checkData(data);
  updatePushSubscriptionData(app.db, s.id, next, app.now());
  return { ...s, ...next };
}

/** How long an Unsubscribe-URL works (Mastodon 4.4: 48 hours, the messages' TTL). */
const UNSUBSCRIBE_TTL_MS = 48 * 3600_000;
const unsubscribeMac = (app: App, id: Id, exp: number) => hmacHex(app.config.secret, `push unsubscribe ${id} ${exp}`);

/**
 * The token of a push message's `Unsubscribe-URL` (push §4, §6): `<id>.<expiry>.<HMAC>`, valid
 * for 48 hours and checked without a session, so a push service or relay can report a dead
 * endpoint by calling it.
 */
export function unsubscribeToken(app: App, subscriptionId: Id): string {
  const exp = Math.floor((app.now() + UNSUBSCRIBE_TTL_MS) / 1000);
  return `${subscriptionId}.${exp}.${unsubscribeMac(app, subscriptionId, exp)}`;
}

/** DELETE /api/web/push_subscriptions/:token: deletes the subscription when the token is valid; silent otherwise. */
export function unsubscribeByToken(app: App, token: string): void {
  const m = /^(\d{1,19})\.(\d{1,12})\.([0-9a-f]{64})$/.exec(token);
  if (!m) return;
  const [, id, exp, mac] = m;
  if (Number(exp) * 1000 <= app.now() || !safeEqual(unsubscribeMac(app, id, Number(exp)), mac)) return;
  deletePushSubscription(app.db, id);
}
