import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { insertAccount, updateAccount } from "../../src/storage/accounts.ts";
import { createCustomEmoji } from "../../src/services/custom-emojis.ts";
import { imageForm, png } from "./accounts-helpers.ts";

test("GET /api/v1/accounts/:id: public Account, caching, 404s, scopes", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");

  const anon = await s.req(null, "GET", `/api/v1/accounts/${alice.id}`);
  assert.equal(anon.status, 200);
  assert.equal(anon.body.id, alice.id);
  assert.equal(typeof anon.body.id, "string");
  assert.equal(anon.body.acct, "alice");
  assert.equal("source" in anon.body, false);
  assert.equal("role" in anon.body, false);
  assert.equal(anon.body.noindex, false);
  assert.deepEqual(anon.body.roles, []);
  assert.equal(anon.headers.get("cache-control"), "public, max-age=15, stale-while-revalidate=30, stale-if-error=86400");

  const authed = await s.req(bob, "GET", `/api/v1/accounts/${alice.id}`);
  assert.equal(authed.status, 200);
  assert.equal(authed.headers.get("cache-control"), "private, no-store");

  for (const id of ["999999999999", "abc", "-1", "9223372036854775808", "1.5"]) {
    const r = await s.req(null, "GET", `/api/v1/accounts/${id}`);
    assert.equal(r.status, 404, id);
    assert.deepEqual(r.body, { error: "Record not found" });
  }
  const wrongScope = await s.user("carol", { scopes: ["read:statuses"] });
  assert.equal((await s.req(wrongScope, "GET", `/api/v1/accounts/${alice.id}`)).status, 403);

  // Local users not yet confirmed or approved do not exist for the API.
  const pending = await s.user("pending", { approved: false });
  assert.equal((await s.req(null, "GET", `/api/v1/accounts/${pending.id}`)).status, 404);
  const unconfirmed = await s.user("unconfirmed", { confirmed: false });
  assert.equal((await s.req(null, "GET", `/api/v1/accounts/${unconfirmed.id}`)).status, 404);
});

test("multi-get with id[]: order kept, unknown and hidden skipped, at most 40", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const pending = await s.user("pending", { approved: false });
  const q = (ids: string[]) => "/api/v1/accounts?" + ids.map((i) => `id[]=${encodeURIComponent(i)}`).join("&");

  const list = await s.api(null, "GET", q([bob.id, "123", pending.id, alice.id, bob.id, "x"]));
  assert.deepEqual(list.map((a: { id: string }) => a.id), [bob.id, alice.id]);
  assert.deepEqual(await s.api(null, "GET", "/api/v1/accounts"), []);
  const forty = await s.req(null, "GET", q([alice.id, ...Array.from({ length: 39 }, (_, i) => String(1000 + i))]));
  assert.equal(forty.status, 200);
  const fortyOne = await s.req(null, "GET", q(Array.from({ length: 41 }, (_, i) => String(1000 + i))));
  assert.equal(fortyOne.status, 422);
});

test("lookup by handle: local forms, our domain, remote and missing", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const domain = s.app.config.domain;
  for (const acct of ["alice", "@alice", "ALICE", `alice@${domain}`, `@alice@${domain.toUpperCase()}`]) {
    const r = await s.req(null, "GET", `/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`);
    assert.equal(r.status, 200, acct);
    assert.equal(r.body.id, alice.id);
    assert.equal(r.headers.get("cache-control"), "public, max-age=15, stale-while-revalidate=30, stale-if-error=86400");
  }
  for (const acct of ["nobody", "alice@elsewhere.example", "@", "alice@"]) {
    const r = await s.req(null, "GET", `/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`);
    assert.equal(r.status, 404, acct);
    assert.deepEqual(r.body, { error: "Record not found" });
  }
  const missing = await s.req(null, "GET", "/api/v1/accounts/lookup");
  assert.equal(missing.status, 400);
  assert.deepEqual(missing.body, { error: "param is missing or the value is empty: acct" });

  // A remote account this server already knows is found without WebFinger.
  const now = s.app.now();
  const remoteId = s.app.ids.next();
  insertAccount(s.app.db, {
    id: remoteId,
    username: "Bob",
    domain: "remote.example",
    uri: "https://remote.example/users/Bob",
    url: "https://remote.example/@Bob",
    note: "<p>remote bio</p>",
    fields: [{ name: "site", value: '<a href="https://bob.example">bob.example</a>', verified_at: "2026-01-02T03:04:05.000Z" }],
    createdAt: Date.UTC(2024, 4, 6, 13, 14, 15),
    updatedAt: now,
  });
  const bob = await s.api(null, "GET", "/api/v1/accounts/lookup?acct=bob@remote.example");
  assert.equal(bob.id, remoteId);
  assert.equal(bob.acct, "Bob@remote.example");
  assert.equal(bob.note, "<p>remote bio</p>");
  assert.equal(bob.url, "https://remote.example/@Bob");
  assert.equal(bob.created_at, "2024-05-06T00:00:00.000Z");
  assert.deepEqual(bob.fields[0].verified_at, "2026-01-02T03:04:05.000Z");
  assert.equal("noindex" in bob, false, "noindex only for local accounts");
  assert.equal("roles" in bob, false, "roles only for local accounts");
});

