import { test } from "node:test";
import assert from "node:assert/strict";
import { H3 } from "h3";
import { parseQueryString, readParams, Params } from "../../src/http/params.ts";
import { ApiError } from "../../src/errors.ts";

const LIMITS = { json: 64 * 1024, multipart: 256 * 1024 };

/** An H3 app echoing what readParams parsed, so the real request path is exercised. */
function echoApp() {
  const h3 = new H3({
    silent: true,
    onError: (err) => {
      const cause = err.cause instanceof ApiError ? err.cause : undefined;
      return new Response(JSON.stringify({ error: cause?.error ?? "boom" }), { status: cause?.status ?? 500 });
    },
  });
  h3.post("/echo", async (event) => {
    const p = await readParams(event, LIMITS);
    const file = p.file("file");
    return { raw: JSON.parse(JSON.stringify(p.raw)), file: file ? { name: file.name, size: file.size } : null };
  });
  return h3;
}

test("form keys follow Rails: arrays, nested hashes, indexed hashes", () => {
  const o = parseQueryString(
    "media_ids[]=1&media_ids[]=2&source[privacy]=private&poll[options][]=a&poll[options][]=b&" +
      "fields_attributes[1][name]=b&fields_attributes[0][name]=a&fields_attributes[0][value]=x&plain=1&plain=2",
  );
  const p = new Params(o);
  assert.deepEqual(p.strArray("media_ids"), ["1", "2"]);
  assert.equal(p.obj("source")?.str("privacy"), "private");
  assert.deepEqual(p.obj("poll")?.strArray("options"), ["a", "b"]);
  assert.deepEqual(p.list("fields_attributes")?.map((f) => f.str("name")), ["a", "b"]);
  assert.equal(p.list("fields_attributes")?.[0].str("value"), "x");
  assert.equal(p.str("plain"), "1"); // first value wins for a repeated scalar
});

test("a[][b] keys build an array of hashes as Rails does: a repeated key starts the next hash", () => {
  // Mastodon's documented form for POST /api/v2/filters.
  const o = parseQueryString(
    "keywords_attributes[][keyword]=foo&keywords_attributes[][whole_word]=false&" +
      "keywords_attributes[][keyword]=bar&keywords_attributes[][whole_word]=true&" +
      "keywords_attributes[][id]=7&keywords_attributes[][_destroy]=true&" +
      "x[][tags][]=a&x[][tags][]=b&x[][name]=n",
  );
  const p = new Params(o);
  const items = p.list("keywords_attributes")!.map((k) => ({ id: k.str("id"), keyword: k.str("keyword"), whole: k.bool("whole_word"), del: k.bool("_destroy") }));
  assert.deepEqual(items, [
    { id: undefined, keyword: "foo", whole: false, del: undefined },
    { id: "7", keyword: "bar", whole: true, del: true },
  ]);
  assert.deepEqual(JSON.parse(JSON.stringify(o.x)), [{ tags: ["a", "b"], name: "n" }]);
});

test("dangerous and malformed keys are dropped", () => {
  const o = parseQueryString("__proto__[x]=1&a[__proto__][y]=2&constructor[prototype][z]=3&a]b=4&[]=5&ok=6");
  assert.equal(({} as Record<string, unknown>).x, undefined);
  assert.equal(({} as Record<string, unknown>).y, undefined);
  assert.deepEqual(Object.keys(o), ["ok"]);
});

test("booleans and integers are cast the Rails way", () => {
  const p = new Params(parseQueryString("a=0&b=false&c=off&d=1&e=true&f=yes&g=&i=42abc&j=abc&k=-7"));
  assert.deepEqual(["a", "b", "c", "d", "e", "f", "g", "h"].map((k) => p.bool(k)), [false, false, false, true, true, true, undefined, undefined]);
  assert.equal(p.int("i"), 42);
  assert.equal(p.int("j"), 0);
  assert.equal(p.int("k"), -7);
  assert.equal(p.int("missing"), undefined);
});

