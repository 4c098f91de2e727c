// Parsed key objects, cached: parsing a PEM costs 3-5x a verification with a cached KeyObject.
// The caches are module-level on purpose: a KeyObject is a pure function of its PEM text, so
// sharing them between apps (or within a worker thread) cannot leak state.
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";

/** A Map used as an LRU: a hit moves the entry to the end, inserts evict from the front. */
export class LruCache<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, v: V): void {
    this.map.delete(key);
    this.map.set(key, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }

  get size(): number {
    return this.map.size;
  }
}

// Remote keys: one per known actor that has signed something lately. Private keys: one per
// local account that delivers.
const publicKeys = new LruCache<KeyObject>(4096);
const privateKeys = new LruCache<KeyObject>(2048);

/** The KeyObject of a PEM public key (bounded LRU by PEM text). Throws on a malformed PEM. */
export function publicKeyObject(pem: string): KeyObject {
  let key = publicKeys.get(pem);
  if (!key) {
    key = createPublicKey(pem);
    publicKeys.set(pem, key);
  }
  return key;
}

/** The KeyObject of a PEM private key (bounded LRU by PEM text). */
export function privateKeyObject(pem: string): KeyObject {
  let key = privateKeys.get(pem);
  if (!key) {
    key = createPrivateKey(pem);
    privateKeys.set(pem, key);
  }
  return key;
}

/** Entries held, for tests and diagnostics. */
export function keyCacheSizes(): { publicKeys: number; privateKeys: number } {
  return { publicKeys: publicKeys.size, privateKeys: privateKeys.size };
}
