// Parsed key objects, cached: parsing a PEM costs 3-5x a verification with a cached KeyObject.
import type { KeyObject } from "node:crypto";

/** The KeyObject of a PEM public key (bounded LRU by PEM text). Throws on a malformed PEM. */
export function publicKeyObject(_pem: string): KeyObject {
  throw new Error("publicKeyObject: not implemented");
}

/** The KeyObject of a PEM private key (bounded LRU by PEM text). */
export function privateKeyObject(_pem: string): KeyObject {
  throw new Error("privateKeyObject: not implemented");
}
