import { test } from "node:test";
import assert from "node:assert/strict";
import { foldCase, KeywordMatcher, type MatcherKeyword } from "../../src/lib/keyword-matcher.ts";

// Mastodon's matching (CustomFilterKeyword#to_regex, Regexp.union, `match.to_s`) against the
// automaton: keyword text, case, word boundaries, which match counts, and the matched text.

function first(keywords: [string, boolean][], text: string): string | undefined {
  const m = KeywordMatcher.compile(keywords.map(([keyword, wholeWord]) => ({ filter: 0, keyword, wholeWord })), 1);
  return m.firstMatches(text)[0]?.text;
}

test("a keyword matches anywhere, case-insensitively, and reports the text as written", () => {
  assert.equal(first([["cat", false]], "concatenate"), "cat");
  assert.equal(first([["Cat", false]], "BIG CATS"), "CAT");
  assert.equal(first([["c.t", false]], "cat c.t"), "c.t"); // no regex syntax: the text itself
  assert.equal(first([["cat", false]], "dog"), undefined);
});

test("whole_word puts a boundary on each end that is a word character (to_regex_sb/eb)", () => {
  assert.equal(first([["cat", true]], "concatenate cats"), undefined);
  assert.equal(first([["cat", true]], "a Cat. and"), "Cat");
  assert.equal(first([["cat", true]], "cat"), "cat");
  assert.equal(first([["cat", true]], "_cat"), undefined); // "_" is a word character
  // "#test": no boundary before "#", one after "test".
  assert.equal(first([["#test", true]], "a#test b"), "#test");
  assert.equal(first([["#test", true]], "#testing"), undefined);
  // "test#": a boundary before, none after.
  assert.equal(first([["test#", true]], "test#x"), "test#");
  assert.equal(first([["test#", true]], "atest#"), undefined);
  assert.equal(first([["two words", true]], "say two words!"), "two words");
});

test("word characters are Unicode letters, marks, digits and connectors, as Onigmo's [[:word:]]", () => {
  assert.equal(first([["café", true]], "les cafés"), undefined);
  assert.equal(first([["café", true]], "un CAFÉ!"), "CAFÉ");
  assert.equal(first([["über", true]], "Überall"), undefined);
  assert.equal(first([["猫", true]], "猫です"), undefined); // kana are letters too
  assert.equal(first([["猫", false]], "猫です"), "猫");
  assert.equal(first([["2024", true]], "x2024"), undefined);
  assert.equal(first([["🐈", true]], "a🐈b"), "🐈"); // not a word character: no boundary needed
  assert.equal(first([["a", true]], "🐈a🐈"), "a");
});

test("the first match is the leftmost; at the same start, the keyword listed first", () => {
  assert.equal(first([["dog", false], ["the quick", false]], "the quick dog"), "the quick");
  assert.equal(first([["cat", false], ["cats", false]], "cats"), "cat");
  assert.equal(first([["cats", false], ["cat", false]], "cats"), "cats");
  // A longer keyword that starts earlier wins over a shorter one found first.
  assert.equal(first([["b", false], ["abc", false]], "xabc"), "abc");
  // A whole-word keyword that fails its boundary gives way to the next one at that start.
  assert.equal(first([["cat", true], ["category", false]], "category"), "category");
});

test("case folding keeps every character where it was", () => {
  assert.equal(foldCase("İSTANBUL").length, "İSTANBUL".length);
  assert.equal(first([["İstanbul", false]], "to İSTANBUL and back"), "İSTANBUL");
  assert.equal(first([["bul", false]], "İSTANBUL"), "BUL");
  assert.equal(first([["ΟΔΟΣ", false]], "στην οδος"), "οδος"); // final sigma folds like sigma
  assert.equal(first([["ß", false]], "STRASSE Straße"), "ß");
});

test("each filter gets its own first match; filters without one are left out", () => {
  const keywords: MatcherKeyword[] = [
    { filter: 0, keyword: "he", wholeWord: false },
    { filter: 1, keyword: "she", wholeWord: false },
    { filter: 2, keyword: "his", wholeWord: false },
    { filter: 1, keyword: "hers", wholeWord: false },
    { filter: 3, keyword: "zebra", wholeWord: false },
  ];
  const m = KeywordMatcher.compile(keywords, 4);
  assert.deepEqual(m.firstMatches("ushers"), [
    { filter: 0, text: "he" },
    { filter: 1, text: "she" },
  ]);
  assert.deepEqual(m.firstMatches("this hershey"), [
    { filter: 0, text: "he" },
    { filter: 1, text: "hers" },
    { filter: 2, text: "his" },
  ]);
});

test("nested keywords over a long text: one pass, the leftmost match", () => {
  const nested = Array.from({ length: 200 }, (_, i): [string, boolean] => ["a".repeat(i + 1), true]);
  assert.equal(first(nested, "a".repeat(100_000)), undefined); // no whole word that long
  assert.equal(first(nested, `${"b ".repeat(50_000)}${"a".repeat(150)}.`), "a".repeat(150));
  // At the leftmost start, the first keyword listed that matches there: "aa" (not whole-word).
  assert.equal(first([["a", true], ["aa", false], ["aaa", false]], "aaaa"), "aa");
});

/** Deterministic pseudo-random numbers. */
function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

/** Mastodon's regex for one filter, in JavaScript: Regexp.union of to_regex, case-insensitive. */
function referenceRegex(keywords: { keyword: string; wholeWord: boolean }[]): RegExp {
  const word = /^[\p{L}\p{M}\p{Nd}\p{Pc}]/u;
  const alts = keywords.map(({ keyword, wholeWord }) => {
    const escaped = keyword.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (!wholeWord) return escaped;
    const sb = word.test(keyword) ? "(?<![\\p{L}\\p{M}\\p{Nd}\\p{Pc}])" : "";
    const eb = word.test([...keyword].at(-1)!) ? "(?![\\p{L}\\p{M}\\p{Nd}\\p{Pc}])" : "";
    return sb + escaped + eb;
  });
  return new RegExp(alts.join("|"), "iu");
}

test("the automaton agrees with Mastodon's regexes on random keywords and texts", () => {
  const rand = rng(12345);
  const alphabet = ["a", "b", "A", "B", "é", "É", " ", "-", "_", "#", "c"];
  const pick = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(rand() * alphabet.length)]).join("");
  for (let round = 0; round < 300; round++) {
    const filterCount = 1 + Math.floor(rand() * 4);
    const keywords: MatcherKeyword[] = [];
    for (let i = 0; i < 1 + Math.floor(rand() * 8); i++) {
      const keyword = pick(1 + Math.floor(rand() * 4));
      if (keyword.trim() === "") continue;
      keywords.push({ filter: Math.floor(rand() * filterCount), keyword, wholeWord: rand() < 0.5 });
    }
    const text = pick(Math.floor(rand() * 60));
    const got = KeywordMatcher.compile(keywords, filterCount).firstMatches(text);
    const want: { filter: number; text: string }[] = [];
    for (let f = 0; f < filterCount; f++) {
      const own = keywords.filter((k) => k.filter === f);
      if (own.length === 0) continue;
      const m = referenceRegex(own).exec(text);
      if (m) want.push({ filter: f, text: m[0] });
    }
    assert.deepEqual(got, want, `keywords ${JSON.stringify(keywords)} text ${JSON.stringify(text)}`);
  }
});
