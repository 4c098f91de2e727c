// Incoming HTTP signatures → the signing account (inbox POSTs and authorized-fetch GETs).
import type { H3Event } from "h3";
import type { App } from "../app.ts";
import type { Account } from "../storage/accounts.ts";

export interface VerifiedRequest {
  /** The remote account whose key signed the request. */
  signer: Account;
  keyId: string;
  /** The raw body (POST), already read and digest-checked. */
  body?: Buffer;
}

/**
 * Verifies the request's HTTP signature (cavage or RFC 9421). The key is looked up by key id
 * (stored, else fetched via resolve/accounts.ts), cached as a KeyObject; a failure with a
 * cached key refetches the actor once (key rotation). Throws ApiError: 400 malformed header,
 * 401 missing/invalid/expired signature, 403 signer's domain suspended by the admin, 503 the
 * key could not be fetched (peer unreachable: the sender should retry).
 * `body`: the raw POST body when the caller has already read it (size-limited).
 */
export async function verifyRequest(_app: App, _event: H3Event, _body?: Buffer): Promise<VerifiedRequest> {
  throw new Error("verifyRequest: not implemented");
}
