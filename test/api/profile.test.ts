// The caller's profile (issue 12 part 7): GET/PATCH/PUT /api/v1/profile (Mastodon 4.6's Profile
// entity, with the source of every editable field) and DELETE /api/v1/profile/avatar|header,
// each change federated as an Update(Person).
import { test } from "node:test";
import assert from "node:assert/strict";
import { clearReceived, ofType, remoteAccount, remoteFollows } from "../helpers/outbox.ts";
import { startTestServer } from "../helpers/server.ts";
import { startWorld } from "../federation/inbox-helpers.ts";
import { imageForm, png } from "./accounts-helpers.ts";

test("GET /api/v1/profile: defaults of a new account; PATCH edits it and verify_credentials agrees", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  await s.user("bob");

  const fresh = await s.api(alice, "GET", "/api/v1/profile");
  assert.deepEqual(
    { ...fresh, discoverable: undefined, indexable: undefined },
    {
      id: alice.id,
      display_name: "",
      note: "",
      fields: [],
      formatted_note: "",
      formatted_fields: [],
      avatar: null,
      avatar_static: null,
      avatar_description: "",
      header: null,
      header_static: null,
      header_description: "",
      locked: false,
      bot: false,
      hide_collections: false,
      discoverable: undefined,
      indexable: undefined,
      show_media: true,
      show_media_replies: true,
      show_featured: true,
      attribution_domains: [],
      featured_tags: [],
    },
  );

  await s.api(alice, "POST", "/api/v1/featured_tags", { name: "Birds" });
  const updated = await s.api(alice, "PATCH", "/api/v1/profile", {
    display_name: "Alice",
    note: "I like #birds, ask @bob",
    fields_attributes: [{ name: "site", value: "https://example.com" }],
    avatar_description: "  a heron  ",
    header_description: "the lake",
    locked: true,
    bot: true,
    show_media: false,
    show_media_replies: "false",
    show_featured: "0",
    attribution_domains: ["https://Example.com", "*.blog.example.org", "example.com", " "],
  });
  assert.equal(updated.display_name, "Alice");
  assert.equal(updated.note, "I like #birds, ask @bob", "the note as typed");
  assert.match(updated.formatted_note, /<a href="[^"]+\/tags\/birds" class="mention hashtag" rel="tag">#<span>birds<\/span><\/a>/);
  assert.match(updated.formatted_note, /class="u-url mention">@<span>bob<\/span>/);
  assert.deepEqual(updated.fields, [{ name: "site", value: "https://example.com", verified_at: null }]);
  assert.match(updated.formatted_fields[0].value, /^<a href="https:\/\/example.com" target="_blank" rel="nofollow noopener me"/);
  assert.deepEqual(
    [updated.avatar_description, updated.header_description, updated.locked, updated.bot],
    ["a heron", "the lake", true, true],
  );
  assert.deepEqual([updated.show_media, updated.show_media_replies, updated.show_featured], [false, false, false]);
  assert.deepEqual(updated.attribution_domains, ["example.com", "blog.example.org"]);
  assert.deepEqual(updated.featured_tags.map((f: any) => [f.name, f.url, f.statuses_count]), [["Birds", `${s.url}/@alice/tagged/birds`, "0"]]);
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/profile"), updated);

  const me = await s.api(alice, "GET", "/api/v1/accounts/verify_credentials");
  assert.deepEqual([me.display_name, me.locked, me.bot, me.source.note], ["Alice", true, true, "I like #birds, ask @bob"]);
  assert.deepEqual(me.source.attribution_domains, ["example.com", "blog.example.org"]);

  // PUT is the same action; absent keys stay; an empty list clears the domains.
  const put = await s.api(alice, "PUT", "/api/v1/profile", { show_media: true, attribution_domains: [] });
  assert.deepEqual([put.show_media, put.show_featured, put.display_name, put.attribution_domains], [true, false, "Alice", []]);
  // update_credentials takes attribution_domains[] too (4.4), from a form.
  const form = new URLSearchParams([["attribution_domains[]", "news.example"]]);
  assert.deepEqual((await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", form)).source.attribution_domains, ["news.example"]);
});

test("profile images: uploads show as URLs, removal answers the CredentialAccount and the profile shows null", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const form = imageForm("avatar", await png(64, 64), "me.png", "image/png");
  form.append("avatar_description", "a red square");
  const up = await s.api(alice, "PATCH", "/api/v1/profile", form);
  assert.match(up.avatar, new RegExp(`^${s.url}/system/accounts/avatars/${alice.id}/[A-Za-z0-9_-]+\\.png$`));
  assert.equal(up.avatar_static, up.avatar);
  assert.equal(up.avatar_description, "a red square");
  assert.equal(up.header, null);

  const removed = await s.api(alice, "DELETE", "/api/v1/profile/avatar");
  assert.equal(removed.avatar, `${s.url}/avatars/original/missing.png`);
  assert.equal(removed.source.privacy, "public", "a CredentialAccount");
  const after = await s.api(alice, "GET", "/api/v1/profile");
  assert.deepEqual([after.avatar, after.avatar_static], [null, null]);
  assert.deepEqual(await s.api(alice, "DELETE", "/api/v1/profile/header"), { ...removed, header: removed.header }, "idempotent");
});

