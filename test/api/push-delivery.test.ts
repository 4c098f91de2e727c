// Web Push deliveries (issue 11 part 6; push.md §2-§5): a push service on loopback receives each
// message, which the test decrypts with the subscription's private key by its own code
// (test/helpers/push-receiver.ts) and whose VAPID signature it verifies.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { decryptPush, type PushClient, type PushReceiver, startPushReceiver, verifyVapid } from "../helpers/push-receiver.ts";
import { findPushSubscriptionById } from "../../src/storage/push-subscriptions.ts";
import { confirmUser } from "../../src/services/users.ts";
import { appToken } from "./accounts-helpers.ts";

const CONTACT = "birds@roost.test";
const TTL_48_HOURS = "172800";

let s: TestServer;
let push: PushReceiver;
let n = 0;
before(async () => {
  s = await startTestServer({ config: { contactEmail: CONTACT } });
  push = await startPushReceiver();
});
after(async () => {
  await s.close();
  await push.close();
});

/** A fresh pair of users: `me` with a push subscription for `alerts`, and `other`. */
async function pair(o: { standard?: boolean; alerts?: Record<string, boolean>; policy?: string; locale?: string; role?: "moderator" } = {}) {
  n++;
  const me = await s.user(`me${n}`, { displayName: `Me ${n}`, locale: o.locale ?? null, role: o.role });
  const other = await s.user(`other${n}`, { displayName: `Other ${n}` });
  const client = push.client(`me${n}`);
  const sub = await s.api(me, "POST", "/api/v1/push/subscription", {
    subscription: { endpoint: client.endpoint, keys: client.keys, standard: o.standard ?? true },
    data: { alerts: o.alerts ?? { mention: true, favourite: true, follow: true, reblog: true, status: true }, policy: o.policy ?? "all" },
  });
  return { me, other, client, sub, name: `me${n}` };
}

async function notificationsOf(me: TestUser) {
  return s.api(me, "GET", "/api/v1/notifications");
}

test("a mention arrives at the push service: aes128gcm, VAPID with the contact, Mastodon's payload", async () => {
  const { me, other, client, name } = await pair({ standard: true });
  const status = await s.api(other, "POST", "/api/v1/statuses", { status: `@${me.username} are we still on for Friday?` });
  await s.drainJobs();

  const [got] = push.to(name);
  assert.equal(push.to(name).length, 1);
  assert.equal(got.headers["content-encoding"], "aes128gcm");
  assert.equal(got.headers["content-type"], "application/octet-stream");
  assert.equal(got.headers.ttl, TTL_48_HOURS);
  assert.equal(got.headers.urgency, "normal");
  assert.equal(got.headers.encryption, undefined);
  assert.ok(String(got.headers["unsubscribe-url"]).startsWith(`${s.app.baseUrl}/api/web/push_subscriptions/`), String(got.headers["unsubscribe-url"]));

  const claims = verifyVapid(got, s.app.config.vapidPublicKey);
  assert.equal(claims.sub, `mailto:${CONTACT}`);
  assert.equal(claims.aud, push.url);
  const nowS = Date.now() / 1000;
  assert.ok(claims.exp > nowS + 3600 && claims.exp <= nowS + 24 * 3600, `exp ${claims.exp}`);

  const [notification] = await notificationsOf(me);
  const account = await s.api(me, "GET", `/api/v1/accounts/${other.id}`);
  assert.deepEqual(decryptPush(client, got), {
    access_token: me.token,
    preferred_locale: "en",
    notification_id: notification.id,
    notification_type: "mention",
    icon: account.avatar_static,
    title: `You were mentioned by Other ${n}`,
    body: `@${me.username} are we still on for Friday?`,
  });
  assert.equal(notification.status.id, status.id);
});

