// /api/v2/filters and its keywords and statuses sub-resources, and the v1 view over them, over
// HTTP with two users: exact entities, Mastodon's errors, ownership and limits.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_FILTERS, MAX_KEYWORDS } from "../../src/services/filters.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

async function setup(t: { after: (fn: () => Promise<void>) => void }) {
  const s = await startTestServer();
  t.after(() => s.close());
  return { s, alice: await s.user("alice"), bob: await s.user("bob") };
}

const form = (pairs: [string, string][]) => new URLSearchParams(pairs);

function createSpoilers(s: TestServer, who: TestUser) {
  return s.api(who, "POST", "/api/v2/filters", {
    title: "Spoilers",
    context: ["home", "notifications"],
    filter_action: "hide",
    keywords_attributes: [
      { keyword: "spoiler", whole_word: false },
      { keyword: "finale", whole_word: true },
    ],
  });
}

test("a v2 filter is created, shown, listed, changed and deleted with its keywords", async (t) => {
  const { s, alice } = await setup(t);
  const created = await createSpoilers(s, alice);
  assert.match(created.id, /^\d+$/);
  assert.deepEqual(
    { ...created, keywords: created.keywords.map(({ id, ...k }: any) => k) },
    {
      id: created.id,
      title: "Spoilers",
      context: ["home", "notifications"],
      expires_at: null,
      filter_action: "hide",
      keywords: [
        { keyword: "spoiler", whole_word: false },
        { keyword: "finale", whole_word: true },
      ],
      statuses: [],
    },
  );
  assert.deepEqual(await s.api(alice, "GET", `/api/v2/filters/${created.id}`), created);
  assert.deepEqual(await s.api(alice, "GET", "/api/v2/filters"), [created]);

  // Mastodon's documented PUT: remove one keyword, change the other, add a third; the rest stays.
  const [spoiler, finale] = created.keywords;
  const changed = await s.api(
    alice,
    "PUT",
    `/api/v2/filters/${created.id}`,
    form([
      ["title", "TV"],
      ["filter_action", "blur"],
      ["keywords_attributes[][id]", spoiler.id],
      ["keywords_attributes[][_destroy]", "true"],
      ["keywords_attributes[][id]", finale.id],
      ["keywords_attributes[][keyword]", "season finale"],
      ["keywords_attributes[][keyword]", "recap"],
      ["keywords_attributes[][whole_word]", "false"],
    ]),
  );
  assert.equal(changed.title, "TV");
  assert.equal(changed.filter_action, "blur");
  assert.deepEqual(changed.context, ["home", "notifications"]);
  assert.deepEqual(
    changed.keywords.map((k: any) => [k.id === finale.id, k.keyword, k.whole_word]),
    [
      [true, "season finale", true],
      [false, "recap", false],
    ],
  );

  assert.deepEqual(await s.api(alice, "DELETE", `/api/v2/filters/${created.id}`), {});
  assert.deepEqual(await s.api(alice, "GET", "/api/v2/filters"), []);
  const gone = await s.req(alice, "GET", `/api/v2/filters/keywords/${finale.id}`);
  assert.equal(gone.status, 404);
});

test("the documented form body creates keywords; whole_word defaults to true as in Mastodon's schema", async (t) => {
  const { s, alice } = await setup(t);
  const f = await s.api(
    alice,
    "POST",
    "/api/v2/filters",
    form([
      ["title", "test"],
      ["context[]", "public"],
      ["keywords_attributes[][keyword]", "foo"],
      ["keywords_attributes[][whole_word]", "false"],
      ["keywords_attributes[][keyword]", "bar"],
      ["keywords_attributes[][whole_word]", "true"],
      ["keywords_attributes[][keyword]", "baz"],
    ]),
  );
  assert.deepEqual(
    f.keywords.map((k: any) => [k.keyword, k.whole_word]),
    [
      ["foo", false],
      ["bar", true],
      ["baz", true],
    ],
  );
  assert.equal(f.filter_action, "warn");
  // Indexed hashes (keywords_attributes[0][keyword]) work too.
  const g = await s.api(alice, "POST", "/api/v2/filters", form([["title", "t2"], ["context[]", "thread"], ["keywords_attributes[0][keyword]", "qux"]]));
  assert.deepEqual(g.keywords.map((k: any) => k.keyword), ["qux"]);
});