test("scalars are not arrays and arrays are not scalars", () => {
  const p = new Params(parseQueryString("id=5&x[]=1"));
  assert.equal(p.strArray("id"), undefined);
  assert.deepEqual(p.strArray("id", { allowScalar: true }), ["5"]);
  assert.equal(p.str("x"), undefined);
  assert.throws(() => p.requireStr("nothing"), (e: ApiError) => e.status === 400 && e.error === "param is missing or the value is empty: nothing");
});

test("JSON, form, multipart and query are merged with the body winning", async () => {
  const h3 = echoApp();
  const json = await h3.request("http://x/echo?limit=5&q=query", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ q: "body", source: { privacy: "unlisted" }, ids: ["1", 2] }),
  });
  assert.deepEqual((await json.json()).raw, { limit: "5", q: "body", source: { privacy: "unlisted" }, ids: ["1", 2] });

  const form = await h3.request("http://x/echo", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "types[]=mention&types[]=follow&home[last_read_id]=9",
  });
  assert.deepEqual((await form.json()).raw, { types: ["mention", "follow"], home: { last_read_id: "9" } });

  const fd = new FormData();
  fd.append("description", "a cat");
  fd.append("focus[x]", "0.5");
  fd.append("file", new Blob([new Uint8Array(1000)], { type: "image/png" }), "cat.png");
  const mp = await h3.request("http://x/echo", { method: "POST", body: fd });
  const mpBody = await mp.json();
  assert.equal(mpBody.raw.description, "a cat");
  assert.deepEqual(mpBody.raw.focus, { x: "0.5" });
  assert.deepEqual(mpBody.file, { name: "cat.png", size: 1000 });
});

test("malformed and oversized bodies are 400 and 413", async () => {
  const h3 = echoApp();
  const bad = await h3.request("http://x/echo", { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
  assert.equal(bad.status, 400);
  const arr = await h3.request("http://x/echo", { method: "POST", headers: { "content-type": "application/json" }, body: "[1]" });
  assert.equal(arr.status, 400);
  const big = await h3.request("http://x/echo", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ s: "x".repeat(70 * 1024) }),
  });
  assert.equal(big.status, 413);
  assert.deepEqual(await big.json(), { error: "Payload Too Large" });
  const deep = await h3.request("http://x/echo", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "[".repeat(0) + JSON.stringify({ a: JSON.parse("[".repeat(100) + "]".repeat(100)) }),
  });
  assert.equal(deep.status, 400);
});

test("JSON integers beyond 2^53 keep their digits; other numbers cast as before", async () => {
  const h3 = echoApp();
  const body =
    '{"id":117672769330833407,"neg":-117672769330833407,"ids":[117672769330833407,5],"limit":40,"ratio":0.5,' +
    '"big_float":1.5e300,"flag":1,"off":0,"nested":{"last_read_id":9007199254740993},' +
    '"__proto__":{"polluted":117672769330833407},"constructor":{"prototype":{"x":1}}}';
  const res = await h3.request("http://x/echo", { method: "POST", headers: { "content-type": "application/json" }, body });
  const raw = (await res.json()).raw;
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.deepEqual(Object.keys(raw), ["id", "neg", "ids", "limit", "ratio", "big_float", "flag", "off", "nested"]);
  const p = new Params(raw);
  assert.equal(p.str("id"), "117672769330833407");
  assert.equal(p.str("neg"), "-117672769330833407");
  assert.deepEqual(p.strArray("ids"), ["117672769330833407", "5"]);
  assert.equal(p.obj("nested")?.str("last_read_id"), "9007199254740993");
  assert.equal(p.int("limit"), 40);
  assert.equal(p.str("ratio"), "0.5");
  assert.equal(p.str("big_float"), "1.5e+300");
  assert.deepEqual([p.bool("flag"), p.bool("off"), p.bool("id")], [true, false, true]);
  assert.equal(p.int("id"), Number.MAX_SAFE_INTEGER, "an id-sized limit is clamped, never rounded");

  // The depth limit holds on the lossless path too.
  const deep = await h3.request("http://x/echo", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: `{"id":117672769330833407,"a":${"[".repeat(40)}${"]".repeat(40)}}`,
  });
  assert.equal(deep.status, 400);
  assert.deepEqual(await deep.json(), { error: "Malformed request body: nested too deeply" });
});
