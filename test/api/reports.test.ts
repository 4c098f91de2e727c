// POST /api/v1/reports (https://docs.joinmastodon.org/methods/reports/): the Report entity,
// Mastodon's validation, and forwarding to the reported account's server.
import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveAccountByUri } from "../../src/federation/resolve/accounts.ts";
import { createRule } from "../../src/services/rules.ts";
import { startFakeRemote } from "../helpers/fake-remote.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

async function setup(t: { after: (fn: () => Promise<void>) => void }): Promise<{ s: TestServer; alice: TestUser; bob: TestUser; post: string }> {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const post = (await s.api(bob, "POST", "/api/v1/statuses", { status: "buy now" })).id;
  return { s, alice, bob, post };
}

test("a report about a local account answers the Report entity", async (t) => {
  const { s, alice, bob, post } = await setup(t);
  const r = await s.api(alice, "POST", "/api/v1/reports", { account_id: bob.id, status_ids: [post], comment: "spam", category: "spam" });
  assert.match(r.id, /^\d+$/);
  assert.deepEqual(
    { ...r, id: undefined, created_at: undefined, target_account: r.target_account.id },
    {
      id: undefined,
      action_taken: false,
      action_taken_at: null,
      category: "spam",
      comment: "spam",
      forwarded: false,
      created_at: undefined,
      status_ids: [post],
      rule_ids: null,
      collection_ids: [],
      target_account: bob.id,
    },
  );
  assert.ok(Math.abs(Date.parse(r.created_at) - Date.now()) < 60_000);
});

test("defaults: category other, no statuses, empty comment; form parameters work too", async (t) => {
  const { s, alice, bob } = await setup(t);
  const form = new URLSearchParams({ account_id: bob.id });
  const r = await s.req(alice, "POST", "/api/v1/reports", form);
  assert.equal(r.status, 200);
  assert.deepEqual([r.body.category, r.body.comment, r.body.status_ids, r.body.forwarded], ["other", "", null, false]);
});

test("rule_ids make the report a violation; unknown rules are a 422", async (t) => {
  const { s, alice, bob } = await setup(t);
  const rule = createRule(s.app, { text: "No spam" });
  const r = await s.api(alice, "POST", "/api/v1/reports", { account_id: bob.id, rule_ids: [rule.id], category: "other" });
  assert.deepEqual([r.category, r.rule_ids], ["violation", [rule.id]]);
  const bad = await s.req(alice, "POST", "/api/v1/reports", { account_id: bob.id, rule_ids: ["12345"] });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.error, "Validation failed: Rule ids does not reference valid rules");
});

test("validation: comment length, category, unknown account and foreign or hidden statuses", async (t) => {
  const { s, alice, bob, post } = await setup(t);
  const carol = await s.user("carol");
  const carolPost = (await s.api(carol, "POST", "/api/v1/statuses", { status: "hi" })).id;
  const hidden = (await s.api(bob, "POST", "/api/v1/statuses", { status: "followers only", visibility: "private" })).id;

  const long = await s.req(alice, "POST", "/api/v1/reports", { account_id: bob.id, comment: "x".repeat(1001) });
  assert.deepEqual([long.status, long.body.error], [422, "Validation failed: Comment is too long (maximum is 1000 characters)"]);
  assert.equal((await s.req(alice, "POST", "/api/v1/reports", { account_id: bob.id, comment: "é".repeat(1000) })).status, 200);
  assert.equal((await s.req(alice, "POST", "/api/v1/reports", { account_id: bob.id, category: "rude" })).status, 422);
  assert.equal((await s.req(alice, "POST", "/api/v1/reports", { account_id: "999999" })).status, 404);
  assert.equal((await s.req(alice, "POST", "/api/v1/reports", {})).status, 404);
  assert.equal((await s.req(alice, "POST", "/api/v1/reports", { account_id: bob.id, status_ids: [post, carolPost] })).status, 404);
  assert.equal((await s.req(alice, "POST", "/api/v1/reports", { account_id: bob.id, status_ids: [hidden] })).status, 404);
});

test("scopes: write:reports or write; read-only tokens get 403, anonymous 401", async (t) => {
  const { s, bob } = await setup(t);
  const narrow = await s.user("narrow", { scopes: ["write:reports"] });
  const readOnly = await s.user("reader", { scopes: ["read"] });
  assert.equal((await s.req(narrow, "POST", "/api/v1/reports", { account_id: bob.id })).status, 200);
  assert.equal((await s.req(readOnly, "POST", "/api/v1/reports", { account_id: bob.id })).status, 403);
  assert.equal((await s.req(null, "POST", "/api/v1/reports", { account_id: bob.id })).status, 401);
});

test("forward: a report about a remote account is sent as a Flag from the instance actor", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(async () => {
    await s.close();
    await remote.close();
  });
  const alice = await s.user("alice");
  const mallory = remote.actor("mallory");
  const account = (await resolveAccountByUri(s.app, mallory.id))!;
  const r = await s.api(alice, "POST", "/api/v1/reports", { account_id: account.id, comment: "remote spam", forward: true });
  assert.equal(r.forwarded, true);
  await s.drainJobs();
  const flag = await remote.waitFor((d) => d.body?.type === "Flag");
  assert.deepEqual([flag.body.actor, flag.body.content, flag.body.object], [`${s.url}/actor`, "remote spam", [mallory.id]]);

  const unforwarded = await s.api(alice, "POST", "/api/v1/reports", { account_id: account.id, forward: false });
  assert.equal(unforwarded.forwarded, false);
});

test("staff get an admin.report notification carrying the report; other users do not", async (t) => {
  const { s, alice, bob, post } = await setup(t);
  const admin = await s.user("admin", { role: "admin" });
  const mod = await s.user("mod", { role: "moderator" });
  const r = await s.api(alice, "POST", "/api/v1/reports", { account_id: bob.id, status_ids: [post], comment: "spam", category: "spam" });
  for (const staff of [admin, mod]) {
    const [n] = await s.api(staff, "GET", "/api/v1/notifications?types[]=admin.report");
    assert.equal(n.type, "admin.report");
    assert.equal(n.account.id, alice.id, "from the reporter");
    assert.equal(n.report.id, r.id);
    assert.equal(n.report.comment, "spam");
    assert.equal(n.report.target_account.id, bob.id);
    assert.equal(n.status, undefined);
  }
  await s.api(alice, "POST", "/api/v1/reports", { account_id: bob.id, comment: "again" });
  assert.equal((await s.api(mod, "GET", "/api/v1/notifications?types[]=admin.report")).length, 2, "one per report");
  assert.deepEqual(await s.api(bob, "GET", "/api/v1/notifications?types[]=admin.report"), []);
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/notifications?types[]=admin.report"), []);
});
