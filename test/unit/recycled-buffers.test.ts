// lib/recycled-buffers.ts: a file copied through a pipeline with a fixed set of read buffers
// (the account archive's media, issue 16 part 5) arrives whole, and no more buffers are used.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { BufferPool, pooledFileSink, pooledFileStream } from "../../src/lib/recycled-buffers.ts";

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "roost-pool-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("a file larger than the pool is copied whole through two reused buffers", async (t) => {
  const dir = tempDir(t);
  const data = randomBytes(3 * 1024 * 1024 + 123);
  writeFileSync(join(dir, "in"), data);
  const pool = new BufferPool(64 * 1024, 2);
  const seen = new Set<ArrayBufferLike>();
  const watch = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen.add(chunk.buffer);
      cb(null, chunk);
    },
  });
  await pipeline(pooledFileStream(join(dir, "in"), pool), new PassThrough(), watch, new PassThrough(), pooledFileSink(join(dir, "out"), pool));
  assert.deepEqual(readFileSync(join(dir, "out")), data);
  assert.equal(seen.size, 2);
});

test("other chunks pass through the sink untouched, and a missing file fails the pipeline", async (t) => {
  const dir = tempDir(t);
  const pool = new BufferPool(1024, 1);
  const src = new PassThrough();
  src.end(Buffer.from("not pooled"));
  await pipeline(src, pooledFileSink(join(dir, "plain"), pool));
  assert.equal(readFileSync(join(dir, "plain"), "utf8"), "not pooled");
  await assert.rejects(pipeline(pooledFileStream(join(dir, "missing"), pool), pooledFileSink(join(dir, "out"), pool)), { code: "ENOENT" });
});
