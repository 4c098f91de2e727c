// POST/GET/PUT/DELETE /api/v1/push/subscription (issue 11 part 6; push.md §1): one subscription
// per access token, the push scope, the WebPushSubscription entity, and bad input answered 4xx.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createECDH, randomBytes } from "node:crypto";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { startPushReceiver, type PushReceiver } from "../helpers/push-receiver.ts";
import { registerApp, Browser, approve, codeFrom, exchangeCode, authorizePath } from "./oauth-helpers.ts";
import { findPushSubscriptionById } from "../../src/storage/push-subscriptions.ts";

let s: TestServer;
/** An instance on https, as in production: push endpoints must be https there. */
let secure: TestServer;
let push: PushReceiver;
before(async () => {
  s = await startTestServer();
  secure = await startTestServer({ init: { protocol: "https" } });
  push = await startPushReceiver();
});
after(async () => {
  await s.close();
  await secure.close();
  await push.close();
});

function keys() {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") };
}

const ENDPOINT = "https://push.example.net/wpush/v2/gAAAAABn";

test("POST creates the token's subscription; GET, PUT and DELETE act on it", async () => {
  const alice = await s.user("alice");
  const created = await s.api(alice, "POST", "/api/v1/push/subscription", {
    subscription: { endpoint: ENDPOINT, keys: keys(), standard: true },
    data: { alerts: { mention: true, follow: "true", favourite: false, reblog: "0", "admin.sign_up": 1, quote: true, bogus: true }, policy: "followed" },
  });
  assert.match(created.id, /^\d+$/);
  assert.deepEqual(created, {
    id: created.id,
    endpoint: ENDPOINT,
    standard: true,
    // Exactly the known types sent, cast as Rails casts booleans; unknown types are dropped.
    alerts: { mention: true, follow: true, favourite: false, reblog: false, "admin.sign_up": true },
    policy: "followed",
    server_key: s.app.config.vapidPublicKey,
  });
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/push/subscription"), created);

  // PUT replaces `data`: omitted alerts are gone (off), an omitted policy is `all`.
  const updated = await s.api(alice, "PUT", "/api/v1/push/subscription", { data: { alerts: { poll: true } } });
  assert.deepEqual(updated, { ...created, alerts: { poll: true }, policy: "all" });
  // A top-level `policy` is ignored (as current Mastodon does); no `data` clears the alerts.
  const cleared = await s.api(alice, "PUT", "/api/v1/push/subscription", { policy: "none" });
  assert.deepEqual(cleared, { ...created, alerts: {}, policy: "all" });
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/push/subscription"), cleared);

  assert.deepEqual(await s.api(alice, "DELETE", "/api/v1/push/subscription"), {});
  assert.deepEqual(await s.api(alice, "DELETE", "/api/v1/push/subscription"), {}); // idempotent
  for (const method of ["GET", "PUT"]) {
    const res = await s.req(alice, method, "/api/v1/push/subscription", method === "PUT" ? { data: { alerts: { mention: true } } } : undefined);
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { error: "Record not found" });
  }
});

test("form-encoded bracket parameters, padded keys, legacy by default", async () => {
  const bob = await s.user("bob");
  const k = keys();
  const form = new URLSearchParams({
    "subscription[endpoint]": ENDPOINT,
    "subscription[keys][p256dh]": Buffer.from(k.p256dh, "base64url").toString("base64"),
    "subscription[keys][auth]": Buffer.from(k.auth, "base64url").toString("base64"),
    "data[alerts][mention]": "true",
    "data[alerts][follow_request]": "1",
    "data[alerts][update]": "false",
    "data[policy]": "follower",
  });
  const created = await s.api(bob, "POST", "/api/v1/push/subscription", form);
  assert.equal(created.standard, false);
  assert.deepEqual(created.alerts, { mention: true, follow_request: true, update: false });
  assert.equal(created.policy, "follower");
  // Stored as base64url whatever the alphabet sent.
  const row = findPushSubscriptionById(s.app.db, created.id)!;
  assert.equal(row.keyP256dh, k.p256dh);
  assert.equal(row.keyAuth, k.auth);
  // Without data: no alerts at all, policy all.
  const bare = await s.api(bob, "POST", "/api/v1/push/subscription", { subscription: { endpoint: ENDPOINT, keys: keys() } });
  assert.deepEqual([bare.alerts, bare.policy], [{}, "all"]);
});