test("bad profile input is a 422 with details; scopes as Mastodon's", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const patch = (body: unknown) => s.req(alice, "PATCH", "/api/v1/profile", body);

  const long = await patch({ avatar_description: "x".repeat(151), display_name: "y".repeat(31) });
  assert.equal(long.status, 422);
  assert.equal(long.body.error, "Validation failed: Display name is too long (maximum is 30 characters), Avatar description is too long (maximum is 150 characters)");
  assert.deepEqual(long.body.details.avatar_description, [{ error: "ERR_TOO_LONG", description: "is too long (maximum is 150 characters)" }]);
  const domains = await patch({ attribution_domains: ["example.com", "invalid_com", "a b.example"] });
  assert.equal(domains.status, 422);
  assert.equal(domains.body.error, "Validation failed: Attribution domains invalid_com is not a valid domain name, Attribution domains a b.example is not a valid domain name");
  const many = await patch({ attribution_domains: Array.from({ length: 101 }, (_, i) => `d${i}.example`) });
  assert.equal(many.status, 422);
  assert.match(many.body.error, /^Validation failed: Attribution domains is too long/);
  // Nothing was written by the refused requests.
  const profile = await s.api(alice, "GET", "/api/v1/profile");
  assert.deepEqual([profile.avatar_description, profile.attribution_domains, profile.display_name], ["", [], ""]);
  // Wrong types are ignored as Rails' strong params ignore them.
  assert.equal((await patch({ show_media: { a: 1 }, attribution_domains: "not-a-list", note: ["x"] })).status, 200);

  const profileScope = await s.user("reader", { scopes: ["profile"] });
  assert.equal((await s.req(profileScope, "GET", "/api/v1/profile")).status, 200);
  assert.equal((await s.req(profileScope, "PATCH", "/api/v1/profile", { note: "x" })).status, 403);
  assert.equal((await s.req(profileScope, "DELETE", "/api/v1/profile/avatar")).status, 403);
  assert.equal((await s.req(null, "GET", "/api/v1/profile")).status, 401);
});

test("profile changes reach remote followers as Update(Person), attribution domains included", async (t) => {
  const { s, remote, alice } = await startWorld(t);
  const bob = await remoteAccount(s, remote.actor("bob"));
  remoteFollows(s, bob, alice);
  await s.drainJobs();
  clearReceived(remote);

  await s.api(alice, "PATCH", "/api/v1/profile", { display_name: "Alice L.", attribution_domains: ["news.example"] });
  await s.drainJobs();
  let [update] = ofType(remote, "Update");
  assert.equal(update.body.object.id, `${s.url}/users/alice`);
  assert.equal(update.body.object.name, "Alice L.");
  assert.deepEqual(update.body.object.attributionDomains, ["news.example"]);

  for (const kind of ["avatar", "header"]) {
    clearReceived(remote);
    await s.api(alice, "DELETE", `/api/v1/profile/${kind}`);
    await s.drainJobs();
    [update] = ofType(remote, "Update");
    assert.ok(update, `DELETE /api/v1/profile/${kind} sends an Update(Person)`);
    assert.equal(update.body.object.type, "Person");
  }
  const actor = await (await fetch(`${s.url}/users/alice`, { headers: { accept: "application/activity+json" } })).json();
  assert.deepEqual(actor.attributionDomains, ["news.example"]);
});
