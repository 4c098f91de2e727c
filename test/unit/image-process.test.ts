// Image tasks run in a worker process (workers/process-runner.ts) that starts on first use and
// exits when idle, so libvips' memory goes back to the system; the server process never loads
// sharp.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { createLog } from "../../src/lib/log.ts";
import { createWorkerPool } from "../../src/workers/pool.ts";
import type { MediaImageResult } from "../../src/workers/media-tasks.ts";

async function eventually(cond: () => boolean, maxMs = 10_000): Promise<boolean> {
  for (let waited = 0; waited <= maxMs; waited += 50) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

test("image tasks run in a worker process that starts on demand and exits when idle", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "roost-image-process-"));
  const pool = createWorkerPool({ maxThreads: 2, idleTimeout: 300, log: createLog("silent") });
  t.after(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const input = join(dir, "in.png");
  writeFileSync(input, await sharp({ create: { width: 50, height: 20, channels: 3, background: "#ff0000" } }).png().toBuffer());
  assert.equal(pool.threads(), 0);

  const [a, b] = await Promise.all([
    pool.run<MediaImageResult>("processMediaImage", { input, outputPrefix: join(dir, "a-") }),
    pool.run<MediaImageResult>("processMediaImage", { input, outputPrefix: join(dir, "b-") }),
  ]);
  assert.ok(a.ok && b.ok);
  assert.equal(a.original.path, join(dir, "a-original.png"));
  assert.deepEqual([a.original.width, a.original.height], [50, 20]);
  assert.equal(pool.threads(), 1, "one process, no thread");
  assert.ok(await eventually(() => pool.threads() === 0), "the process exits after the idle timeout");

  const refused = await pool.run<MediaImageResult>("processMediaImage", { input: join(dir, "missing.png"), outputPrefix: join(dir, "c-") });
  assert.deepEqual(refused, { ok: false, error: "File type of uploaded media could not be verified" });
  assert.ok(await eventually(() => pool.threads() === 0), "the process exits again after the refused task");
  // Other tasks go to the thread pool: at most its one thread runs (it may already have been
  // shrunk away), never a second image process.
  await assert.rejects(pool.run("noSuchTask", {}), /unknown worker task: noSuchTask/);
  assert.ok(pool.threads() <= 1);
});

test("closing the pool rejects the image tasks still waiting", async () => {
  const pool = createWorkerPool({ maxThreads: 1, idleTimeout: 300, log: createLog("silent") });
  const waiting = assert.rejects(pool.run("processMediaImage", { input: "/nonexistent", outputPrefix: "/nonexistent-" }), /worker pool closed/);
  await pool.close();
  await waiting;
  await assert.rejects(pool.run("processMediaImage", {}), /worker pool closed/);
});

test("once the image process has gone idle, the pool trims the native heap", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "roost-image-process-"));
  let trims = 0;
  const pool = createWorkerPool({ maxThreads: 1, idleTimeout: 200, log: createLog("silent"), onImagesIdle: () => trims++ });
  t.after(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const input = join(dir, "in.png");
  writeFileSync(input, await sharp({ create: { width: 8, height: 8, channels: 3, background: "#00ff00" } }).png().toBuffer());
  const done = await pool.run<MediaImageResult>("processMediaImage", { input, outputPrefix: join(dir, "a-") });
  assert.ok(done.ok);
  assert.equal(trims, 0, "not while the process is alive");
  assert.ok(await eventually(() => pool.threads() === 0));
  assert.ok(await eventually(() => trims === 1), "trimmed once the image process has gone");
});