test("one subscription per access token: POST replaces it, other tokens keep theirs", async () => {
  const carol = await s.user("carol");
  const phone = await s.user("carol2"); // a second user, to be sure rows are per token and user
  const first = await s.api(carol, "POST", "/api/v1/push/subscription", { subscription: { endpoint: ENDPOINT + "/1", keys: keys() } });
  const other = await s.api(phone, "POST", "/api/v1/push/subscription", { subscription: { endpoint: ENDPOINT + "/2", keys: keys() } });
  const second = await s.api(carol, "POST", "/api/v1/push/subscription", { subscription: { endpoint: ENDPOINT + "/3", keys: keys() } });
  assert.notEqual(second.id, first.id);
  assert.equal(findPushSubscriptionById(s.app.db, first.id), undefined);
  assert.equal((await s.api(carol, "GET", "/api/v1/push/subscription")).endpoint, ENDPOINT + "/3");
  assert.deepEqual(await s.api(phone, "GET", "/api/v1/push/subscription"), other);
});

test("the push scope is required, and a user token", async () => {
  const noPush = await s.user("dave", { scopes: ["read", "write", "follow"] });
  for (const [method, body] of [["POST", { subscription: { endpoint: ENDPOINT, keys: keys() } }], ["GET"], ["PUT", { data: {} }], ["DELETE"]] as const) {
    const res = await s.req(noPush, method, "/api/v1/push/subscription", body);
    assert.equal(res.status, 403, `${method}: ${res.text}`);
    assert.deepEqual(res.body, { error: "This action is outside the authorized scopes" });
    const anon = await s.req(null, method, "/api/v1/push/subscription", body);
    assert.equal(anon.status, 401);
  }
  // An app token (client_credentials) with the push scope has no user.
  const a = await registerApp(s, { scopes: "read push" });
  const tok = await s.req(null, "POST", "/oauth/token", new URLSearchParams({ grant_type: "client_credentials", client_id: a.client_id, client_secret: a.client_secret, scope: "push" }));
  const res = await s.req(tok.body.access_token, "GET", "/api/v1/push/subscription");
  assert.equal(res.status, 422);
  assert.deepEqual(res.body, { error: "This method requires an authenticated user" });
});