test("legacy aesgcm: the salt and key in Encryption and Crypto-Key, the VAPID draft's WebPush header", async () => {
  const { me, other, client, name } = await pair({ standard: false, locale: "de" });
  const post = await s.api(me, "POST", "/api/v1/statuses", { status: "x".repeat(200) });
  await s.api(other, "POST", `/api/v1/statuses/${post.id}/favourite`);
  await s.drainJobs();
  const [got] = push.to(name);
  assert.equal(got.headers["content-encoding"], "aesgcm");
  assert.match(String(got.headers.encryption), /^salt=[A-Za-z0-9_-]{22}$/);
  assert.match(String(got.headers["crypto-key"]), /^dh=[A-Za-z0-9_-]{87};p256ecdsa=[A-Za-z0-9_-]{87}$/);
  assert.equal(got.headers.ttl, TTL_48_HOURS);
  assert.equal(verifyVapid(got, s.app.config.vapidPublicKey).sub, `mailto:${CONTACT}`);
  const message = decryptPush(client, got);
  assert.equal(message.notification_type, "favourite");
  assert.equal(message.title, `Other ${n} favorited your post`);
  assert.equal(message.preferred_locale, "de");
  // Rails' truncate: 140 characters, "..." included.
  assert.equal(message.body, "x".repeat(137) + "...");
});

test("follows push the follower's bio; a content warning stands for the post's text", async () => {
  const { me, other, client, name } = await pair();
  await s.api(other, "PATCH", "/api/v1/accounts/update_credentials", { note: "I like <b>birds</b> & trees" });
  await s.api(other, "POST", `/api/v1/accounts/${me.id}/follow`);
  const mine = await s.api(me, "POST", "/api/v1/statuses", { status: "hello" });
  await s.api(other, "POST", "/api/v1/statuses", { status: `@${me.username} the spoiler`, spoiler_text: "Birds, again", in_reply_to_id: mine.id });
  await s.drainJobs();
  const messages = push.to(name).map((p) => decryptPush(client, p));
  assert.deepEqual(
    messages.map((m) => [m.notification_type, m.title, m.body]),
    [
      // Tags stripped, as Mastodon's strip_tags does to a local bio too.
      ["follow", `Other ${n} is now following you`, "I like birds & trees"],
      ["mention", `You were mentioned by Other ${n}`, "Birds, again"],
    ],
  );
});

test("every notification type of the alerts list is pushed with Mastodon's title and body", async (t) => {
  const all = ["mention", "status", "reblog", "follow", "follow_request", "favourite", "poll", "update", "admin.sign_up", "admin.report"];
  const { me, other, client, name } = await pair({ role: "moderator", alerts: Object.fromEntries(all.map((t) => [t, true])) });
  const o = `Other ${n}`;
  const messages = async () => {
    await s.drainJobs();
    return push.to(name).map((p) => decryptPush(client, p)).map((m) => [m.notification_type, m.title, m.body]);
  };
  await s.api(other, "PATCH", "/api/v1/accounts/update_credentials", { note: "Reporter's bio" });
  // status: `me` follows `other` with notifications on.
  await s.api(me, "POST", `/api/v1/accounts/${other.id}/follow`, { notify: true });
  const theirs = await s.api(other, "POST", "/api/v1/statuses", { status: "first take" });
  await s.drainJobs(); // delivered before the edit: a message reads the post as it is when sent
  // update: `me` boosted the post that is then edited.
  await s.api(me, "POST", `/api/v1/statuses/${theirs.id}/reblog`);
  await s.api(other, "PUT", `/api/v1/statuses/${theirs.id}`, { status: "second take" });
  // reblog and favourite of a post of mine.
  const mine = await s.api(me, "POST", "/api/v1/statuses", { status: "my post" });
  await s.api(other, "POST", `/api/v1/statuses/${mine.id}/reblog`);
  await s.api(other, "POST", `/api/v1/statuses/${mine.id}/favourite`);
  // follow_request: `me` is locked.
  await s.api(me, "PATCH", "/api/v1/accounts/update_credentials", { locked: true });
  await s.api(other, "POST", `/api/v1/accounts/${me.id}/follow`);
  // admin.report: `me` is a moderator; the body is the reporter's bio (a report has no status).
  const target = await s.user(`target${n}`);
  await s.api(other, "POST", "/api/v1/reports", { account_id: target.id, comment: "spam" });
  // poll: `me` voted in a poll that then ends (on the app clock); a poll has a status.
  const question = await s.api(target, "POST", "/api/v1/statuses", { status: "tea or coffee?", poll: { options: ["tea", "coffee"], expires_in: 300 } });
  await s.api(me, "POST", `/api/v1/polls/${question.poll.id}/votes`, { choices: [0] });
  const realNow = s.app.now;
  t.after(() => (s.app.now = realNow));
  s.app.now = () => realNow() + 10 * 60_000;
  // Pushes of one batch go out concurrently: compare in type order.
  assert.deepEqual((await messages()).sort((a, b) => all.indexOf(a[0]) - all.indexOf(b[0])), [
    ["status", `${o} just posted`, "first take"],
    ["reblog", `${o} boosted your post`, "my post"],
    ["follow_request", `Pending follower: ${o}`, "Reporter's bio"],
    ["favourite", `${o} favorited your post`, "my post"],
    ["poll", `A poll by ${target.username} has ended`, "tea or coffee?"],
    ["update", `${o} edited a post`, "second take"],
    ["admin.report", `${o} submitted a report`, "Reporter's bio"],
  ]);
});

