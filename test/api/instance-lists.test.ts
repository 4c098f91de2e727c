import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { insertAccount } from "../../src/storage/accounts.ts";
import { insertStatus } from "../../src/storage/statuses.ts";
import { createRule } from "../../src/services/rules.ts";
import { createDomainBlock, DomainBlockExistsError } from "../../src/services/domain-blocks.ts";

const PUBLIC_5_MIN = "public, max-age=300, stale-while-revalidate=30, stale-if-error=86400";
const DAY = 86_400_000;

// Federation does not exist yet: remote accounts are set up with the storage function.
function remoteAccount(s: TestServer, username: string, domain: string): string {
  const now = s.app.now();
  const id = s.app.ids.next();
  insertAccount(s.app.db, {
    id,
    username,
    domain,
    uri: `https://${domain}/users/${username}`,
    createdAt: now,
    updatedAt: now,
  });
  return id;
}

test("peers: distinct remote domains, minus suspended ones; peers/search; 404 when disabled", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  assert.deepEqual(await s.api(null, "GET", "/api/v1/instance/peers"), []);
  remoteAccount(s, "bob", "mastodon.example");
  remoteAccount(s, "carol", "mastodon.example");
  remoteAccount(s, "dave", "Pixel.Example");
  remoteAccount(s, "eve", "sub.evil.example");
  createDomainBlock(s.app, { domain: "evil.example", severity: "suspend" });

  const res = await s.req(alice, "GET", "/api/v1/instance/peers");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), PUBLIC_5_MIN);
  assert.deepEqual(res.body, ["mastodon.example", "pixel.example"]);

  assert.deepEqual(await s.api(null, "GET", "/api/v1/peers/search?q=PIX"), ["pixel.example"]);
  assert.deepEqual(await s.api(null, "GET", "/api/v1/peers/search?q=evil"), []);
  const blank = await s.req(null, "GET", "/api/v1/peers/search?q=");
  assert.equal(blank.status, 200);
  assert.equal(blank.body, null);
  assert.equal((await s.api(null, "GET", "/api/v1/instance")).stats.domain_count, 2);

  s.app.config.peersApi = false;
  assert.equal((await s.req(null, "GET", "/api/v1/instance/peers")).status, 404);
  assert.equal((await s.req(null, "GET", "/api/v1/peers/search?q=p")).status, 404);
});

test("activity: 12 calendar weeks, current first, every value a string; 404 when disabled", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  // Wednesday 2025-01-15 12:00 UTC; its week starts Monday 2025-01-13.
  const T = Date.UTC(2025, 0, 15, 12);
  const WEEK0 = Date.UTC(2025, 0, 13) / 1000;
  s.app.now = () => T - 14 * DAY;
  const bob = await s.user("bob");
  await s.api(bob, "GET", "/api/v1/apps/verify_credentials");
  s.app.now = () => T;
  const alice = await s.user("alice");
  await s.api(alice, "GET", "/api/v1/apps/verify_credentials");
  await s.api(bob, "GET", "/api/v1/apps/verify_credentials");
  await s.api(bob, "GET", "/api/v1/apps/verify_credentials"); // same user twice: one login
  const post = (accountId: string, createdAt: number, local = true) =>
    insertStatus(s.app.db, {
      id: s.app.ids.next(),
      accountId,
      local,
      uri: `${s.app.baseUrl}/users/x/statuses/${createdAt}-${Math.random()}`,
      url: null,
      text: "hi",
      content: "<p>hi</p>",
      spoilerText: "",
      sensitive: false,
      visibility: "public",
      language: null,
      inReplyToId: null,
      inReplyToAccountId: null,
      inReplyToUri: null,
      reblogOfId: null,
      conversationId: null,
      applicationId: null,
      createdAt,
    });
  post(alice.id, T);
  post(alice.id, Date.UTC(2025, 0, 13)); // Monday 00:00: still this week
  post(alice.id, Date.UTC(2025, 0, 12, 23, 59)); // Sunday before: last week
  post(bob.id, T - 14 * DAY);
  post(bob.id, T - 12 * 7 * DAY); // older than 12 weeks: not listed
  post(remoteAccount(s, "zed", "remote.example"), T, false); // remote posts never count

  const res = await s.req(alice, "GET", "/api/v1/instance/activity");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), PUBLIC_5_MIN);
  const weeks = res.body as Record<string, string>[];
  assert.equal(weeks.length, 12);
  for (const [i, w] of weeks.entries()) {
    assert.deepEqual(Object.keys(w), ["week", "statuses", "logins", "registrations"]);
    for (const v of Object.values(w)) assert.equal(typeof v, "string");
    assert.equal(w.week, String(WEEK0 - i * 7 * 86_400));
  }
  assert.deepEqual(weeks[0], { week: String(WEEK0), statuses: "2", logins: "2", registrations: "1" });
  assert.deepEqual(weeks[1], { week: String(WEEK0 - 7 * 86_400), statuses: "1", logins: "0", registrations: "0" });
  assert.deepEqual(weeks[2], { week: String(WEEK0 - 14 * 86_400), statuses: "1", logins: "1", registrations: "1" });
  for (const w of weeks.slice(3)) assert.deepEqual([w.statuses, w.logins, w.registrations], ["0", "0", "0"]);

  s.app.config.activityApi = false;
  assert.equal((await s.req(null, "GET", "/api/v1/instance/activity")).status, 404);
});

