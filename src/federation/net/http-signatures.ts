// HTTP signatures (AP §10): draft-cavage-http-signatures-12 (rsa-sha256 / hs2019) and RFC 9421,
// signing and verifying. Pure functions over requests and keys: no database, no network.
import type { KeyObject } from "node:crypto";

export type SignatureScheme = "cavage" | "rfc9421";

export interface SignKey {
  /** The publicKey id, e.g. `https://host/users/alice#main-key`. */
  keyId: string;
  privateKeyPem: string;
}

export interface OutgoingRequest {
  method: "GET" | "POST";
  url: string;
  /** Headers already set (content-type, accept...); names in any case. */
  headers: Record<string, string>;
  body?: string | Buffer;
}

/**
 * The signature headers to add to a request: for cavage `host`, `date`, `digest` (POST) and
 * `signature`; for RFC 9421 `content-digest` (POST), `signature-input` and `signature`.
 * Returned as a new object with the input headers included (lower-case names).
 */
export function signRequest(_req: OutgoingRequest, _key: SignKey, _scheme: SignatureScheme, _now?: number): Record<string, string> {
  throw new Error("signRequest: not implemented");
}

/** An incoming request as the verifier needs it. */
export interface IncomingRequest {
  method: string;
  /** Path and query exactly as received (`/users/a/inbox?x=1`). */
  target: string;
  /** Absolute URL as the client addressed it (scheme://host/target), for RFC 9421 @target-uri. */
  url: string;
  headers: Headers;
  /** The raw body of a POST. */
  body?: Buffer;
}

export interface ParsedSignature {
  scheme: SignatureScheme;
  keyId: string;
  /** Signature time in ms (Date header or `created`). */
  createdAt: number;
  /** Opaque data the verifier needs. */
  detail: unknown;
}

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

/**
 * Reads the `Signature` (cavage) or `Signature-Input`/`Signature` (RFC 9421) headers and checks
 * everything that needs no key: required components, the time window (AP §10.2: ~1 h future,
 * expiry + 1 h past) and the body digest. Throws SignatureError.
 */
export function parseRequestSignature(_req: IncomingRequest, _now: number): ParsedSignature {
  throw new SignatureError(401, "parseRequestSignature: not implemented");
}

/** Verifies the signature with the signer's public key. Throws SignatureError(401). */
export function verifyRequestSignature(_req: IncomingRequest, _sig: ParsedSignature, _key: KeyObject): void {
  throw new SignatureError(401, "verifyRequestSignature: not implemented");
}