test("a self-registered account, once confirmed, is announced to the staff (admin.sign_up) and pushed", async () => {
  const { me, client, name } = await pair({ role: "moderator", alerts: { "admin.sign_up": true } });
  const plain = await pair({ alerts: { "admin.sign_up": true } }); // not staff: nothing
  const signUp = (username: string) =>
    s.api(appToken(s).token, "POST", "/api/v1/accounts", { username, email: `${username}@mail.example`, password: "long enough pw", agreement: true, locale: "en" });
  await signUp(`newbie${n}`);
  await s.drainJobs();
  assert.equal(push.to(name).length, 0, "not before the address is confirmed");
  confirmUser(s.app, `newbie${n}`);
  confirmUser(s.app, `newbie${n}`); // once only
  await s.drainJobs();
  assert.deepEqual(push.to(name).map((p) => decryptPush(client, p)).map((m) => [m.notification_type, m.title, m.body]), [["admin.sign_up", `newbie${n} signed up`, ""]]);
  const [note] = await s.api(me, "GET", "/api/v1/notifications?types[]=admin.sign_up");
  assert.deepEqual([note.type, note.account.username], ["admin.sign_up", `newbie${n}`]);
  assert.equal(push.to(plain.name).length, 0);
  // Awaiting approval, a confirmed account is not announced yet.
  s.app.config.registrations = "approval";
  try {
    await signUp(`waiting${n}`);
    confirmUser(s.app, `waiting${n}`);
  } finally {
    s.app.config.registrations = "open";
  }
  await s.drainJobs();
  assert.equal(push.to(name).length, 1);
});

