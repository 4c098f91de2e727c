import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { appToken } from "./accounts-helpers.ts";

const link = (href: string, shown: string, rel = "nofollow noopener") =>
  `<a href="${href}" target="_blank" rel="${rel}" translate="no"><span class="invisible">https://</span>` +
  `<span class="">${shown}</span><span class="invisible"></span></a>`;

test("verify_credentials: CredentialAccount shape, scopes and token kinds", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const me = await s.api(alice, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(me.id, alice.id);
  assert.equal(typeof me.id, "string");
  assert.equal(me.username, "alice");
  assert.equal(me.acct, "alice");
  assert.equal(me.display_name, "");
  assert.equal(me.locked, false);
  assert.equal(me.bot, false);
  assert.equal(me.group, false);
  assert.equal(me.discoverable, null);
  assert.equal(me.indexable, false);
  assert.equal(me.hide_collections, false);
  assert.equal(me.noindex, false);
  assert.match(me.created_at, /^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
  assert.equal(me.note, "");
  assert.equal(me.url, `${s.url}/@alice`);
  assert.equal(me.uri, `${s.url}/users/alice`);
  assert.equal(me.avatar, `${s.url}/avatars/original/missing.png`);
  assert.equal(me.avatar_static, `${s.url}/avatars/original/missing.png`);
  assert.equal(me.header, `${s.url}/headers/original/missing.png`);
  assert.equal(me.header_static, `${s.url}/headers/original/missing.png`);
  assert.equal(me.followers_count, 0);
  assert.equal(me.following_count, 0);
  assert.equal(me.statuses_count, 0);
  assert.equal(me.last_status_at, null);
  assert.deepEqual(me.emojis, []);
  assert.deepEqual(me.fields, []);
  assert.deepEqual(me.roles, []);
  for (const absent of ["moved", "suspended", "limited", "memorial"]) assert.equal(absent in me, false, absent);
  assert.deepEqual(me.source, {
    privacy: "public",
    sensitive: false,
    language: null,
    note: "",
    fields: [],
    follow_requests_count: 0,
    hide_collections: false,
    discoverable: null,
    indexable: false,
    attribution_domains: [],
  });
  assert.deepEqual(me.role, { id: "-99", name: "", permissions: "65536", color: "", highlighted: false });

  // The profile scope alone is enough; read:statuses is not.
  const profileOnly = await s.user("pat", { scopes: ["profile"] });
  assert.equal((await s.req(profileOnly, "GET", "/api/v1/accounts/verify_credentials")).status, 200);
  const readStatuses = await s.user("rita", { scopes: ["read:statuses"] });
  const r403 = await s.req(readStatuses, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(r403.status, 403);
  assert.deepEqual(r403.body, { error: "This action is outside the authorized scopes" });
  const r401 = await s.req(null, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(r401.status, 401);
  assert.deepEqual(r401.body, { error: "The access token is invalid" });
  const { token } = appToken(s, ["read"]);
  const r422 = await s.req(token, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(r422.status, 422);
  assert.deepEqual(r422.body, { error: "This method requires an authenticated user" });
});

test("roles: owners, admins and moderators carry Mastodon's role entity and a badge", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const owner = await s.user("boss", { role: "owner" });
  const admin = await s.user("admin1", { role: "admin" });
  const mod = await s.user("mod1", { role: "moderator" });
  const o = await s.api(owner, "GET", "/api/v1/accounts/verify_credentials");
  // administrator implies every permission.
  assert.deepEqual(o.role, { id: "3", name: "Owner", permissions: String((1 << 23) - 1), color: "", highlighted: true });
  assert.deepEqual(o.roles, [{ id: "3", name: "Owner", color: "" }]);
  const a = await s.api(admin, "GET", "/api/v1/accounts/verify_credentials");
  // config/roles.yml's Admin: everything but administrator, devops and the newer flags, plus
  // invite_bypass_approval (Mastodon 4.5 gave it to the roles that could invite).
  assert.deepEqual(a.role, { id: "2", name: "Admin", permissions: "4194300", color: "", highlighted: true });
  assert.deepEqual(a.roles, [{ id: "2", name: "Admin", color: "" }]);
  const m = await s.api(mod, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(m.role.name, "Moderator");
  assert.equal(m.role.permissions, String(65536 | 8 | 4 | 1048576 | 1024 | 16 | 256 | (1 << 21)));
  const pub = await s.api(null, "GET", `/api/v1/accounts/${mod.id}`);
  assert.deepEqual(pub.roles, [{ id: "1", name: "Moderator", color: "" }]);
});

test("update_credentials with form encoding: source[privacy], booleans, text", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const form = new URLSearchParams({
    display_name: "  Alice Liddell ",
    note: "Down the rabbit hole: https://wonder.example\nsecond line\n\nnew & <odd>",
    "source[privacy]": "private",
    "source[sensitive]": "1",
    "source[language]": "de",
    locked: "1",
    bot: "true",
    discoverable: "0",
    indexable: "false",
    hide_collections: "1",
  });
  const res = await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", form);
  assert.equal(res.display_name, "Alice Liddell");
  assert.equal(
    res.note,
    `<p>Down the rabbit hole: ${link("https://wonder.example", "wonder.example")}<br />second line</p><p>new &amp; &lt;odd&gt;</p>`,
  );
  assert.equal(res.locked, true);
  assert.equal(res.bot, true);
  assert.equal(res.discoverable, false);
  assert.equal(res.indexable, false);
  assert.equal(res.hide_collections, true);
  assert.equal(res.source.privacy, "private");
  assert.equal(res.source.sensitive, true);
  assert.equal(res.source.language, "de");
  assert.equal(res.source.note, "Down the rabbit hole: https://wonder.example\nsecond line\n\nnew & <odd>");
  assert.equal(res.source.hide_collections, true);
  assert.equal(res.source.discoverable, false);

  // A later verify_credentials shows the same stored state.
  const me = await s.api(alice, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(me.source.privacy, "private");
  assert.equal(me.source.sensitive, true);
  assert.equal(me.locked, true);
  assert.equal(me.note, res.note);

  // The other spellings flip them back; absent keys change nothing.
  const back = await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", new URLSearchParams({
    locked: "false",
    bot: "0",
    discoverable: "true",
    indexable: "1",
    "source[language]": "",
  }));
  assert.equal(back.locked, false);
  assert.equal(back.bot, false);
  assert.equal(back.discoverable, true);
  assert.equal(back.indexable, true);
  assert.equal(back.hide_collections, true);
  assert.equal(back.display_name, "Alice Liddell");
  assert.equal(back.source.language, null);
  assert.equal(back.source.privacy, "private");

  // PATCH only: PUT is not routed.
  assert.equal((await s.req(alice, "PUT", "/api/v1/accounts/update_credentials", { locked: true })).status, 404);
});

test("update_credentials validation: lengths, privacy, language, scope", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const patch = (body: unknown) => s.req(alice, "PATCH", "/api/v1/accounts/update_credentials", body);

  const ok500 = await patch({ note: "n".repeat(500) });
  assert.equal(ok500.status, 200);
  assert.equal(ok500.body.source.note, "n".repeat(500));
  const bad501 = await patch({ note: "n".repeat(501) });
  assert.equal(bad501.status, 422);
  assert.deepEqual(bad501.body, {
    error: "Validation failed: Note character limit of 500 exceeded",
    details: { note: [{ error: "ERR_TOO_LONG", description: "character limit of 500 exceeded" }] },
  });
  // A URL counts 23 characters however long it is.
  const withUrl = await patch({ note: "n".repeat(476) + " https://example.com/" + "p".repeat(200) });
  assert.equal(withUrl.status, 200);

  assert.equal((await patch({ display_name: "d".repeat(30) })).status, 200);
  const longName = await patch({ display_name: "d".repeat(31) });
  assert.equal(longName.status, 422);
  assert.deepEqual(longName.body.details, {
    display_name: [{ error: "ERR_TOO_LONG", description: "is too long (maximum is 30 characters)" }],
  });
  assert.equal(longName.body.error, "Validation failed: Display name is too long (maximum is 30 characters)");

  const direct = await patch({ source: { privacy: "direct" } });
  assert.equal(direct.status, 422);
  assert.equal(direct.body.details.default_privacy[0].error, "ERR_INCLUSION");
  const lang = await patch({ source: { language: "xx" } });
  assert.equal(lang.status, 422);
  assert.equal(lang.body.details.default_language[0].error, "ERR_INCLUSION");
  // Nothing was saved by the failed requests.
  const me = await s.api(alice, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(me.display_name, "d".repeat(30));
  assert.equal(me.source.privacy, "public");

  const reader = await s.user("reader", { scopes: ["read"] });
  const r = await s.req(reader, "PATCH", "/api/v1/accounts/update_credentials", { locked: true });
  assert.equal(r.status, 403);
  assert.equal((await s.req(null, "PATCH", "/api/v1/accounts/update_credentials", { locked: true })).status, 401);
});

test("profile fields: indexed hash and JSON array, rel=me links, limits", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const patch = (body: unknown) => s.req(alice, "PATCH", "/api/v1/accounts/update_credentials", body);

  const form = new FormData();
  form.append("fields_attributes[0][name]", "Website");
  form.append("fields_attributes[0][value]", "https://alice.example");
  form.append("fields_attributes[1][name]", "Pronouns");
  form.append("fields_attributes[1][value]", "she/her <3");
  form.append("fields_attributes[2][name]", "");
  form.append("fields_attributes[2][value]", "");
  const viaHash = await patch(form);
  assert.equal(viaHash.status, 200);
  assert.deepEqual(viaHash.body.fields, [
    { name: "Website", value: link("https://alice.example", "alice.example", "nofollow noopener me"), verified_at: null },
    { name: "Pronouns", value: "she/her &lt;3", verified_at: null },
  ]);
  assert.deepEqual(viaHash.body.source.fields, [
    { name: "Website", value: "https://alice.example", verified_at: null },
    { name: "Pronouns", value: "she/her <3", verified_at: null },
  ]);

  const viaArray = await patch({ fields_attributes: [{ name: "Blog", value: "see https://blog.example/x" }] });
  assert.equal(viaArray.status, 200);
  assert.deepEqual(viaArray.body.fields, [
    { name: "Blog", value: "see " + link("https://blog.example/x", "blog.example/x", "nofollow noopener me"), verified_at: null },
  ]);
  const pub = await s.api(null, "GET", `/api/v1/accounts/${alice.id}`);
  assert.match(pub.fields[0].value, /rel="nofollow noopener me"/);

  const five = await patch({ fields_attributes: [1, 2, 3, 4, 5].map((i) => ({ name: `n${i}`, value: `v${i}` })) });
  assert.equal(five.status, 422);
  assert.deepEqual(five.body.details, { fields: [{ error: "ERR_TOO_LONG", description: "is too long (maximum is 4 characters)" }] });
  const unnamed = await patch({ fields_attributes: [{ name: "", value: "orphan" }] });
  assert.equal(unnamed.status, 422);
  assert.equal(unnamed.body.error, "Validation failed: Fields contains values with missing labels");
  assert.equal(unnamed.body.details.fields[0].error, "ERR_FIELDS_WITH_VALUES_MISSING_LABELS");

  // Names and values are cut at 255 characters, silently.
  const long = await patch({ fields_attributes: [{ name: "n".repeat(300), value: "v".repeat(300) }] });
  assert.equal(long.status, 200);
  assert.equal(long.body.fields[0].name, "n".repeat(255));
  assert.equal(long.body.source.fields[0].value, "v".repeat(255));

  // An empty list clears them.
  const cleared = await patch({ fields_attributes: [] });
  assert.deepEqual(cleared.body.fields, []);
});

