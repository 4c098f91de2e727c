// Featured hashtags (issue 12 part 4): /api/v1/featured_tags, its suggestions, an account's
// featured tags, POST /api/v1/tags/:name/feature|unfeature; counts follow posts made and deleted;
// malformed input is a handled 4xx (the seed).
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

const post = async (s: TestServer, who: TestUser, status: string, extra: Record<string, unknown> = {}) =>
  (await s.api(who, "POST", "/api/v1/statuses", { status, ...extra })).id as string;

const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

test("featured tags count the owner's public and unlisted posts as they are made, edited and deleted", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const T = Date.UTC(2026, 2, 10, 12);
  s.app.now = () => T - 3 * DAY;
  const first = await post(s, alice, "old #Birds post");
  await post(s, alice, "private #birds", { visibility: "private" });
  await post(s, bob, "bob's #birds");
  s.app.now = () => T;

  // Counted from what exists when featured (FeaturedTag#reset_data).
  const created = await s.api(alice, "POST", "/api/v1/featured_tags", { name: "#Birds" });
  assert.deepEqual(
    { ...created, id: undefined },
    { id: undefined, name: "Birds", url: `${s.url}/@alice/tagged/birds`, statuses_count: "1", last_status_at: dayOf(T - 3 * DAY) },
  );
  assert.match(created.id, /^[0-9]+$/);
  // The same spelling again is the same featured tag (Mastodon's find_or_initialize_by(name:)).
  assert.equal((await s.api(alice, "POST", "/api/v1/featured_tags", { name: "Birds" })).id, created.id);

  const count = async () => {
    const [f] = await s.api(alice, "GET", "/api/v1/featured_tags");
    return [f.statuses_count, f.last_status_at];
  };
  s.app.now = () => T + DAY;
  const second = await post(s, alice, "new #birds", { visibility: "unlisted" });
  await post(s, alice, "direct #birds @bob", { visibility: "direct" });
  await post(s, alice, "no tag");
  assert.deepEqual(await count(), ["2", dayOf(T + DAY)]);

  // An edit that drops the tag takes the post out; one that adds it back counts it again.
  await s.api(alice, "PUT", `/api/v1/statuses/${second}`, { status: "new, untagged" });
  assert.deepEqual(await count(), ["1", dayOf(T - 3 * DAY)]);
  await s.api(alice, "PUT", `/api/v1/statuses/${second}`, { status: "new #birds again" });
  assert.deepEqual(await count(), ["2", dayOf(T + DAY)]);

  // Deleting the latest post finds the previous latest; deleting the last one clears it.
  await s.api(alice, "DELETE", `/api/v1/statuses/${second}`);
  assert.deepEqual(await count(), ["1", dayOf(T - 3 * DAY)]);
  await s.api(alice, "DELETE", `/api/v1/statuses/${first}`);
  assert.deepEqual(await count(), ["0", null]);

  // Everyone sees them on the profile, without a token too.
  const shown = await s.api(null, "GET", `/api/v1/accounts/${alice.id}/featured_tags`);
  assert.deepEqual(shown.map((f: any) => [f.name, f.statuses_count]), [["Birds", "0"]]);
  assert.deepEqual(await s.api(null, "GET", `/api/v1/accounts/${bob.id}/featured_tags`), []);
  assert.equal((await s.req(null, "GET", "/api/v1/accounts/999999/featured_tags")).status, 404);

  // Removal: only the owner's, 404 otherwise.
  assert.equal((await s.req(bob, "DELETE", `/api/v1/featured_tags/${created.id}`)).status, 404);
  assert.equal((await s.req(alice, "DELETE", "/api/v1/featured_tags/abc")).status, 404);
  assert.deepEqual(await s.api(alice, "DELETE", `/api/v1/featured_tags/${created.id}`), {});
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/featured_tags"), []);
});