test("bad input: a clear 4xx, nothing stored", async () => {
  const erin = await secure.user("erin");
  const good = keys();
  const sub = (o: Record<string, unknown>) => ({ subscription: { endpoint: ENDPOINT, keys: good, ...o } });
  const offCurve = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]).toString("base64url");
  const cases: [string, unknown, number, string][] = [
    ["no subscription", { data: { alerts: { mention: true } } }, 400, "param is missing or the value is empty: subscription"],
    ["subscription not a hash", { subscription: "https://x" }, 400, "param is missing or the value is empty: subscription"],
    ["no endpoint", { subscription: { keys: good } }, 422, "Validation failed: Endpoint can't be blank"],
    ["plain http endpoint", sub({ endpoint: "http://push.example.net/x" }), 422, "Validation failed: Endpoint must be an https URL"],
    ["not a URL", sub({ endpoint: "push service" }), 422, "Validation failed: Endpoint is not a valid URL"],
    ["another scheme", sub({ endpoint: "ftp://push.example.net/x" }), 422, "Validation failed: Endpoint must be an https URL"],
    ["credentials in the URL", sub({ endpoint: "https://user:pw@push.example.net/x" }), 422, "Validation failed: Endpoint is not a valid URL"],
    ["a huge endpoint", sub({ endpoint: "https://push.example.net/" + "x".repeat(5000) }), 422, "Validation failed: Endpoint is too long (maximum is 2048 characters)"],
    ["no keys", { subscription: { endpoint: ENDPOINT } }, 422, "Validation failed: Key p256dh can't be blank"],
    ["p256dh of 64 bytes", sub({ keys: { ...good, p256dh: randomBytes(64).toString("base64url") } }), 422, "Validation failed: Key p256dh is not a P-256 public key (65 bytes, base64url)"],
    ["p256dh compressed (33 bytes)", sub({ keys: { ...good, p256dh: createECDH("prime256v1").generateKeys("base64url", "compressed") } }), 422, "Validation failed: Key p256dh is not a P-256 public key (65 bytes, base64url)"],
    ["p256dh not on the curve", sub({ keys: { ...good, p256dh: offCurve } }), 422, "Validation failed: Key p256dh is not a P-256 public key (65 bytes, base64url)"],
    ["p256dh not base64", sub({ keys: { ...good, p256dh: "not base64!" } }), 422, "Validation failed: Key p256dh is not a P-256 public key (65 bytes, base64url)"],
    ["auth of 15 bytes", sub({ keys: { ...good, auth: randomBytes(15).toString("base64url") } }), 422, "Validation failed: Key auth is not a 16-byte secret (base64url)"],
    ["auth of 32 bytes", sub({ keys: { ...good, auth: randomBytes(32).toString("base64url") } }), 422, "Validation failed: Key auth is not a 16-byte secret (base64url)"],
    ["no auth", sub({ keys: { p256dh: good.p256dh } }), 422, "Validation failed: Key auth can't be blank"],
    ["keys of the wrong type", sub({ keys: { p256dh: 12, auth: ["a"] } }), 422, "Validation failed: Key p256dh is not a P-256 public key (65 bytes, base64url)"],
    ["an unknown policy", { ...sub({}), data: { policy: "friends" } }, 422, "Validation failed: Policy is not one of all, followed, follower, none"],
  ];
  for (const [what, body, status, error] of cases) {
    const res = await secure.req(erin, "POST", "/api/v1/push/subscription", body);
    assert.equal(res.status, status, `${what}: ${res.text}`);
    assert.deepEqual(res.body, { error }, what);
  }
  assert.equal((await secure.req(erin, "GET", "/api/v1/push/subscription")).status, 404);
  // The same https instance takes the good subscription, and a PUT with a bad policy changes nothing.
  const ok = await secure.api(erin, "POST", "/api/v1/push/subscription", { ...sub({}), data: { alerts: { mention: true } } });
  const bad = await secure.req(erin, "PUT", "/api/v1/push/subscription", { data: { policy: "everyone" } });
  assert.equal(bad.status, 422);
  assert.deepEqual(await secure.api(erin, "GET", "/api/v1/push/subscription"), ok);
});

test("revoking the token (POST /oauth/revoke) deletes its subscription, and stops what was queued", async () => {
  const frank = await s.user("frank");
  const other = await s.user("gina");
  const a = await registerApp(s, { scopes: "read write push" });
  const b = new Browser(s.url);
  await b.signIn("frank");
  const code = codeFrom(await approve(b, authorizePath(a, { scope: "read write push" })));
  const token = (await exchangeCode(s, a, code)).body.access_token as string;
  const client = push.client("frank");
  const sub = await s.api(token, "POST", "/api/v1/push/subscription", { subscription: { endpoint: client.endpoint, keys: client.keys }, data: { alerts: { mention: true } } });
  // frank's other token (the fixture's) has a subscription of its own, which stays.
  const kept = await s.api(frank, "POST", "/api/v1/push/subscription", { subscription: { endpoint: client.endpoint + "/kept", keys: client.keys }, data: { alerts: { mention: true } } });

  // A mention queued before the revocation is not delivered after it.
  await s.api(other, "POST", "/api/v1/statuses", { status: "@frank before" });
  const revoke = await s.req(null, "POST", "/oauth/revoke", new URLSearchParams({ token, client_id: a.client_id, client_secret: a.client_secret }));
  assert.equal(revoke.status, 200);
  assert.equal(findPushSubscriptionById(s.app.db, sub.id), undefined);
  await s.api(other, "POST", "/api/v1/statuses", { status: "@frank after" });
  await s.drainJobs();
  assert.deepEqual(push.to("frank").length, 0);
  assert.equal(push.received.filter((r) => r.path === "/push/frank/kept").length, 2);
  assert.ok(findPushSubscriptionById(s.app.db, kept.id));
});