test("a filter without keywords is allowed, as in Mastodon (a filter may name statuses only)", async (t) => {
  const { s, alice } = await setup(t);
  const f = await s.api(alice, "POST", "/api/v2/filters", { title: "Only posts", context: ["home"] });
  assert.deepEqual(f.keywords, []);
  assert.deepEqual(f.statuses, []);
});

test("bad input gets Mastodon's 422 wording", async (t) => {
  const { s, alice } = await setup(t);
  const post = (body: unknown) => s.req(alice, "POST", "/api/v2/filters", body);
  const cases: [unknown, string][] = [
    [{}, "Validation failed: Title can't be blank, Context can't be blank, Context None or invalid context supplied"],
    [{ title: "x", context: ["home", "timeline"] }, "Validation failed: Context None or invalid context supplied"],
    [{ title: "x", context: [" ", ""] }, "Validation failed: Context can't be blank, Context None or invalid context supplied"],
    [{ title: "x", context: ["home"], filter_action: "explode" }, "Validation failed: Action is not included in the list"],
    [{ title: "x".repeat(257), context: ["home"] }, "Validation failed: Title is too long (maximum is 256 characters)"],
    [
      { title: "x", context: ["home"], keywords_attributes: [{ keyword: "k".repeat(10_000) }] },
      "Validation failed: Keywords keyword is too long (maximum is 512 characters)",
    ],
    [{ title: "x", context: ["home"], keywords_attributes: [{ keyword: " ", whole_word: true }] }, "Validation failed: Keywords keyword can't be blank"],
    [{ title: "x", context: ["home"], expires_in: 1e15 }, "Validation failed: Expires in is invalid"],
  ];
  for (const [body, error] of cases) {
    const r = await post(body);
    assert.equal(r.status, 422, JSON.stringify(body).slice(0, 80));
    assert.deepEqual(r.body, { error });
  }
  // A keyword id on create names nothing: 404, as Mastodon documents.
  const withId = await post({ title: "x", context: ["home"], keywords_attributes: [{ id: "1", keyword: "a" }] });
  assert.equal(withId.status, 404);
  // Nothing was stored by the refused requests.
  assert.deepEqual(await s.api(alice, "GET", "/api/v2/filters"), []);

  const f = await createSpoilers(s, alice);
  const kw = await s.req(alice, "POST", `/api/v2/filters/${f.id}/keywords`, { keyword: "k".repeat(10_000) });
  assert.deepEqual([kw.status, kw.body], [422, { error: "Validation failed: Keyword is too long (maximum is 512 characters)" }]);
  const blank = await s.req(alice, "POST", `/api/v2/filters/${f.id}/keywords`, {});
  assert.deepEqual([blank.status, blank.body], [422, { error: "Validation failed: Keyword can't be blank" }]);
  const badPut = await s.req(alice, "PUT", `/api/v2/filters/${f.id}`, { context: ["nowhere"] });
  assert.deepEqual([badPut.status, badPut.body], [422, { error: "Validation failed: Context None or invalid context supplied" }]);
  const strangerKeyword = await s.req(alice, "PUT", `/api/v2/filters/${f.id}`, { keywords_attributes: [{ id: "123", keyword: "x" }] });
  assert.deepEqual([strangerKeyword.status, strangerKeyword.body], [404, { error: "Record not found" }]);
});

test("expires_in sets expires_at from the app clock; blank or null clears it", async (t) => {
  const { s, alice } = await setup(t);
  const T = Date.parse("2030-01-01T00:00:00.000Z");
  s.app.now = () => T;
  const f = await s.api(alice, "POST", "/api/v2/filters", { title: "week", context: ["home"], expires_in: 604800 });
  assert.equal(f.expires_at, "2030-01-08T00:00:00.000Z");
  const g = await s.api(alice, "PUT", `/api/v2/filters/${f.id}`, form([["expires_in", "3600"]]));
  assert.equal(g.expires_at, "2030-01-01T01:00:00.000Z");
  const kept = await s.api(alice, "PUT", `/api/v2/filters/${f.id}`, { title: "hour" });
  assert.equal(kept.expires_at, "2030-01-01T01:00:00.000Z");
  const cleared = await s.api(alice, "PUT", `/api/v2/filters/${f.id}`, form([["expires_in", ""]]));
  assert.equal(cleared.expires_at, null);
  const again = await s.api(alice, "PUT", `/api/v2/filters/${f.id}`, { expires_in: 60 });
  assert.equal(again.expires_at, "2030-01-01T00:01:00.000Z");
  assert.equal((await s.api(alice, "PUT", `/api/v2/filters/${f.id}`, { expires_in: null })).expires_at, null);
});

