import { test } from "node:test";
import assert from "node:assert/strict";
import { createECDH, createPublicKey, createPrivateKey, sign, verify } from "node:crypto";
import { generateVapidKeys } from "../../src/services/init.ts";

test("VAPID keys: a P-256 pair, the public key an uncompressed point, both base64url", () => {
  for (let i = 0; i < 50; i++) {
    const { publicKey, privateKey } = generateVapidKeys();
    const pub = Buffer.from(publicKey, "base64url");
    const priv = Buffer.from(privateKey, "base64url");
    assert.equal(pub.length, 65);
    assert.equal(pub[0], 4);
    assert.equal(priv.length, 32);
    assert.match(publicKey + privateKey, /^[A-Za-z0-9_-]+$/);
    // The private key derives the public one.
    const ecdh = createECDH("prime256v1");
    ecdh.setPrivateKey(priv);
    assert.deepEqual(ecdh.getPublicKey(), pub);
    // And they sign and verify as the ES256 pair a push service checks.
    const jwk = { kty: "EC", crv: "P-256", x: pub.subarray(1, 33).toString("base64url"), y: pub.subarray(33).toString("base64url") };
    const key = createPrivateKey({ key: { ...jwk, d: privateKey }, format: "jwk" });
    const sig = sign("sha256", Buffer.from("claims"), key);
    assert.equal(verify("sha256", Buffer.from("claims"), createPublicKey({ key: jwk, format: "jwk" }), sig), true);
  }
});
