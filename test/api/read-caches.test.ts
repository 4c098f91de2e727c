// The read paths keep token owners, embedded account renderings and status rows in memory
// (src/storage/row-cache.ts). These tests pin down that nothing stale is ever served: writes by
// this server, writes by another process, custom emoji changes and rolled-back transactions
// all show (or not) on the very next request.
import { test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { loadConfig } from "../../src/config/config.ts";
import { tx } from "../../src/db/db.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { createCustomEmoji } from "../../src/services/custom-emojis.ts";
import { updateProfile } from "../../src/services/accounts.ts";
import { revokeAccessToken } from "../../src/services/oauth-token.ts";
import { embeddedAccounts } from "../../src/serializers/account.ts";
import { findAccountById, updateAccount } from "../../src/storage/accounts.ts";
import { findTokenByHash } from "../../src/storage/tokens.ts";
import { findUserById } from "../../src/storage/users.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

const VERIFY = "/api/v1/accounts/verify_credentials";

/** A second app on the same data dir: its own database connection, like a `roost` command. */
function otherProcess(s: TestServer) {
  return createApp(loadConfig(s.dataDir, { logLevel: "silent", jobsAutorun: false }, {}));
}

async function homeAccountOf(s: TestServer, viewer: TestUser, statusId: string) {
  const home = await s.api(viewer, "GET", "/api/v1/timelines/home");
  return home.find((st: { id: string }) => st.id === statusId).account;
}

test("a revoked token is refused on the very next request, whoever revokes it", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  for (let i = 0; i < 2; i++) assert.equal((await s.req(alice, "GET", VERIFY)).status, 200);
  revokeAccessToken(s.app, findTokenByHash(s.app.db, sha256Hex(alice.token))!.id);
  const after = await s.req(alice, "GET", VERIFY);
  assert.equal(after.status, 401);
  assert.deepEqual(after.body, { error: "The access token was revoked" });

  for (let i = 0; i < 2; i++) assert.equal((await s.req(bob, "GET", VERIFY)).status, 200);
  const other = otherProcess(s);
  try {
    revokeAccessToken(other, findTokenByHash(other.db, sha256Hex(bob.token))!.id);
  } finally {
    await closeApp(other);
  }
  const bobAfter = await s.req(bob, "GET", VERIFY);
  assert.equal(bobAfter.status, 401);
  assert.deepEqual(bobAfter.body, { error: "The access token was revoked" });
});

test("counters and profile edits show at once in verify_credentials and embedded accounts", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  assert.equal((await s.api(alice, "GET", VERIFY)).followers_count, 0);
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
  assert.equal((await s.api(alice, "GET", VERIFY)).followers_count, 1);

  const first = await s.api(alice, "POST", "/api/v1/statuses", { status: "first" });
  await s.drainJobs();
  assert.equal((await homeAccountOf(s, bob, first.id)).statuses_count, 1);
  await s.api(alice, "POST", "/api/v1/statuses", { status: "second" });
  await s.drainJobs();
  assert.equal((await homeAccountOf(s, bob, first.id)).statuses_count, 2);

  // Status rows are cached too: counters and edits show at once.
  const seen = async () => (await s.api(bob, "GET", "/api/v1/timelines/home")).find((st: { id: string }) => st.id === first.id);
  assert.equal((await seen()).favourites_count, 0);
  await s.api(bob, "POST", `/api/v1/statuses/${first.id}/favourite`);
  assert.equal((await seen()).favourites_count, 1);
  assert.equal((await seen()).favourited, true);
  await s.api(alice, "PUT", `/api/v1/statuses/${first.id}`, { status: "first, edited" });
  assert.equal((await seen()).content, "<p>first, edited</p>");

  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Alice A." });
  assert.equal((await homeAccountOf(s, bob, first.id)).display_name, "Alice A.");
  const notes = await s.api(alice, "GET", "/api/v1/notifications");
  assert.equal(notes[0].account.username, "bob");

  // Another process edits the profile: seen on the next read, here through the embedding.
  const other = otherProcess(s);
  try {
    const account = findAccountById(other.db, alice.id)!;
    await updateProfile(other, account, findUserById(other.db, alice.user.id)!, { displayName: "Alice B." });
  } finally {
    await closeApp(other);
  }
  assert.equal((await homeAccountOf(s, bob, first.id)).display_name, "Alice B.");
  assert.equal((await s.api(alice, "GET", VERIFY)).display_name, "Alice B.");
});

test("verify_credentials shows new follow requests and profile fields at once", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { locked: true });
  for (let i = 0; i < 2; i++) assert.equal((await s.api(alice, "GET", VERIFY)).source.follow_requests_count, 0);
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
  assert.equal((await s.api(alice, "GET", VERIFY)).source.follow_requests_count, 1);
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { fields_attributes: [{ name: "Site", value: "example.org" }] });
  assert.deepEqual(
    (await s.api(alice, "GET", VERIFY)).source.fields.map((f: { name: string; value: string }) => [f.name, f.value]),
    [["Site", "example.org"]],
  );
});

test("a custom emoji added later shows in an account already rendered", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Alice :wave:" });
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
  const post = await s.api(alice, "POST", "/api/v1/statuses", { status: "hello" });
  await s.drainJobs();
  assert.deepEqual((await homeAccountOf(s, bob, post.id)).emojis, []);
  const png = await sharp({ create: { width: 16, height: 16, channels: 4, background: { r: 1, g: 2, b: 3, alpha: 1 } } })
    .png()
    .toBuffer();
  await createCustomEmoji(s.app, { shortcode: "wave", data: png, contentType: "image/png" });
  const emojis = (await homeAccountOf(s, bob, post.id)).emojis;
  assert.deepEqual(emojis.map((e: { shortcode: string }) => e.shortcode), ["wave"]);
});

test("a rendering made inside a transaction that rolls back is never cached", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
  const post = await s.api(alice, "POST", "/api/v1/statuses", { status: "hello" });
  await s.drainJobs();
  assert.equal((await homeAccountOf(s, bob, post.id)).display_name, "");
  // A failing use case: it renders the account after changing it, then rolls back.
  assert.throws(() =>
    tx(s.app.db, () => {
      updateAccount(s.app.db, alice.id, { displayName: "Never saved" });
      assert.equal(embeddedAccounts(s.app, [alice.id]).get(alice.id)!.json.display_name, "Never saved");
      throw new Error("roll back");
    }),
  );
  assert.equal((await homeAccountOf(s, bob, post.id)).display_name, "");
});