test("keywords and statuses sub-resources: every path, owner only", async (t) => {
  const { s, alice, bob } = await setup(t);
  const f = await createSpoilers(s, alice);

  const added = await s.api(alice, "POST", `/api/v2/filters/${f.id}/keywords`, { keyword: "trailer", whole_word: false });
  assert.deepEqual(Object.keys(added), ["id", "keyword", "whole_word"]);
  assert.deepEqual([added.keyword, added.whole_word], ["trailer", false]);
  assert.deepEqual((await s.api(alice, "GET", `/api/v2/filters/${f.id}/keywords`)).map((k: any) => k.keyword), ["spoiler", "finale", "trailer"]);
  assert.deepEqual(await s.api(alice, "GET", `/api/v2/filters/keywords/${added.id}`), added);
  const renamed = await s.api(alice, "PUT", `/api/v2/filters/keywords/${added.id}`, { keyword: "teaser" });
  assert.deepEqual(renamed, { id: added.id, keyword: "teaser", whole_word: false });
  assert.deepEqual(await s.api(alice, "DELETE", `/api/v2/filters/keywords/${added.id}`), {});
  assert.equal((await s.req(alice, "GET", `/api/v2/filters/keywords/${added.id}`)).status, 404);

  const post = await s.api(bob, "POST", "/api/v1/statuses", { status: "bob's plot twist" });
  const entry = await s.api(alice, "POST", `/api/v2/filters/${f.id}/statuses`, { status_id: post.id });
  assert.deepEqual(entry, { id: entry.id, status_id: post.id });
  assert.deepEqual(await s.api(alice, "GET", `/api/v2/filters/${f.id}/statuses`), [entry]);
  assert.deepEqual(await s.api(alice, "GET", `/api/v2/filters/statuses/${entry.id}`), entry);
  assert.deepEqual((await s.api(alice, "GET", `/api/v2/filters/${f.id}`)).statuses, [entry]);
  const dup = await s.req(alice, "POST", `/api/v2/filters/${f.id}/statuses`, { status_id: post.id });
  assert.deepEqual([dup.status, dup.body], [422, { error: "Validation failed: Status has already been taken" }]);
  const missing = await s.req(alice, "POST", `/api/v2/filters/${f.id}/statuses`, { status_id: "999" });
  assert.deepEqual([missing.status, missing.body], [422, { error: "Validation failed: Status must exist" }]);
  const secret = await s.api(bob, "POST", "/api/v1/statuses", { status: "only for followers", visibility: "private" });
  const hidden = await s.req(alice, "POST", `/api/v2/filters/${f.id}/statuses`, { status_id: secret.id });
  assert.deepEqual([hidden.status, hidden.body], [422, { error: "Validation failed: Status is invalid" }]);

  // bob sees none of it, changes none of it.
  const notFound = { error: "Record not found" };
  for (const [method, path] of [
    ["GET", `/api/v2/filters/${f.id}`],
    ["PUT", `/api/v2/filters/${f.id}`],
    ["DELETE", `/api/v2/filters/${f.id}`],
    ["GET", `/api/v2/filters/${f.id}/keywords`],
    ["POST", `/api/v2/filters/${f.id}/keywords`],
    ["GET", `/api/v2/filters/keywords/${f.keywords[0].id}`],
    ["PUT", `/api/v2/filters/keywords/${f.keywords[0].id}`],
    ["DELETE", `/api/v2/filters/keywords/${f.keywords[0].id}`],
    ["GET", `/api/v2/filters/${f.id}/statuses`],
    ["POST", `/api/v2/filters/${f.id}/statuses`],
    ["GET", `/api/v2/filters/statuses/${entry.id}`],
    ["DELETE", `/api/v2/filters/statuses/${entry.id}`],
    ["GET", `/api/v1/filters/${f.keywords[0].id}`],
    ["PUT", `/api/v1/filters/${f.keywords[0].id}`],
    ["DELETE", `/api/v1/filters/${f.keywords[0].id}`],
  ] as const) {
    const r = await s.req(bob, method, path, method === "GET" ? undefined : { keyword: "x", status_id: post.id, title: "mine" });
    assert.deepEqual([r.status, r.body], [404, notFound], `${method} ${path}`);
  }
  assert.deepEqual(await s.api(bob, "GET", "/api/v2/filters"), []);
  assert.deepEqual(await s.api(bob, "GET", "/api/v1/filters"), []);

  assert.deepEqual(await s.api(alice, "DELETE", `/api/v2/filters/statuses/${entry.id}`), {});
  assert.deepEqual(await s.api(alice, "GET", `/api/v2/filters/${f.id}/statuses`), []);
  // Deleting a filtered status takes its entry with it.
  const again = await s.api(alice, "POST", `/api/v2/filters/${f.id}/statuses`, { status_id: post.id });
  await s.api(bob, "DELETE", `/api/v1/statuses/${post.id}`);
  assert.equal((await s.req(alice, "GET", `/api/v2/filters/statuses/${again.id}`)).status, 404);
});