test("follow_requests_count, and unlocking accepts the pending requests", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { locked: true });
  const rel = await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
  assert.equal(rel.requested, true);
  const me = await s.api(alice, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(me.source.follow_requests_count, 1);

  const unlocked = await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { locked: "false" });
  assert.equal(unlocked.locked, false);
  assert.equal(unlocked.source.follow_requests_count, 0);
  const [after] = await s.api(bob, "GET", `/api/v1/accounts/relationships?id[]=${alice.id}`);
  assert.equal(after.following, true);
  assert.equal(after.requested, false);
});

test("bios and profile field values link hashtags and known mentions, as Mastodon's bio formatter", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  await s.user("bob");
  const res = await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", {
    note: "Birds #Herons with @bob",
    fields_attributes: { "0": { name: "Topic", value: "#owls" } },
  });
  const tag = (name: string) => `<a href="${s.app.baseUrl}/tags/${name}" class="mention hashtag" rel="tag">#<span>${name}</span></a>`;
  assert.equal(
    res.note,
    `<p>Birds ${tag("Herons")} with <span class="h-card" translate="no"><a href="${s.app.baseUrl}/@bob" class="u-url mention">@<span>bob</span></a></span></p>`,
  );
  assert.equal(res.fields[0].value, tag("owls"));
  assert.equal(res.source.note, "Birds #Herons with @bob");
});
