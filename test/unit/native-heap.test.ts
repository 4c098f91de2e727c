// trimNativeHeap gives the server's freed malloc memory back to the system (glibc's
// malloc_trim through koffi): free space between live blocks, which glibc never returns on
// its own, the state a burst of upload bodies leaves behind.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import koffi from "koffi";
import { trimNativeHeap } from "../../src/workers/native-heap.ts";

const rssMb = () => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;

test("the holes a burst leaves in the C heap go back to the system", { skip: process.platform !== "linux" }, async () => {
  const libc = koffi.load("libc.so.6");
  const malloc = libc.func("void *malloc(size_t size)");
  const memset = libc.func("void *memset(void *s, int c, size_t n)");
  const free = libc.func("void free(void *ptr)");
  // 1,600 blocks of 60 KB (an HTTP body chunk's size: below the mmap threshold, so they sit in
  // the main arena), touched so they are resident; then every other one freed. The blocks
  // still in use between the holes keep glibc from returning them by itself.
  const blocks = Array.from({ length: 1600 }, () => {
    const p = malloc(60 * 1024);
    memset(p, 1, 60 * 1024);
    return p;
  });
  for (let i = 0; i < blocks.length; i += 2) free(blocks[i]);
  const holes = rssMb();
  assert.equal(await trimNativeHeap(), true, "glibc's malloc_trim is reachable on Linux");
  const trimmed = rssMb();
  for (let i = 1; i < blocks.length; i += 2) free(blocks[i]);
  // 800 holes of 60 KB: ~47 MB; all but their edge pages go.
  assert.ok(holes - trimmed > 30, `RSS ${holes.toFixed(1)} MB with the holes, ${trimmed.toFixed(1)} MB after the trim`);
});