test("scopes: read:filters reads, write:filters writes", async (t) => {
  const { s } = await setup(t);
  const reader = await s.user("reader", { scopes: ["read:filters"] });
  const writer = await s.user("writer", { scopes: ["write:filters"] });
  assert.equal((await s.req(reader, "GET", "/api/v2/filters")).status, 200);
  assert.equal((await s.req(reader, "POST", "/api/v2/filters", { title: "x", context: ["home"] })).status, 403);
  assert.equal((await s.req(writer, "GET", "/api/v1/filters")).status, 403);
  assert.equal((await s.req(writer, "POST", "/api/v1/filters", { phrase: "x", context: ["home"] })).status, 200);
  assert.equal((await s.req(null, "GET", "/api/v2/filters")).status, 401);
});

test("v1 filters are a view over v2: one per keyword, irreversible is hide", async (t) => {
  const { s, alice } = await setup(t);
  const T = Date.parse("2030-01-01T00:00:00.000Z");
  s.app.now = () => T;
  const v1 = await s.req(alice, "POST", "/api/v1/filters", form([
    ["phrase", "Eurovision"],
    ["context[]", "home"],
    ["context[]", "public"],
    ["irreversible", "true"],
    ["whole_word", "true"],
    ["expires_in", "1800"],
  ]));
  assert.equal(v1.status, 200);
  assert.equal(v1.headers.get("deprecation"), "@1668384000");
  const created = v1.body;
  assert.deepEqual(created, {
    id: created.id,
    phrase: "Eurovision",
    context: ["home", "public"],
    whole_word: true,
    expires_at: "2030-01-01T00:30:00.000Z",
    irreversible: true,
  });
  // In v2: a filter titled with the phrase, with that one keyword; the v1 id is the keyword's.
  const [v2] = await s.api(alice, "GET", "/api/v2/filters");
  assert.deepEqual(v2, {
    id: v2.id,
    title: "Eurovision",
    context: ["home", "public"],
    expires_at: "2030-01-01T00:30:00.000Z",
    filter_action: "hide",
    keywords: [{ id: created.id, keyword: "Eurovision", whole_word: true }],
    statuses: [],
  });

  // A second keyword added through v2 shows as a second v1 filter with the same filter values.
  const kw = await s.api(alice, "POST", `/api/v2/filters/${v2.id}/keywords`, { keyword: "ESC", whole_word: false });
  const list = await s.api(alice, "GET", "/api/v1/filters");
  assert.deepEqual(list, [
    created,
    { id: kw.id, phrase: "ESC", context: ["home", "public"], whole_word: false, expires_at: "2030-01-01T00:30:00.000Z", irreversible: true },
  ]);
  // With two keywords, v1 may change the keyword but not the filter's own values.
  const phraseOnly = await s.api(alice, "PUT", `/api/v1/filters/${kw.id}`, { phrase: "Song Contest", whole_word: true });
  assert.deepEqual([phraseOnly.phrase, phraseOnly.whole_word], ["Song Contest", true]);
  const refused = await s.req(alice, "PUT", `/api/v1/filters/${kw.id}`, { context: ["home"] });
  assert.equal(refused.status, 422);
  assert.equal(
    refused.body.error,
    "These parameters cannot be changed from this application because they apply to more than one filter keyword. Use a more recent application or the web interface.",
  );
  assert.equal((await s.req(alice, "PUT", `/api/v1/filters/${kw.id}`, { irreversible: false })).status, 422);
  assert.equal((await s.api(alice, "GET", `/api/v2/filters/${v2.id}`)).title, "Eurovision");

  // DELETE removes the keyword only; the v2 filter stays.
  assert.deepEqual(await s.api(alice, "DELETE", `/api/v1/filters/${kw.id}`), {});
  assert.deepEqual((await s.api(alice, "GET", "/api/v1/filters")).map((f: any) => f.id), [created.id]);
  // Now single again: filter values change, and the title follows the phrase.
  const single = await s.api(alice, "PUT", `/api/v1/filters/${created.id}`, { phrase: "ESC 2030", context: ["notifications"], irreversible: false, expires_in: "" });
  assert.deepEqual(single, { id: created.id, phrase: "ESC 2030", context: ["notifications"], whole_word: true, expires_at: null, irreversible: false });
  const after = await s.api(alice, "GET", `/api/v2/filters/${v2.id}`);
  assert.deepEqual([after.title, after.filter_action, after.context], ["ESC 2030", "warn", ["notifications"]]);
  assert.deepEqual(await s.api(alice, "GET", `/api/v1/filters/${created.id}`), single);

  // A blur filter reads as reversible in v1; a keyword-less filter does not show in v1.
  await s.api(alice, "PUT", `/api/v2/filters/${v2.id}`, { filter_action: "blur" });
  assert.equal((await s.api(alice, "GET", `/api/v1/filters/${created.id}`)).irreversible, false);
  await s.api(alice, "POST", "/api/v2/filters", { title: "posts only", context: ["home"] });
  assert.equal((await s.api(alice, "GET", "/api/v1/filters")).length, 1);

  // v1 errors.
  const noPhrase = await s.req(alice, "POST", "/api/v1/filters", { context: ["home"] });
  assert.deepEqual([noPhrase.status, noPhrase.body], [422, { error: "Validation failed: Phrase can't be blank" }]);
  const badContext = await s.req(alice, "POST", "/api/v1/filters", { phrase: "x", context: ["everywhere"] });
  assert.deepEqual([badContext.status, badContext.body], [422, { error: "Validation failed: Context None or invalid context supplied" }]);
  const huge = await s.req(alice, "POST", "/api/v1/filters", { phrase: "p".repeat(10_000), context: ["home"] });
  assert.deepEqual([huge.status, huge.body], [422, { error: "Validation failed: Phrase is too long (maximum is 512 characters)" }]);
  // A long phrase (allowed as a keyword) titles its filter with its first 256 characters.
  const long = await s.api(alice, "POST", "/api/v1/filters", { phrase: "l".repeat(300), context: ["home"] });
  const filters = await s.api(alice, "GET", "/api/v2/filters");
  assert.equal(filters.find((f: any) => f.keywords.some((k: any) => k.id === long.id)).title, "l".repeat(256));
});

