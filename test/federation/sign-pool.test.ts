import { test } from "node:test";
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import type { App } from "../../src/app.ts";
import { createLog } from "../../src/lib/log.ts";
import { createWorkerPool } from "../../src/workers/pool.ts";
import { parseRequestSignature, signRequest, verifyRequestSignature, type OutgoingRequest } from "../../src/federation/net/http-signatures.ts";
import { keyCacheSizes, LruCache, privateKeyObject, publicKeyObject } from "../../src/federation/net/key-objects.ts";
import { signInPool } from "../../src/federation/net/sign-pool.ts";

const NOW = Date.UTC(2026, 1, 1, 9, 30, 13);
const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const key = { keyId: "https://roost.example/users/alice#main-key", privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }) as string };
const publicPem = publicKey.export({ type: "spki", format: "pem" }) as string;

test("signInPool gives what signRequest gives, and it verifies", async (t) => {
  // The real pool; the app needs only `pool` and `now` here.
  const pool = createWorkerPool({ maxThreads: 1, idleTimeout: 1000, log: createLog("silent") });
  t.after(() => pool.close());
  const app = { pool, now: () => NOW } as unknown as App;

  // A small Buffer.from() lives inside Node's shared 8 KiB slab: only its bytes must travel.
  const body = Buffer.from('{"type":"Like","id":"https://roost.example/likes/1"}');
  const post: OutgoingRequest = { method: "POST", url: "https://remote.example/users/bob/inbox?x=1", headers: { "Content-Type": "application/activity+json" }, body };
  for (const scheme of ["cavage", "rfc9421"] as const) {
    const out = await signInPool(app, post, key, scheme);
    // RSASSA-PKCS1-v1_5 is deterministic: the worker's headers equal the main thread's.
    assert.deepEqual(out, signRequest(post, key, scheme, NOW));
    const req = { method: "POST", target: "/users/bob/inbox?x=1", url: post.url, headers: new Headers(out), body };
    const sig = parseRequestSignature(req, NOW);
    verifyRequestSignature(req, sig, publicKeyObject(publicPem));
    assert.equal(sig.keyId, key.keyId);
    assert.equal(sig.scheme, scheme);
  }

  const get = await signInPool(app, { method: "GET", url: "https://remote.example/users/bob", headers: {} }, key, "cavage");
  assert.equal(get.date, "Sun, 01 Feb 2026 09:30:13 GMT");
  assert.match(get.signature, /headers="\(request-target\) host date"/);
  const stringBody = await signInPool(app, { ...post, body: body.toString() }, key, "cavage");
  assert.equal(stringBody.digest, signRequest(post, key, "cavage", NOW).digest);
});

test("KeyObjects are cached by PEM text", () => {
  const a = publicKeyObject(publicPem);
  const held = keyCacheSizes().publicKeys;
  assert.equal(publicKeyObject(publicPem), a);
  assert.equal(a.asymmetricKeyType, "rsa");
  assert.equal(privateKeyObject(key.privateKeyPem), privateKeyObject(key.privateKeyPem));
  const other = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "pem" }) as string;
  const b = publicKeyObject(other);
  assert.notEqual(b, a);
  assert.equal(b.asymmetricKeyType, "ed25519");
  assert.equal(publicKeyObject(other), b);
  assert.equal(keyCacheSizes().publicKeys, held + 1);
  assert.throws(() => publicKeyObject("-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----\n"));
});

test("the LRU keeps the most recently used entries within its bound", () => {
  const lru = new LruCache<number>(2);
  lru.set("a", 1);
  lru.set("b", 2);
  assert.equal(lru.get("a"), 1); // "a" is now the most recent
  lru.set("c", 3); // evicts "b", the least recent
  assert.equal(lru.size, 2);
  assert.equal(lru.get("b"), undefined);
  assert.equal(lru.get("a"), 1);
  assert.equal(lru.get("c"), 3);
});
