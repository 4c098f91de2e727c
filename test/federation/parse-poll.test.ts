// Reading a Question's poll (federation/parse/poll.ts) as Mastodon's PollParser reads it, on
// the edges the fixtures do not cover.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseApPoll } from "../../src/federation/parse/poll.ts";

const option = (name: unknown, totalItems?: unknown, extra: Record<string, unknown> = {}) => ({
  type: "Note",
  name,
  ...(totalItems === undefined ? {} : { replies: { type: "Collection", totalItems } }),
  ...extra,
});

test("options, tallies and kind", () => {
  assert.equal(parseApPoll({ type: "Note", oneOf: [option("a", 1)] }), null, "only a Question has a poll");
  assert.equal(parseApPoll({ type: "Question" }), null, "a Question without options has none");
  assert.deepEqual(parseApPoll({ type: ["Question"], anyOf: [option("a", 3), option("b", -1), option("c", "7"), option("d")] }), {
    options: ["a", "b", "c", "d"],
    tallies: [3, 0, 0, 0],
    multiple: true,
    expiresAt: null,
    closedNow: false,
    votersCount: null,
  });
  // A blank name falls back to `content`; an option with neither is skipped; Misskey's own count is a fallback.
  const p = parseApPoll({ type: "Question", oneOf: [option(" ", undefined, { content: "from content" }), option(null), option("m", undefined, { _misskey_votes: 4 }), "junk"] })!;
  assert.deepEqual([p.options, p.tallies, p.multiple], [["from content", "m"], [0, 4], false]);
  // At most 500 options are read.
  assert.equal(parseApPoll({ type: "Question", oneOf: Array.from({ length: 600 }, (_, i) => option(`o${i}`)) })!.options.length, 500);
  assert.equal(parseApPoll({ type: "Question", oneOf: [option("a")], votersCount: 2.5 })!.votersCount, null);
});

test("the end: closed (a date, or any other truthy value), else endTime", () => {
  const end = "2031-01-02T03:04:05Z";
  const at = (doc: Record<string, unknown>) => {
    const p = parseApPoll({ type: "Question", oneOf: [option("a")], ...doc })!;
    return [p.expiresAt, p.closedNow];
  };
  assert.deepEqual(at({ endTime: end }), [Date.parse(end), false]);
  assert.deepEqual(at({ closed: end, endTime: "2030-01-01T00:00:00Z" }), [Date.parse(end), false]);
  assert.deepEqual(at({ closed: true, endTime: end }), [null, true]);
  assert.deepEqual(at({ closed: false, endTime: end }), [Date.parse(end), false]);
  assert.deepEqual(at({ closed: null, endTime: null }), [null, false]);
  assert.deepEqual(at({ closed: "not a date" }), [null, false]);
});
