// Web Push message encryption (RFC 8291 aes128gcm, or the legacy aesgcm draft), by the
// web-push package: an ECDH key agreement with a fresh key pair per message, so a burst of
// notifications runs here, off the main thread. The VAPID header is added by the caller
// (push/vapid.ts), which signs it once per push service and reuses it.
import webpush from "web-push";

/** RFC 8030 §5.2: how long the push service keeps an undelivered message (Mastodon: 48 h). */
export const PUSH_TTL_SECONDS = 48 * 3600;

export interface EncryptPushPayload {
  endpoint: string;
  /** base64url. */
  p256dh: string;
  auth: string;
  standard: boolean;
  /** The JSON message. */
  message: string;
}

export interface EncryptedPush {
  body: Uint8Array;
  /** Content-Type, Content-Encoding, TTL, Urgency; for aesgcm also Encryption and Crypto-Key (dh=). */
  headers: Record<string, string>;
}

export function encryptPushTask(p: EncryptPushPayload): EncryptedPush {
  const options = {
    TTL: PUSH_TTL_SECONDS,
    urgency: "normal",
    contentEncoding: p.standard ? "aes128gcm" : "aesgcm",
    // No VAPID here (null, which the package's types do not name): the caller signs it, once
    // per push service (push/vapid.ts).
    vapidDetails: null,
  } as unknown as webpush.RequestOptions;
  const details: webpush.RequestDetails = webpush.generateRequestDetails({ endpoint: p.endpoint, keys: { p256dh: p.p256dh, auth: p.auth } }, p.message, options);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(details.headers)) {
    // safe-fetch sets the length of the body it sends.
    if (name.toLowerCase() !== "content-length") headers[name.toLowerCase()] = String(value);
  }
  const body = details.body as Buffer;
  return { body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength), headers };
}
