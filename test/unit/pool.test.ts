import { test } from "node:test";
import assert from "node:assert/strict";
import { createPublicKey, createPrivateKey } from "node:crypto";
import { createLog } from "../../src/lib/log.ts";
import { createWorkerPool } from "../../src/workers/pool.ts";

/** Polls `cond` every 50 ms, at most `maxMs`: the pool shrinks on its own timer. */
async function eventually(cond: () => boolean, maxMs = 10_000): Promise<boolean> {
  for (let waited = 0; waited <= maxMs; waited += 50) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

test("the pool starts lazily, runs key generation in a worker and shrinks when idle", async (t) => {
  const pool = createWorkerPool({ maxThreads: 1, idleTimeout: 200, log: createLog("silent") });
  t.after(() => pool.close());
  assert.equal(pool.threads(), 0, "no thread before first use");

  const keys = await pool.run<{ publicKeyPem: string; privateKeyPem: string }>("generateKeyPair", {});
  assert.match(keys.publicKeyPem, /^-----BEGIN PUBLIC KEY-----\n/);
  assert.match(keys.privateKeyPem, /^-----BEGIN PRIVATE KEY-----\n/);
  const pub = createPublicKey(keys.publicKeyPem);
  assert.equal(pub.asymmetricKeyType, "rsa");
  assert.equal(pub.asymmetricKeyDetails?.modulusLength, 2048);
  // The two halves belong together.
  assert.equal(
    createPublicKey(createPrivateKey(keys.privateKeyPem)).export({ type: "spki", format: "pem" }),
    pub.export({ type: "spki", format: "pem" }),
  );
  assert.equal(pool.threads(), 1);

  assert.ok(await eventually(() => pool.threads() === 0), "idle threads are closed after poolIdleMs");
  // And it comes back on demand.
  const again = await pool.run<{ publicKeyPem: string }>("generateKeyPair", {});
  assert.notEqual(again.publicKeyPem, keys.publicKeyPem);
});

test("an unknown task is rejected, and close() is safe before first use and twice", async () => {
  const pool = createWorkerPool({ maxThreads: 1, idleTimeout: 200, log: createLog("silent") });
  await assert.rejects(pool.run("noSuchTask", {}), /unknown worker task: noSuchTask/);
  await pool.close();
  await pool.close();
  assert.equal(pool.threads(), 0);
  const unused = createWorkerPool({ maxThreads: 1, idleTimeout: 200, log: createLog("silent") });
  await unused.close();
});
