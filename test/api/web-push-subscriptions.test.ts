// /api/web/push_subscriptions (issue 11 part 7; push.md §6; Mastodon's
// Api::Web::PushSubscriptionsController): the browser session's subscription, bound to the
// session's own token, authenticated by the session cookie and the CSRF token.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { decryptPush, type PushReceiver, startPushReceiver } from "../helpers/push-receiver.ts";
import { Browser, formWithButton, PASSWORD } from "./oauth-helpers.ts";
import { findPushSubscriptionById } from "../../src/storage/push-subscriptions.ts";
import { NOTIFICATION_TYPES } from "../../src/services/notifications.ts";

const DESKTOP = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const PHONE = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36";

let s: TestServer;
let push: PushReceiver;
before(async () => {
  s = await startTestServer();
  push = await startPushReceiver();
});
after(async () => {
  await s.close();
  await push.close();
});

/** A browser signed in as `username` with `userAgent`, and its CSRF token (from the signed-in page's form). */
async function signedIn(username: string, userAgent: string) {
  const b = new Browser(s.url);
  const headers = { "user-agent": userAgent };
  const page = await b.fetch("/auth/sign_in", { headers });
  const form = formWithButton(page.text, "Sign in");
  const res = await b.fetch("/auth/sign_in", { form: { ...form.fields, login: username, password: PASSWORD }, headers });
  assert.equal(res.status, 302, res.text);
  const home = await b.fetch("/auth/sign_in", { headers });
  const csrf = formWithButton(home.text, "Sign out").fields.authenticity_token;
  assert.ok(csrf);
  const call = async (method: string, path: string, form: Record<string, string>, o: { csrf?: string | null } = {}) => {
    const token = o.csrf === undefined ? csrf : o.csrf;
    const r = await b.fetch(path, { method, form, headers: { ...headers, accept: "application/json", ...(token ? { "x-csrf-token": token } : {}) } });
    return { status: r.status, body: r.text ? JSON.parse(r.text) : null };
  };
  return { b, csrf, call };
}

function subscriptionForm(name: string, extra: Record<string, string> = {}) {
  const client = push.client(name);
  return {
    client,
    form: {
      "subscription[endpoint]": client.endpoint,
      "subscription[keys][p256dh]": client.keys.p256dh,
      "subscription[keys][auth]": client.keys.auth,
      "subscription[standard]": "true",
      ...extra,
    },
  };
}

test("a desktop session subscribes with every alert off but those it sends; the push carries the session's token", async () => {
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const browser = await signedIn("alice", DESKTOP);
  const { client, form } = subscriptionForm("alice-web", { "data[alerts][mention]": "true", "data[policy]": "all" });
  const res = await browser.call("POST", "/api/web/push_subscriptions", form);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const expectedAlerts = Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, t === "mention"]));
  assert.deepEqual(res.body, {
    id: res.body.id,
    endpoint: client.endpoint,
    standard: true,
    alerts: expectedAlerts,
    policy: "all",
    server_key: s.app.config.vapidPublicKey,
  });

  await s.api(bob, "POST", "/api/v1/statuses", { status: "@alice from the web" });
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`); // follow alert off
  await s.drainJobs();
  const received = push.to("alice-web");
  assert.equal(received.length, 1);
  const message = decryptPush(client, received[0]);
  assert.equal(message.notification_type, "mention");
  assert.equal(message.body, "@alice from the web");
  // The token in the message is the session's own: it works, as alice, and it is not the fixture's.
  assert.notEqual(message.access_token, alice.token);
  const me = await s.api(message.access_token, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(me.id, alice.id);

  // Signing out revokes the session's token, which deletes its subscription.
  const signOut = formWithButton((await browser.b.fetch("/auth/sign_in")).text, "Sign out");
  await browser.b.fetch("/auth/sign_out", { form: signOut.fields });
  assert.equal(findPushSubscriptionById(s.app.db, res.body.id), undefined);
  await s.api(bob, "POST", "/api/v1/statuses", { status: "@alice still there?" });
  await s.drainJobs();
  assert.equal(push.to("alice-web").length, 1);
});

test("a phone's session gets every alert on; a new POST replaces the session's subscription; PUT replaces data", async () => {
  await s.user("carol");
  await s.user("dave");
  const phone = await signedIn("carol", PHONE);
  const first = await phone.call("POST", "/api/web/push_subscriptions", subscriptionForm("carol-1").form);
  assert.deepEqual(first.body.alerts, Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, true])));
  // Given data is merged over the defaults.
  const second = await phone.call("POST", "/api/web/push_subscriptions", subscriptionForm("carol-2", { "data[alerts][reblog]": "false", "data[policy]": "followed" }).form);
  assert.equal(second.status, 200);
  assert.equal(second.body.alerts.reblog, false);
  assert.equal(second.body.alerts.mention, true);
  assert.equal(second.body.policy, "followed");
  assert.equal(findPushSubscriptionById(s.app.db, first.body.id), undefined);

  const put = await phone.call("PUT", `/api/web/push_subscriptions/${second.body.id}`, { "data[alerts][poll]": "true" });
  assert.equal(put.status, 200);
  assert.deepEqual([put.body.alerts, put.body.policy], [{ poll: true }, "all"]);
  assert.equal((await phone.call("PUT", `/api/web/push_subscriptions/${second.body.id}`, {})).status, 400);

  // Someone else's subscription, or no such id: 404.
  const other = await signedIn("dave", PHONE);
  for (const id of [second.body.id, "123", "abc"]) {
    const res = await other.call("PUT", `/api/web/push_subscriptions/${id}`, { "data[alerts][poll]": "false" });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { error: "Record not found" });
  }
  assert.deepEqual(findPushSubscriptionById(s.app.db, second.body.id)!.alerts, { poll: true });
});

test("without the CSRF token, or without a session, nothing is stored", async () => {
  await s.user("erin");
  const browser = await signedIn("erin", DESKTOP);
  const { form } = subscriptionForm("erin");
  for (const csrf of [null, "forged"]) {
    const res = await browser.call("POST", "/api/web/push_subscriptions", form, { csrf });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body, { error: "Can't verify CSRF token authenticity." });
  }
  // A valid CSRF pair but no session cookie.
  browser.b.cookies.delete("roost_session");
  const res = await browser.call("POST", "/api/web/push_subscriptions", form);
  assert.equal(res.status, 401);
  assert.deepEqual(res.body, { error: "This method requires an authenticated user" });
  // A bearer token is no way in here.
  const erin = await s.user("erin2");
  assert.equal((await s.req(erin, "POST", "/api/web/push_subscriptions", form)).status, 422);
  assert.deepEqual(s.app.db.prepare("SELECT count(*) AS c FROM web_push_subscriptions WHERE endpoint LIKE '%/push/erin'").get(), { c: 0n });
  // Bad keys answer as on the API.
  const fresh = await signedIn("erin", DESKTOP);
  const bad = await fresh.call("POST", "/api/web/push_subscriptions", { ...form, "subscription[keys][auth]": "c2hvcnQ" });
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body, { error: "Validation failed: Key auth is not a 16-byte secret (base64url)" });
});