test("the own list is ordered by use; featuring shows on Tag entities; feature/unfeature by tag name", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  await post(s, alice, "#cats");
  await post(s, alice, "#dogs #cats");
  await post(s, alice, "#cats");
  for (const name of ["dogs", "cats", "owls"]) await s.api(alice, "POST", "/api/v1/featured_tags", { name });
  assert.deepEqual(
    (await s.api(alice, "GET", "/api/v1/featured_tags")).map((f: any) => [f.name, f.statuses_count]),
    [["cats", "3"], ["dogs", "1"], ["owls", "0"]],
  );
  // The profile lists them in the order they were featured.
  assert.deepEqual((await s.api(null, "GET", `/api/v1/accounts/${alice.id}/featured_tags`)).map((f: any) => f.name), ["dogs", "cats", "owls"]);

  assert.equal((await s.api(alice, "GET", "/api/v1/tags/cats")).featuring, true);
  const unfeatured = await s.api(alice, "POST", "/api/v1/tags/cats/unfeature");
  assert.equal(unfeatured.featuring, false);
  assert.equal((await s.api(alice, "POST", "/api/v1/tags/cats/unfeature")).featuring, false, "idempotent");
  const featured = await s.api(alice, "POST", "/api/v1/tags/Herons/feature");
  assert.equal(featured.featuring, true);
  assert.match(featured.id, /^[0-9]+$/, "featuring creates the tag");
  assert.equal((await s.api(alice, "POST", "/api/v1/tags/herons/feature")).featuring, true, "idempotent");
  assert.deepEqual((await s.api(alice, "GET", "/api/v1/featured_tags")).map((f: any) => f.name).sort(), ["Herons", "dogs", "owls"]);
  assert.equal((await s.req(alice, "POST", "/api/v1/tags/123/feature")).status, 404);
});

test("suggestions: tags of the caller's recent posts that it does not feature, most used first", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  await post(s, alice, "#owls");
  await post(s, alice, "#cats #owls");
  await post(s, alice, "#cats #herons", { visibility: "private" });
  await post(s, alice, "#cats");
  await post(s, bob, "#bobs #bobs #bobs");
  await s.api(alice, "POST", "/api/v1/featured_tags", { name: "herons" });
  const suggested = await s.api(alice, "GET", "/api/v1/featured_tags/suggestions");
  assert.deepEqual(suggested.map((x: any) => [x.name, x.featuring, x.following]), [["cats", false, false], ["owls", false, false]]);
  assert.equal(suggested[0].history.length, 7);
});

test("malformed names and the limit of ten are handled 4xx errors in Mastodon's words", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const create = (body: unknown) => s.req(alice, "POST", "/api/v1/featured_tags", body);

  for (const body of [{}, { name: "" }, { name: "   " }, { name: ["a", "b"] }, { name: { x: 1 } }]) {
    const r = await create(body);
    assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.status} ${r.text}`);
    assert.deepEqual(r.body, { error: "param is missing or the value is empty: name" });
  }
  for (const name of ["#", "foo bar", "123", "#123", "foo-bar", "##foo", "x".repeat(501), "x".repeat(10_000), "a\u0000b"]) {
    const r = await create({ name });
    assert.equal(r.status, 422, `${JSON.stringify(name.slice(0, 20))} → ${r.status} ${r.text}`);
    assert.match(r.body.error, /^Validation failed: Name (is invalid|can't be blank)$/);
  }
  assert.equal((await create({ name: 5 })).status, 422, "a JSON number is read as its digits");
  // Form bodies too, as Mastodon's apps send them.
  const form = await s.req(alice, "POST", "/api/v1/featured_tags", new URLSearchParams({ name: "über" }));
  assert.equal(form.status, 200);
  assert.equal(form.body.name, "über");
  // Another spelling of a featured tag.
  const dup = await create({ name: "UBER" });
  assert.deepEqual([dup.status, dup.body.error], [422, "Validation failed: Tag has already been taken"]);

  for (let i = 1; i < 10; i++) assert.equal((await create({ name: `tag${i}x` })).status, 200);
  const eleventh = await create({ name: "onemore" });
  assert.deepEqual([eleventh.status, eleventh.body.error], [422, "Validation failed: You have already featured the maximum number of hashtags"]);
  const viaTag = await s.req(alice, "POST", "/api/v1/tags/onemore/feature");
  assert.deepEqual([viaTag.status, viaTag.body.error], [422, "Validation failed: You have already featured the maximum number of hashtags"]);
  assert.equal((await s.api(alice, "GET", "/api/v1/featured_tags")).length, 10);

  // Scopes: read:accounts to list, write:accounts to change; a user token is needed.
  const reader = await s.user("reader", { scopes: ["read:statuses"] });
  assert.equal((await s.req(reader, "GET", "/api/v1/featured_tags")).status, 403);
  assert.equal((await s.req(reader, "POST", "/api/v1/featured_tags", { name: "x" })).status, 403);
  assert.equal((await s.req(null, "GET", "/api/v1/featured_tags/suggestions")).status, 401);
});
