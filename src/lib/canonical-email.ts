import { sha256Hex } from "./crypto.ts";

// Mastodon's CanonicalEmail concern: the local part lower-cased, without dots and without
// anything from the first "+" on, for every provider (Mastodon does not single out the ones
// that ignore dots; doing the same keeps hashes interchangeable with a Mastodon export).

export function canonicalEmail(email: string): string {
  const lower = email.toLowerCase();
  const at = lower.indexOf("@");
  const user = (at === -1 ? lower : lower.slice(0, at)).replaceAll(".", "").split("+", 1)[0];
  return at === -1 ? `${user}@` : `${user}@${lower.slice(at + 1)}`;
}

/** SHA-256 hex of the canonical form: what a CanonicalEmailBlock stores. */
export function canonicalEmailHash(email: string): string {
  return sha256Hex(canonicalEmail(email));
}

export const CANONICAL_HASH_RE = /^[0-9a-f]{64}$/;