test("suspended, limited, memorial and moved accounts", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const newHome = await s.user("newhome");
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", {
    display_name: "Alice",
    note: "bio",
    locked: true,
    bot: true,
    fields_attributes: [{ name: "a", value: "b" }],
  });
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", imageForm("avatar", await png(10, 10), "a.png", "image/png"));

  updateAccount(s.app.db, alice.id, { silencedAt: s.app.now(), memorial: true, movedToAccountId: newHome.id, lastStatusAt: Date.UTC(2026, 2, 4, 22, 0) });
  const limited = await s.api(null, "GET", `/api/v1/accounts/${alice.id}`);
  assert.equal(limited.limited, true);
  assert.equal(limited.memorial, true);
  assert.equal(limited.last_status_at, "2026-03-04");
  assert.equal(limited.moved.id, newHome.id);
  assert.equal(limited.moved.acct, "newhome");
  assert.equal("moved" in limited.moved, false);
  assert.equal("suspended" in limited, false);

  updateAccount(s.app.db, alice.id, { suspendedAt: s.app.now(), silencedAt: null, memorial: false });
  const r = await s.req(null, "GET", `/api/v1/accounts/${alice.id}`);
  assert.equal(r.status, 200);
  const a = r.body;
  assert.equal(a.suspended, true);
  assert.equal(a.display_name, "");
  assert.equal(a.note, "");
  assert.equal(a.locked, false);
  assert.equal(a.bot, false);
  assert.equal(a.discoverable, false);
  assert.equal(a.indexable, false);
  assert.deepEqual(a.fields, []);
  assert.deepEqual(a.emojis, []);
  assert.deepEqual(a.roles, []);
  assert.equal(a.avatar, `${s.url}/avatars/original/missing.png`);
  assert.equal(a.header_static, `${s.url}/headers/original/missing.png`);
  assert.equal(a.moved, null);
  assert.equal("limited" in a, false);
  assert.equal("memorial" in a, false);
});

test("custom emojis used in the name, bio and fields are listed (one batch for a page)", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const pic = await png(16, 16);
  await createCustomEmoji(s.app, { shortcode: "blobcat", data: pic, contentType: "image/png" });
  await createCustomEmoji(s.app, { shortcode: "heron", data: pic, contentType: "image/png" });
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", {
    display_name: ":blobcat: Alice",
    note: "I like :heron: and :unknown: and a:blobcat:b",
    fields_attributes: [{ name: "pet", value: ":blobcat:" }],
  });
  await s.api(bob, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Bob :heron:" });
  const list = await s.api(null, "GET", `/api/v1/accounts?id[]=${alice.id}&id[]=${bob.id}`);
  const codes = (a: { emojis: { shortcode: string }[] }) => a.emojis.map((e) => e.shortcode).sort();
  assert.deepEqual(codes(list[0]), ["blobcat", "heron"]);
  assert.deepEqual(codes(list[1]), ["heron"]);
  const e = list[0].emojis.find((x: { shortcode: string }) => x.shortcode === "blobcat");
  assert.match(e.url, new RegExp(`^${s.url}/system/`));
  assert.equal(e.visible_in_picker, true);
  assert.equal((await fetch(e.url)).status, 200);
});