test("only the alerts the subscription asked for, and only what its policy lets through", async () => {
  // Alerts: mention on, favourite off (omitted).
  const a = await pair({ alerts: { mention: true } });
  const post = await s.api(a.me, "POST", "/api/v1/statuses", { status: "mine" });
  await s.api(a.other, "POST", `/api/v1/statuses/${post.id}/favourite`);
  await s.drainJobs();
  assert.equal(push.to(a.name).length, 0);

  // followed: only from accounts the recipient follows.
  const b = await pair({ policy: "followed", alerts: { mention: true } });
  await s.api(b.other, "POST", "/api/v1/statuses", { status: `@${b.me.username} stranger` });
  await s.drainJobs();
  assert.equal(push.to(b.name).length, 0);
  await s.api(b.me, "POST", `/api/v1/accounts/${b.other.id}/follow`);
  await s.api(b.other, "POST", "/api/v1/statuses", { status: `@${b.me.username} friend` });
  await s.drainJobs();
  assert.deepEqual(push.to(b.name).map((p) => decryptPush(b.client, p).body), [`@${b.me.username} friend`]);

  // follower: only from accounts that follow the recipient.
  const c = await pair({ policy: "follower", alerts: { mention: true } });
  await s.api(c.me, "POST", `/api/v1/accounts/${c.other.id}/follow`); // the wrong direction
  await s.api(c.other, "POST", "/api/v1/statuses", { status: `@${c.me.username} one` });
  await s.drainJobs();
  assert.equal(push.to(c.name).length, 0);
  await s.api(c.other, "POST", `/api/v1/accounts/${c.me.id}/follow`);
  await s.api(c.other, "POST", "/api/v1/statuses", { status: `@${c.me.username} two` });
  await s.drainJobs();
  assert.deepEqual(push.to(c.name).map((p) => decryptPush(c.client, p).body), [`@${c.me.username} two`]);

  // none: nothing at all; and a PUT that turns the policy to none stops what was queued.
  const d = await pair({ policy: "none", alerts: { mention: true } });
  await s.api(d.other, "POST", "/api/v1/statuses", { status: `@${d.me.username} hello` });
  await s.drainJobs();
  assert.equal(push.to(d.name).length, 0);
  const e = await pair({ alerts: { mention: true } });
  await s.api(e.other, "POST", "/api/v1/statuses", { status: `@${e.me.username} queued` });
  await s.api(e.me, "PUT", "/api/v1/push/subscription", { data: { alerts: { mention: true }, policy: "none" } });
  await s.drainJobs();
  assert.equal(push.to(e.name).length, 0);
});

test("a notification the recipient's policy filters is not pushed; it waits among the requests", async () => {
  const { me, other, client, name } = await pair({ alerts: { mention: true } });
  // Mastodon 4.3's default policy filters a stranger's private mention.
  await s.api(other, "POST", "/api/v1/statuses", { status: `@${me.username} psst`, visibility: "direct" });
  await s.api(me, "PATCH", "/api/v2/notifications/policy", { for_not_following: "filter" });
  await s.api(other, "POST", "/api/v1/statuses", { status: `@${me.username} in public` });
  await s.drainJobs();
  assert.equal(push.to(name).length, 0);
  const filtered = await s.api(me, "GET", "/api/v1/notifications?include_filtered=true");
  assert.deepEqual(filtered.map((x: { type: string; filtered: boolean }) => [x.type, x.filtered]), [["mention", true], ["mention", true]]);
  assert.equal((await s.api(me, "GET", "/api/v1/notifications/requests")).length, 1);
  // Accepted, the next one is pushed.
  await s.api(me, "PATCH", "/api/v2/notifications/policy", { for_not_following: "accept", for_private_mentions: "accept" });
  await s.api(other, "POST", "/api/v1/statuses", { status: `@${me.username} welcome now`, visibility: "direct" });
  await s.drainJobs();
  assert.deepEqual(push.to(name).map((p) => decryptPush(client, p).body), [`@${me.username} welcome now`]);
});

test("a notification that is gone before delivery is not pushed", async () => {
  const { me, other, name } = await pair();
  const st = await s.api(other, "POST", "/api/v1/statuses", { status: `@${me.username} oops` });
  await s.api(other, "DELETE", `/api/v1/statuses/${st.id}`);
  await s.drainJobs();
  assert.equal(push.to(name).length, 0);
});

