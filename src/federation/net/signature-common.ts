// Pieces shared by the draft-cavage and RFC 9421 halves of http-signatures.ts.
import { createHash, verify, type KeyObject } from "node:crypto";

/** 400: malformed signature header; 401: missing, expired, wrong digest, bad signature. */
export class SignatureError extends Error {
  override name = "SignatureError";
  constructor(
    readonly status: 400 | 401,
    message: string,
  ) {
    super(message);
  }
}

/** What parse hands to verify: the exact bytes that were signed, and the signature. */
export type SignatureDetail =
  | { kind: "cavage"; /** signing strings to try: with and without the query */ candidates: string[]; signature: Buffer }
  | { kind: "rfc9421"; base: string; signature: Buffer; alg?: string };

export function sha256(data: Buffer): Buffer {
  return createHash("sha256").update(data).digest();
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * AP §10.2 (Mastodon's window): refused when the signature time is more than 1 h ahead, or
 * when now is past expiry + 1 h, expiry being `expires` or created + 5 min, capped at +12 h.
 */
export function checkTimeWindow(createdMs: number, expiresMs: number | undefined, now: number): void {
  if (createdMs > now + HOUR) throw new SignatureError(401, "Signature date is too far in the future");
  const expiry = Math.min(expiresMs ?? createdMs + 5 * MINUTE, createdMs + 12 * HOUR);
  if (now > expiry + HOUR) throw new SignatureError(401, "Signature expired");
}

/** RSASSA-PKCS1-v1_5 SHA-256 for RSA keys, pure Ed25519 for Ed25519 keys; false on any error. */
export function verifyWithKey(data: string, signature: Buffer, key: KeyObject): boolean {
  const algorithm = key.asymmetricKeyType === "ed25519" ? null : "sha256";
  try {
    return verify(algorithm, Buffer.from(data), key, signature);
  } catch {
    return false;
  }
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Strict base64 (the signature must be exactly what was sent), else 400. */
export function decodeBase64(value: string, what: string): Buffer {
  if (!BASE64.test(value) || value.length % 4 === 1) throw new SignatureError(400, `${what} is not valid base64`);
  return Buffer.from(value, "base64");
}
