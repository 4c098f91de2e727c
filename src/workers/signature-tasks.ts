// Request signing in the worker pool. Each worker keeps its own cache of private KeyObjects
// (net/key-objects.ts), so a burst of deliveries by one account parses its PEM once per thread.
import { type OutgoingRequest, type SignatureScheme, type SignKey, signRequest } from "../federation/net/http-signatures.ts";

/** What crosses the thread boundary: a Buffer body travels as a plain Uint8Array copy. */
export interface SignRequestPayload {
  req: Omit<OutgoingRequest, "body"> & { body?: string | Uint8Array };
  key: SignKey;
  scheme: SignatureScheme;
  now: number;
}

export function signRequestTask({ req, key, scheme, now }: SignRequestPayload): Record<string, string> {
  const body = req.body instanceof Uint8Array ? Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength) : req.body;
  return signRequest({ ...req, body }, key, scheme, now);
}
