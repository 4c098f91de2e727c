// The search query language: Mastodon's grammar (anything parses), the compiled FTS5 query
// (dates as id ranges, 422 for a date that is none), and user text that never becomes FTS5
// syntax, checked against a real FTS5 table built by the migration's own statement.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import Database from "better-sqlite3";
import { ApiError } from "../../src/errors.ts";
import { MAX_CLAUSE_CHARS, MAX_CLAUSES, parseSearchQuery } from "../../src/search/query-parser.ts";
import { compileStatusQuery, ID_END, matchExpression, type QueryContext } from "../../src/search/status-query.ts";
import { authorWord, libraryWord, PUBLIC_WORD } from "../../src/search/tokens.ts";

const ctx: QueryContext = {
  viewerId: "7",
  resolveAccount: (v) => ({ alice: "11", "@alice": "11", "bob@remote.example": "12" })[v] ?? null,
  languageCode: (v) => v.toLowerCase(),
};
const compile = (q: string) => compileStatusQuery(parseSearchQuery(q), ctx);
const idAt = (iso: string) => BigInt(Date.parse(iso)) << 16n;
const brief = (q: string) => parseSearchQuery(q).map((c) => [c.op, c.prefix, c.value, c.phrase]);

test("clauses: operators, prefixes, phrases; malformed ones fall back to plain terms as in Mastodon", () => {
  assert.deepEqual(brief('from:alice has:media "quoted phrase" -exclude +must cats'), [
    [null, "from", "alice", false],
    [null, "has", "media", false],
    [null, null, "quoted phrase", true],
    ["-", null, "exclude", false],
    ["+", null, "must", false],
    [null, null, "cats", false],
  ]);
  assert.deepEqual(brief('-from:bob from:"Al Smith" «guillemets» “curly”'), [
    ["-", "from", "bob", false],
    [null, "from", "Al Smith", true],
    [null, null, "guillemets", true],
    [null, null, "curly", true],
  ]);
  // No value, an unknown or upper-case prefix, a lone operator, an unbalanced quote: terms.
  assert.deepEqual(brief('from: foo:bar FROM:x - "unbalanced words'), [
    [null, null, "from:", false],
    [null, null, "foo:bar", false],
    [null, null, "FROM:x", false],
    [null, null, "-", false],
    [null, null, '"unbalanced', false],
    [null, null, "words", false],
  ]);
  assert.deepEqual(brief('"a"b  hashtag:x inside:y'), [
    [null, null, "a", true],
    [null, null, "b", false],
    [null, null, "hashtag:x", false],
    [null, null, "inside:y", false],
  ]);
  const huge = parseSearchQuery(`${"word ".repeat(2000)}${"x".repeat(10_000)}`);
  assert.equal(huge.length, MAX_CLAUSES);
  assert.ok(parseSearchQuery("y".repeat(10_000))[0].value.length === MAX_CLAUSE_CHARS);
});

test("compiled: filters, scopes and dates (UTC days as id ranges); a date that is none is a 422", () => {
  const q = compile("cats -dogs #Rust from:alice -from:bob@remote.example has:poll -is:reply language:DE in:library");
  assert.equal(q.scope, "library");
  assert.equal(q.must.length, 5);
  assert.equal(q.mustNot.length, 3);
  assert.ok(q.must.includes(`meta : "${authorWord("11")}"`));
  assert.ok(q.mustNot.includes(`meta : "${authorWord("12")}"`));
  assert.equal(q.impossible, false);

  // Unknown accounts and properties: nothing matches; excluding them excludes nothing.
  assert.equal(compile("from:nobody cats").impossible, true);
  assert.equal(compile("has:unicorns").impossible, true);
  const excludedNobody = compile("-from:nobody -has:unicorns cats");
  assert.deepEqual([excludedNobody.impossible, excludedNobody.mustNot], [false, []]);
  assert.equal(compile("from:me").must[0], `meta : "${authorWord("7")}"`);
  // Nothing asked: no words with letters, no filters.
  assert.equal(compile("!!! ... 🐘").constrained, false);
  assert.equal(compile("in:public").constrained, true);

  assert.deepEqual(compile("before:2024-03-12").range, { from: 0n, to: idAt("2024-03-12T00:00:00Z") });
  assert.deepEqual(compile("after:2024-03-12").range, { from: idAt("2024-03-13T00:00:00Z"), to: ID_END });
  assert.deepEqual(compile("during:2024-03-12").range, { from: idAt("2024-03-12T00:00:00Z"), to: idAt("2024-03-13T00:00:00Z") });
  assert.deepEqual(compile("after:2024-03-01 before:2024-03-12 -during:2024-03-05").excluded, [
    { from: idAt("2024-03-05T00:00:00Z"), to: idAt("2024-03-06T00:00:00Z") },
  ]);
  assert.deepEqual(compile("-before:2024-03-12").range, { from: idAt("2024-03-12T00:00:00Z"), to: ID_END });
  assert.deepEqual(compile(`before:${Date.parse("2024-03-12T10:00:00Z")}`).range.to, idAt("2024-03-12T10:00:00Z"));

  for (const bad of ["before:notadate", "after:2024-02-30", "during:2024-3-1", `before:${"9".repeat(300)}x`]) {
    assert.throws(() => compile(bad), (e: unknown) => e instanceof ApiError && e.status === 422 && /^Invalid date /.test(e.error) && e.error.length < 60, bad);
  }
});

// The table exactly as the migration creates it.
const ftsTable = /CREATE VIRTUAL TABLE status_search[\s\S]*?\);/.exec(readFileSync(new URL("../../migrations/0033_status_search.sql", import.meta.url), "utf8"))![0];

test("user text never becomes FTS5 syntax: it cannot widen the scope or break the query", () => {
  const db = new Database(":memory:");
  db.exec(ftsTable);
  const put = db.prepare("INSERT INTO status_search (rowid, text, meta) VALUES (?, ?, ?)");
  put.run(1, "public words about a secret", `${PUBLIC_WORD} ${authorWord("11")}`);
  put.run(2, "private secret of someone else", `${libraryWord("99")} ${authorWord("99")}`);
  put.run(3, "the viewer's own secret", `${libraryWord("7")} ${authorWord("7")}`);
  const find = (q: string) => {
    const query = compile(q);
    return (db.prepare("SELECT rowid FROM status_search WHERE status_search MATCH ? ORDER BY rowid").all(matchExpression(query, "7")) as { rowid: number }[]).map(
      (r) => r.rowid,
    );
  };
  assert.deepEqual(find("secret"), [1, 3]);
  for (const attack of [
    `secret") OR meta : ("${libraryWord("99")}`,
    `secret OR meta:${libraryWord("99")}`,
    `"secret" OR "else"`,
    `secret* NEAR(else) ^private {meta}:x`,
    `) OR (`,
    `" OR "`,
    `meta:${libraryWord("99")}`,
    `-"`,
  ]) {
    const found = find(attack);
    assert.ok(!found.includes(2), `${attack} → ${found}`);
  }
  // A word that looks like an index word is a word of the text: row 1 has it only in `meta`.
  put.run(4, `mentions ${PUBLIC_WORD} literally`, PUBLIC_WORD);
  assert.deepEqual(find(PUBLIC_WORD), [4]);
  assert.deepEqual(find(`-${PUBLIC_WORD} secret`), [1, 3]);
});
