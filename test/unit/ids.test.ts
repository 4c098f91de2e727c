import { test } from "node:test";
import assert from "node:assert/strict";
import { compareIds, createIdGenerator, idTime, isId, parseId } from "../../src/lib/ids.ts";

test("ids carry the millisecond in the upper 48 bits and a sequence in the lower 16", () => {
  let now = 1_767_225_600_000;
  const ids = createIdGenerator(() => now);
  const a = ids.next();
  const b = ids.next();
  assert.equal(BigInt(a) >> 16n, BigInt(now));
  assert.ok((BigInt(a) & 0xffffn) < 32_768n, "the sequence starts in the lower half");
  assert.equal(BigInt(b), BigInt(a) + 1n);
  assert.equal(idTime(a), now);
  now += 1;
  const c = ids.next();
  assert.equal(BigInt(c) >> 16n, BigInt(now));
  assert.ok(compareIds(a, b) < 0 && compareIds(b, c) < 0);
});

test("ids stay increasing when the clock goes backwards or the sequence overflows", () => {
  let now = 2_000_000_000_000;
  const ids = createIdGenerator(() => now);
  const seen: string[] = [];
  for (let i = 0; i < 70_000; i++) seen.push(ids.next()); // > 65,536 in one millisecond
  now -= 5000;
  seen.push(ids.next());
  for (let i = 1; i < seen.length; i++) assert.ok(compareIds(seen[i - 1], seen[i]) < 0, `id ${i} not increasing`);
  assert.equal(idTime(seen[0]), 2_000_000_000_000);
  assert.ok(idTime(seen[69_999]) > 2_000_000_000_000, "an exhausted millisecond borrows the next");
});

test("ids above 2^53 survive as strings and are validated", () => {
  const big = "9223372036854775807";
  assert.ok(isId(big));
  assert.equal(parseId(big), big);
  assert.equal(parseId("9223372036854775808"), undefined); // beyond SQLite's INTEGER
  assert.equal(parseId("12abc"), undefined);
  assert.equal(parseId("-1"), undefined);
  assert.equal(parseId("0123"), undefined);
  assert.equal(parseId(42), "42");
});

test("two generators in the same millisecond rarely collide", () => {
  const now = () => 1_800_000_000_000;
  let same = 0;
  for (let i = 0; i < 50; i++) if (createIdGenerator(now).next() === createIdGenerator(now).next()) same++;
  assert.ok(same <= 2, `${same} collisions in 50 tries`);
});
