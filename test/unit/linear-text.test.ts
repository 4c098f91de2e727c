import { test } from "node:test";
import assert from "node:assert/strict";
import { countGraphemes } from "../../src/lib/graphemes.ts";
import { clipCodePoints, exceedsCodePoints } from "../../src/lib/code-points.ts";
import { exceedsStatusLimit, statusLength } from "../../src/lib/status-text.ts";
import { extractHashtags } from "../../src/lib/tags.ts";
import { countTextLength, exceedsTextLimit, extractUrls, MAX_UNITS_PER_CHAR } from "../../src/lib/text-html.ts";

// The linear text helpers against the straightforward (slow on long input) definitions they
// replace, on random strings built from the characters where the rules have corner cases.

function random(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

function randomText(rand: () => number, alphabet: string[], max: number): string {
  let s = "";
  const n = Math.floor(rand() * max);
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
  return s;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const naiveGraphemes = (s: string) => [...segmenter.segment(s)].length;

test("countGraphemes counts what Intl.Segmenter counts, at every piece boundary", () => {
  // Flags (pairs of regional indicators), ZWJ sequences, skin tones, combining marks, CR LF,
  // Hangul jamo, a prepend character, an Indic conjunct, lone surrogates, plain ASCII.
  const alphabet = ["a", " ", "\n", "\r", "\t", "🇫", "🇷", "👩", "\u200d", "👧", "🏽", "\u0301", "\u0308", "e", "\u1100", "\u1161", "\u11a8", "\u0600", "क", "\u094d", "ष", "\ud800", "\udc00", "漢", "️"];
  const rand = random(42);
  for (let i = 0; i < 3000; i++) {
    const s = randomText(rand, alphabet, 60);
    const want = naiveGraphemes(s);
    for (const piece of [1, 2, 3, 5, 8, 256]) assert.equal(countGraphemes(s, Infinity, piece), want, `${JSON.stringify(s)} in pieces of ${piece}`);
  }
  // A cluster longer than a piece, and runs of flags whose pairing depends on what came first.
  for (const s of ["e" + "\u0301".repeat(1000) + "x", "🇫🇷".repeat(300) + "🇫", "x" + "🇫🇷".repeat(301), "a\r\n".repeat(500)]) {
    assert.equal(countGraphemes(s, Infinity, 7), naiveGraphemes(s));
  }
});

test("countGraphemes stops soon after the limit it is given", () => {
  assert.equal(countGraphemes("x".repeat(1000)), 1000);
  const n = countGraphemes("é".repeat(1_000_000), 500);
  assert.ok(n > 500 && n < 500 + 300, String(n));
  assert.equal(countGraphemes("é".repeat(400), 500), 400);
});

test("exceedsCodePoints and clipCodePoints count code points like Array.from", () => {
  const rand = random(7);
  for (let i = 0; i < 2000; i++) {
    const s = randomText(rand, ["a", "é", "👩", "\ud800", "\udc00", "漢"], 40);
    const cps = Array.from(s);
    for (const max of [0, 1, 5, 10, 20]) {
      assert.equal(exceedsCodePoints(s, max), cps.length > max, JSON.stringify(s));
      assert.equal(clipCodePoints(s, max), cps.slice(0, max).join(""), JSON.stringify(s));
    }
  }
});

// Mastodon's HASHTAG_NAME_PAT as a regex: what extractHashtags must keep matching.
const W = String.raw`\p{L}\p{M}\p{Nd}\p{Pc}`;
const A = String.raw`\p{L}\p{M}`;
const SEP = String.raw`_\u00B7\u30FB\u200C`;
const NAME = `(?:[${W}_][${W}${SEP}]*[${A}${SEP}][${W}${SEP}]*[${W}_])|(?:[${W}_]*[${A}][${W}_]*)`;
const REFERENCE_RE = new RegExp(`(?<=^|\\s)[#＃](${NAME})`, "gu");

function referenceHashtags(text: string) {
  return [...text.matchAll(REFERENCE_RE)].map((m) => {
    let name = m[1];
    if (text.startsWith("://", m.index + 1 + name.length)) name = /^(.+?)(https?)$/u.exec(name)?.[1] ?? name;
    return { start: m.index, end: m.index + 1 + name.length, name };
  });
}

test("extractHashtags matches Mastodon's hashtag pattern, in linear time", () => {
  const alphabet = ["a", "Z", "1", "_", "·", "・", "\u200c", " ", "\n", "#", "＃", "é", "\u0301", "𝒜", "١", "‿", "-", ".", "https", "://", "漢"];
  const rand = random(3);
  for (let i = 0; i < 5000; i++) {
    const s = randomText(rand, alphabet, 25);
    assert.deepEqual(extractHashtags(s), referenceHashtags(s), JSON.stringify(s));
  }
  // What makes the regex quadratic: a letter, then a long run of separators (and no word
  // character after them). Linear now: a megabyte of it is matched at once.
  const tags = extractHashtags(("#a" + "·".repeat(50_000) + " ").repeat(20));
  assert.deepEqual(tags.map((t) => t.name), Array(20).fill("a"));
});

test("length limits: refused on raw length when far too long, exact otherwise (long URLs count 23)", () => {
  // 20 links of 4 000 characters and a word between each: 20 × 23 + 19 = 479 of 500.
  const links = Array.from({ length: 20 }, (_, i) => `https://example.com/${i}/${"a".repeat(3975)}`).join(" ");
  assert.ok(links.length > 75_000);
  assert.equal(countTextLength(links), 479);
  assert.equal(exceedsTextLimit(links, 500), false);
  assert.equal(exceedsTextLimit(links, 478), true);
  assert.equal(exceedsStatusLimit(links, "", 500), false);
  assert.equal(exceedsStatusLimit(links, "x".repeat(21), 500), false);
  assert.equal(exceedsStatusLimit(links, "x".repeat(22), 500), true);
  // Beyond twitter-text's 4 096 characters a URL is no longer one: it counts as typed.
  assert.equal(countTextLength(`https://example.com/${"a".repeat(4076)}`), 23);
  assert.equal(countTextLength(`https://example.com/${"a".repeat(4077)}`), 4097);
  assert.equal(extractUrls(`https://example.com/${"a".repeat(4077)}`).length, 0);
  // Mastodon's extractor drops mentions whose domain is longer than 253 characters.
  const domain = `${"a".repeat(60)}.`.repeat(4) + "example"; // 251
  assert.equal(countTextLength(`@bob@${domain}`), 4);
  assert.equal(countTextLength(`@bob@aaa${domain}`), 5 + 254);
  // Far beyond what can fit: refused without looking (a megabyte of combining marks would
  // count as one character; more than 179 code units per character are not accepted).
  assert.equal(exceedsTextLimit("x".repeat(500 * MAX_UNITS_PER_CHAR + 1), 500), true);
  assert.equal(exceedsTextLimit("e" + "\u0301".repeat(10_000), 500), false);
  assert.equal(exceedsTextLimit("e" + "\u0301".repeat(1_000_000), 500), true);
});

test("the content warning counts as typed, the text with its URLs and mentions shortened", () => {
  // Mastodon's StatusLengthValidator joins spoiler_text and countable_text(text).
  assert.equal(statusLength("https://example.com/" + "a".repeat(100), ""), 23);
  assert.equal(statusLength("", "https://example.com/" + "a".repeat(100)), 120);
  assert.equal(statusLength("@bob@remote.example", "@bob@remote.example"), 19 + 4);
  // Joined, a combining mark at the start of the text belongs to the warning's last letter.
  assert.equal(statusLength("\u0301x", "e"), 2);
});

test("xmpp: links are still found; a run of bare 'xmpp:' is not one", () => {
  assert.deepEqual(extractUrls("chat: xmpp:alice@example.com/phone ok"), [
    { start: 6, end: 34, url: "xmpp:alice@example.com/phone", web: false },
  ]);
  // Each "xmpp:" is tried as a link: bounded JID parts keep each failed try short.
  assert.deepEqual(extractUrls("xmpp:".repeat(20_000)), []);
});