test("rules: display order, string ids, hint; blank text refused", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const a = createRule(s.app, { text: "Third" , position: 3 });
  const b = createRule(s.app, { text: " First ", hint: "Really" , position: 1 });
  const c = createRule(s.app, { text: "Last (appended)" });
  const res = await s.req(null, "GET", "/api/v1/instance/rules");
  assert.equal(res.headers.get("cache-control"), PUBLIC_5_MIN);
  assert.deepEqual(res.body, [
    { id: b.id, text: "First", hint: "Really", translations: {} },
    { id: a.id, text: "Third", hint: "", translations: {} },
    { id: c.id, text: "Last (appended)", hint: "", translations: {} },
  ]);
  assert.equal(typeof b.id, "string");
  assert.throws(() => createRule(s.app, { text: "  " }), /Validation failed: Text can't be blank/);
});

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

test("domain_blocks: severities and order, obfuscation, digest, comments per the config", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  createDomainBlock(s.app, { domain: "Spam.Example", severity: "suspend", publicComment: "spam", privateComment: "secret" });
  createDomainBlock(s.app, { domain: "loud.example", severity: "silence", publicComment: "too loud" });
  createDomainBlock(s.app, { domain: "example.com", severity: "suspend", obfuscate: true });
  createDomainBlock(s.app, { domain: "media.example", severity: "noop", rejectMedia: true });
  assert.throws(() => createDomainBlock(s.app, { domain: "a.spam.example", severity: "silence" }), DomainBlockExistsError);
  assert.throws(() => createDomainBlock(s.app, { domain: "loud.example", severity: "silence" }), DomainBlockExistsError);
  assert.throws(() => createDomainBlock(s.app, { domain: "LOUD.example", severity: "suspend" }), DomainBlockExistsError);
  // A stricter block on a subdomain of a silenced domain is fine.
  createDomainBlock(s.app, { domain: "very.loud.example", severity: "suspend" });
  assert.throws(() => createDomainBlock(s.app, { domain: "not a domain" }), /Domain is invalid/);

  const all = await s.req(alice, "GET", "/api/v1/instance/domain_blocks");
  assert.equal(all.status, 200);
  assert.equal(all.headers.get("cache-control"), PUBLIC_5_MIN);
  assert.deepEqual(all.body, [
    { domain: "loud.example", digest: sha256("loud.example"), severity: "silence", comment: "too loud" },
    { domain: "exa****.*om", digest: sha256("example.com"), severity: "suspend", comment: null },
    { domain: "spam.example", digest: sha256("spam.example"), severity: "suspend", comment: "spam" },
    { domain: "very.loud.example", digest: sha256("very.loud.example"), severity: "suspend", comment: null },
  ]);

  // Rationales for signed-in users only: anonymous callers get no comments and the answer
  // is no longer the same for everyone, so a token-bearing answer is not cached publicly.
  s.app.config.showDomainBlocksRationale = "users";
  const anon = await s.req(null, "GET", "/api/v1/instance/domain_blocks");
  assert.deepEqual(anon.body.map((b: { comment: string | null }) => b.comment), [null, null, null, null]);
  const signed = await s.req(alice, "GET", "/api/v1/instance/domain_blocks");
  assert.deepEqual(signed.body.map((b: { comment: string | null }) => b.comment), ["too loud", null, "spam", null]);
  assert.equal(signed.headers.get("cache-control"), "private, no-store");
  s.app.config.showDomainBlocksRationale = "disabled";
  assert.equal((await s.api(alice, "GET", "/api/v1/instance/domain_blocks"))[0].comment, null);

  s.app.config.showDomainBlocks = "users";
  assert.equal((await s.req(null, "GET", "/api/v1/instance/domain_blocks")).status, 404);
  assert.equal((await s.req("not-a-token", "GET", "/api/v1/instance/domain_blocks")).status, 404);
  assert.equal((await s.api(alice, "GET", "/api/v1/instance/domain_blocks")).length, 4);

  s.app.config.showDomainBlocks = "disabled";
  assert.equal((await s.req(alice, "GET", "/api/v1/instance/domain_blocks")).status, 404);
});
