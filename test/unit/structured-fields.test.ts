import { test } from "node:test";
import assert from "node:assert/strict";
import { parseDictionary, serializeInnerList, StructuredFieldError, type InnerList } from "../../src/federation/net/structured-fields.ts";

test("dictionaries: RFC 9421 Signature-Input, Signature and RFC 9530 Content-Digest", () => {
  const input = parseDictionary('sig1=("@method" "@target-uri" "content-digest");created=1769938213;keyid="https://a.example/u#k";alg="ed25519"');
  const sig1 = input.get("sig1") as InnerList;
  assert.equal(sig1.kind, "list");
  assert.deepEqual(sig1.items.map((i) => i.value), [
    { type: "string", value: "@method" },
    { type: "string", value: "@target-uri" },
    { type: "string", value: "content-digest" },
  ]);
  assert.deepEqual(sig1.params.get("created"), { type: "integer", value: 1769938213 });
  assert.deepEqual(sig1.params.get("keyid"), { type: "string", value: "https://a.example/u#k" });
  assert.equal(serializeInnerList(sig1), '("@method" "@target-uri" "content-digest");created=1769938213;keyid="https://a.example/u#k";alg="ed25519"');

  const digest = parseDictionary("sha-512=:AAEC:,  sha-256=:3q2+7w==:");
  const sha = digest.get("sha-256");
  assert.ok(sha?.kind === "item" && sha.value.type === "bytes");
  assert.deepEqual([...sha.value.value], [0xde, 0xad, 0xbe, 0xef]);
  assert.equal(digest.size, 2);
});

test("items: tokens, decimals, booleans, escapes, bare keys", () => {
  const d = parseDictionary('a=tok/en:x, b=-1.5, c=?0, d, e="q\\"uo\\\\te";p;q=2');
  assert.deepEqual((d.get("a") as { value: unknown }).value, { type: "token", value: "tok/en:x" });
  assert.deepEqual((d.get("b") as { value: unknown }).value, { type: "decimal", value: -1.5 });
  assert.deepEqual((d.get("c") as { value: unknown }).value, { type: "boolean", value: false });
  assert.deepEqual((d.get("d") as { value: unknown }).value, { type: "boolean", value: true });
  const e = d.get("e");
  assert.ok(e?.kind === "item");
  assert.deepEqual(e.value, { type: "string", value: 'q"uo\\te' });
  assert.deepEqual([...e.params.keys()], ["p", "q"]);
  // Canonical serialisation round trip of an inner list with every parameter type.
  const list = parseDictionary('x=("a" b);n=1;d=0.50;t=?1;s="z";y=:AQ==:').get("x") as InnerList;
  assert.equal(serializeInnerList(list), '("a" b);n=1;d=0.5;t;s="z";y=:AQ==:');
});

test("off-grammar input throws StructuredFieldError", () => {
  for (const bad of [
    "A=1", // keys are lower case
    "a=1,", // trailing comma
    "a=(1 2", // unterminated inner list
    'a="unterminated',
    'a="bad\\escape"',
    "a=:no-end",
    "a=:ab*c:",
    "a=1234567890123456", // integer longer than 15 digits
    "a=1.2345", // more than 3 fraction digits
    "a=?2",
    "a=1 b=2",
    "a=@",
  ]) {
    assert.throws(() => parseDictionary(bad), StructuredFieldError, bad);
  }
});