for (const status of [404, 410]) {
  test(`${status} from the push service removes the subscription`, async () => {
    const { me, other, name, sub } = await pair();
    push.answer(name, status);
    await s.api(other, "POST", "/api/v1/statuses", { status: `@${me.username} are you there?` });
    await s.drainJobs();
    assert.deepEqual(push.to(name).map((p) => p.answered), [status]);
    assert.equal(findPushSubscriptionById(s.app.db, sub.id), undefined);
    const res = await s.req(me, "GET", "/api/v1/push/subscription");
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { error: "Record not found" });
    // Nothing more is sent there.
    await s.api(other, "POST", "/api/v1/statuses", { status: `@${me.username} hello?` });
    await s.drainJobs();
    assert.equal(push.to(name).length, 1);
  });
}

test("500 and 429 are retried with backoff; the subscription stays", async (t) => {
  const { me, other, client, name, sub } = await pair();
  push.answer(name, 500, 429);
  await s.api(other, "POST", "/api/v1/statuses", { status: `@${me.username} try again` });
  await s.drainJobs();
  assert.deepEqual(push.to(name).map((p) => p.answered), [500]);
  assert.ok(findPushSubscriptionById(s.app.db, sub.id));

  // The retry waits for its backoff (~15 s): nothing is due before it.
  const realNow = s.app.now;
  t.after(() => (s.app.now = realNow));
  await s.drainJobs();
  assert.equal(push.to(name).length, 1);
  s.app.now = () => realNow() + 60_000;
  await s.drainJobs();
  assert.deepEqual(push.to(name).map((p) => p.answered), [500, 429]);
  s.app.now = () => realNow() + 10 * 60_000;
  await s.drainJobs();
  const received = push.to(name);
  assert.deepEqual(received.map((p) => p.answered), [500, 429, 201]);
  // Each attempt is encrypted anew, and each decrypts to the same message.
  const bodies = received.map((p) => decryptPush(client, p));
  assert.equal(bodies[2].body, `@${me.username} try again`);
  assert.deepEqual(bodies[0], bodies[2]);
  assert.notDeepEqual(received[0].body, received[2].body);
  assert.ok(findPushSubscriptionById(s.app.db, sub.id));
});

test("a push service that does not answer is retried; a notification older than 48 h is dropped", async (t) => {
  const { me, other, name, sub } = await pair();
  // A closed port: the connection is refused.
  await s.api(me, "POST", "/api/v1/push/subscription", {
    subscription: { endpoint: "http://127.0.0.1:9/push/nobody", keys: push.client("x").keys, standard: true },
    data: { alerts: { mention: true } },
  });
  await s.api(other, "POST", "/api/v1/statuses", { status: `@${me.username} anyone?` });
  await s.drainJobs();
  const replaced = await s.api(me, "GET", "/api/v1/push/subscription");
  assert.notEqual(replaced.id, sub.id);
  assert.equal(replaced.endpoint, "http://127.0.0.1:9/push/nobody");
  // Still there after the failure, and the push waits for its retry in a job of its own.
  const pending = s.app.db.prepare("SELECT payload, run_at FROM jobs WHERE name = 'push.send'").all() as { payload: string; run_at: number }[];
  assert.equal(pending.length, 1);
  const [notification] = await notificationsOf(me);
  assert.deepEqual(JSON.parse(pending[0].payload), { items: [{ s: replaced.id, n: notification.id, a: 1 }] });
  assert.ok(pending[0].run_at > s.app.now() + 5_000);
  // Two days later the retry finds the notification too old: dropped without a request.
  const realNow = s.app.now;
  t.after(() => (s.app.now = realNow));
  s.app.now = () => realNow() + 49 * 3600_000;
  await s.drainJobs();
  assert.deepEqual(s.app.db.prepare("SELECT count(*) AS c FROM jobs WHERE name = 'push.send'").get(), { c: 0n });
  assert.equal(push.to(name).length, 0);
});