test("an account's filters and keywords are bounded", async (t) => {
  const { s, alice } = await setup(t);
  const big = Array.from({ length: MAX_KEYWORDS / 10 }, (_, i) => ({ keyword: `word${i}` }));
  for (let i = 0; i < 10; i++) await s.api(alice, "POST", "/api/v2/filters", { title: `f${i}`, context: ["home"], keywords_attributes: big });
  const over = await s.req(alice, "POST", "/api/v2/filters", { title: "one more", context: ["home"], keywords_attributes: [{ keyword: "x" }] });
  assert.deepEqual([over.status, over.body], [422, { error: `Validation failed: You have reached the maximum number of filter keywords (${MAX_KEYWORDS})` }]);
  const [first] = await s.api(alice, "GET", "/api/v2/filters");
  assert.equal((await s.req(alice, "POST", `/api/v2/filters/${first.id}/keywords`, { keyword: "x" })).status, 422);
  assert.equal((await s.req(alice, "POST", "/api/v1/filters", { phrase: "x", context: ["home"] })).status, 422);
  for (let i = 10; i < MAX_FILTERS; i++) await s.api(alice, "POST", "/api/v2/filters", { title: `f${i}`, context: ["home"] });
  const tooMany = await s.req(alice, "POST", "/api/v2/filters", { title: "over", context: ["home"] });
  assert.deepEqual([tooMany.status, tooMany.body], [422, { error: `Validation failed: You have reached the maximum number of filters (${MAX_FILTERS})` }]);
});