test("a burst of pushes shares a job; a push that fails is retried alone", async (t) => {
  const a = await pair({ alerts: { mention: true } });
  const b = await pair({ alerts: { mention: true } });
  const c = await pair({ alerts: { mention: true } });
  push.answer(b.name, 503);
  const text = `@${a.me.username} @${b.me.username} @${c.me.username} all of you`;
  const st = await s.api(a.other, "POST", "/api/v1/statuses", { status: text });
  // The three notifications of the post, made as the fan-out makes them, queue one job.
  const before = s.app.db.prepare("SELECT count(*) AS c FROM jobs WHERE name = 'push.send'").get();
  assert.deepEqual(before, { c: 0n });
  await s.drainJobs();
  for (const x of [a, c]) assert.deepEqual(push.to(x.name).map((p) => [p.answered, decryptPush(x.client, p).body]), [[201, text]]);
  assert.deepEqual(push.to(b.name).map((p) => p.answered), [503]);
  const retry = s.app.db.prepare("SELECT payload FROM jobs WHERE name = 'push.send'").all() as { payload: string }[];
  assert.deepEqual(retry.map((r) => JSON.parse(r.payload).items.map((i: { s: string }) => i.s)), [[b.sub.id]]);

  const realNow = s.app.now;
  t.after(() => (s.app.now = realNow));
  s.app.now = () => realNow() + 10 * 60_000;
  await s.drainJobs();
  assert.deepEqual(push.to(b.name).map((p) => p.answered), [503, 201]);
  assert.equal(decryptPush(b.client, push.to(b.name)[1]).body, text);
  for (const x of [a, c]) assert.equal(push.to(x.name).length, 1);
  assert.ok(st.id);
});

test("pushes queued in one transaction go into one job", async () => {
  const { notify } = await import("../../src/services/notifications.ts");
  const { tx } = await import("../../src/db/db.ts");
  const subs = [await pair({ alerts: { follow: true } }), await pair({ alerts: { follow: true } })];
  const sender = await s.user(`sender${n}`);
  const queued = () => (s.app.db.prepare("SELECT payload FROM jobs WHERE name = 'push.send'").all() as { payload: string }[]).map((r) => JSON.parse(r.payload).items.length);
  tx(s.app.db, () => {
    for (const x of subs) notify(s.app, { type: "follow", recipientId: x.me.id, fromAccountId: sender.id });
  });
  assert.deepEqual(queued(), [2]);
  await s.drainJobs();
  for (const x of subs) assert.equal(decryptPush(x.client, push.to(x.name)[0]).notification_type, "follow");
});

test("the Unsubscribe-URL of a message deletes its subscription, without a session; forged or expired ones do nothing", async (t) => {
  const { me, other, name, sub } = await pair();
  await s.api(other, "POST", "/api/v1/statuses", { status: `@${me.username} hi` });
  await s.drainJobs();
  const url = String(push.to(name)[0].headers["unsubscribe-url"]);
  const path = url.slice(s.app.baseUrl.length);
  const token = path.split("/").pop()!;
  const forged = token.slice(0, -1) + (token.endsWith("0") ? "1" : "0");
  const otherId = token.replace(/^\d+/, String(BigInt(sub.id) + 1n)); // the MAC of another subscription
  for (const bad of [forged, otherId, "garbage", `${sub.id}.1.${"0".repeat(64)}`]) {
    const res = await s.req(null, "DELETE", `/api/web/push_subscriptions/${bad}`);
    assert.deepEqual([res.status, res.text], [200, ""]);
  }
  assert.ok(findPushSubscriptionById(s.app.db, sub.id));
  // 48 hours later the token no longer works.
  const realNow = s.app.now;
  t.after(() => (s.app.now = realNow));
  s.app.now = () => realNow() + 49 * 3600_000;
  assert.equal((await s.req(null, "DELETE", path)).status, 200);
  assert.ok(findPushSubscriptionById(s.app.db, sub.id));
  s.app.now = realNow;
  const res = await s.req(null, "DELETE", path);
  assert.deepEqual([res.status, res.text], [200, ""]);
  assert.equal(findPushSubscriptionById(s.app.db, sub.id), undefined);
  assert.equal((await s.req(me, "GET", "/api/v1/push/subscription")).status, 404);
});
