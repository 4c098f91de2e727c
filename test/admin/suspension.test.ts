// Suspension enforced (Mastodon's SuspendAccountService, DeleteAccountService): a local account
// cannot sign in, its posts are hidden, its followers elsewhere get Update(actor) with
// `suspended: true` and, when its data is removed, Delete(actor); a remote account's posts are
// hidden, its deliveries dropped, its follows of our users rejected.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { handleAccountPurge, PURGE_BATCH, PURGE_JOB } from "../../src/admin/account-purge.ts";
import { signIn } from "../../src/services/web-sessions.ts";
import { findAccountById, type Account } from "../../src/storage/accounts.ts";
import { findUserByAccountId } from "../../src/storage/users.ts";
import { type FakeRemote, startFakeRemote } from "../helpers/fake-remote.ts";
import { clearReceived, ofType, remoteAccount, remoteFollows } from "../helpers/outbox.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { lastAudit, makeStaff, type Staff } from "./admin-helpers.ts";

let s: TestServer;
let r: FakeRemote;
let staff: Staff;
let fan: TestUser;

before(async () => {
  s = await startTestServer();
  r = await startFakeRemote();
  staff = await makeStaff(s);
  fan = await s.user("fan");
});
after(async () => {
  await s.close();
  await r.close();
});

const count = (sql: string, ...args: unknown[]) => Number((s.app.db.prepare(sql).get(...args) as { n: bigint }).n);

test("a suspended local account: login refused, posts hidden, Update(actor) with suspended: true, then Delete(actor) and its data gone in batches", async () => {
  const spam = await s.user("spam");
  const remoteFan = await remoteAccount(s, r.actor("watcher"));
  remoteFollows(s, remoteFan, spam);
  await s.api(fan, "POST", `/api/v1/accounts/${spam.id}/follow`);
  const post = await s.api(spam, "POST", "/api/v1/statuses", { status: "visit my shop" });
  for (let i = 0; i < PURGE_BATCH + 20; i++) await s.api(spam, "POST", "/api/v1/statuses", { status: `spam ${i}` });
  // Rows of later features go too: a keyword filter, a featured hashtag, a post with a poll.
  await s.api(spam, "POST", "/api/v2/filters", { title: "f", context: ["home"], keywords_attributes: [{ keyword: "x" }] });
  await s.api(spam, "POST", "/api/v1/featured_tags", { name: "shop" });
  await s.api(spam, "POST", "/api/v1/statuses", { status: "vote", poll: { options: ["a", "b"], expires_in: 3600 } });
  await s.drainJobs();
  assert.ok((await s.api(fan, "GET", "/api/v1/timelines/home")).some((x: any) => x.account.id === spam.id));
  clearReceived(r);

  await s.api(staff.mod, "POST", `/api/v1/admin/accounts/${spam.id}/action`, { type: "suspend", text: "spam" });
  await s.drainJobs();

  // Login refused: the API and the web sign-in.
  const me = await s.req(spam, "GET", "/api/v1/accounts/verify_credentials");
  assert.deepEqual([me.status, me.body], [403, { error: "Your login is currently disabled" }]);
  const web = await signIn(s.app, { login: "spam", password: "correct horse battery", userAgent: null, ip: null });
  assert.deepEqual(web, { ok: false, message: "Your account has been disabled." });
  // Posts hidden, and gone from the follower's home feed.
  assert.equal((await s.req(fan, "GET", `/api/v1/statuses/${post.id}`)).status, 404);
  assert.ok(!(await s.api(fan, "GET", "/api/v1/timelines/home")).some((x: any) => x.account.id === spam.id));
  assert.equal(count("SELECT count(*) AS n FROM home_feeds WHERE status_id IN (SELECT id FROM statuses WHERE account_id = ?)", BigInt(spam.id)), 0);
  const shown = await s.api(fan, "GET", `/api/v1/accounts/${spam.id}`);
  assert.equal(shown.suspended, true);
  // The remote follower hears of it as Mastodon does: Update(actor) carrying suspended.
  const [update] = ofType(r, "Update");
  assert.ok(update, `no Update among ${r.received.map((d) => d.body?.type).join(", ")}`);
  assert.equal(update.body.object.suspended, true);
  assert.equal(update.body.object.id, findAccountById(s.app.db, spam.id)!.uri);

  // DELETE: the purge removes one batch per run and queues the next.
  clearReceived(r);
  await s.api(staff.admin, "DELETE", `/api/v1/admin/accounts/${spam.id}`);
  const total = count("SELECT count(*) AS n FROM statuses WHERE account_id = ?", BigInt(spam.id));
  assert.equal(total, PURGE_BATCH + 22);
  const queued = () => count("SELECT count(*) AS n FROM jobs WHERE name = ?", PURGE_JOB);
  s.app.db.prepare("DELETE FROM jobs WHERE name = ?").run(PURGE_JOB);
  await handleAccountPurge(s.app, { accountId: spam.id, actorId: staff.admin.id }); // announces
  assert.equal(queued(), 1);
  s.app.db.prepare("DELETE FROM jobs WHERE name = ?").run(PURGE_JOB);
  await handleAccountPurge(s.app, { accountId: spam.id, actorId: staff.admin.id, announced: true });
  assert.equal(count("SELECT count(*) AS n FROM statuses WHERE account_id = ?", BigInt(spam.id)), total - PURGE_BATCH, "one batch per run");
  assert.equal(queued(), 1, "and the next run queued");
  await s.drainJobs();
  assert.equal(count("SELECT count(*) AS n FROM statuses WHERE account_id = ?", BigInt(spam.id)), 0);
  assert.equal(count("SELECT count(*) AS n FROM follows WHERE account_id = ? OR target_account_id = ?", BigInt(spam.id), BigInt(spam.id)), 0);
  for (const table of ["filters", "featured_tags", "polls"]) {
    assert.equal(count(`SELECT count(*) AS n FROM ${table} WHERE account_id = ?`, BigInt(spam.id)), 0, table);
  }
  const gone = findAccountById(s.app.db, spam.id)!;
  assert.deepEqual([gone.statusesCount, gone.followersCount, gone.displayName, gone.suspendedAt !== null], [0, 0, "", true]);
  assert.equal(findAccountById(s.app.db, fan.id)!.followingCount, 0, "the follower's count follows");
  assert.equal(findUserByAccountId(s.app.db, spam.id)!.disabled, true, "the user stays (its e-mail reserved), disabled");
  const [del] = ofType(r, "Delete");
  assert.ok(del, "Delete(actor) went out");
  assert.equal(del.body.object, gone.uri);
  assert.equal(lastAudit(s, "purge").accountId, staff.admin.id);
  assert.equal(lastAudit(s, "purge").source, "job");
});

test("a suspended remote account: posts hidden, deliveries dropped, its follows of our users rejected", async () => {
  const troll = r.actor("troll");
  const acct: Account = await remoteAccount(s, troll);
  remoteFollows(s, acct, fan);
  await s.drainJobs();
  // Addressed to our user, so that it is stored although nobody here follows the troll.
  const fanUri = findAccountById(s.app.db, fan.id)!.uri;
  const note = {
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${troll.id}/statuses/1/activity`,
    type: "Create",
    actor: troll.id,
    to: ["https://www.w3.org/ns/activitystreams#Public"],
    cc: [fanUri],
    object: {
      id: `${troll.id}/statuses/1`,
      type: "Note",
      attributedTo: troll.id,
      content: "<p>hello @fan</p>",
      to: ["https://www.w3.org/ns/activitystreams#Public"],
      cc: [fanUri],
      tag: [{ type: "Mention", href: fanUri, name: "@fan" }],
      published: new Date().toISOString(),
    },
  };
  assert.equal((await r.post(`${s.url}/inbox`, note, troll)).status, 202);
  await s.drainJobs();
  const stored = s.app.db.prepare("SELECT id FROM statuses WHERE uri = ?").get(`${troll.id}/statuses/1`) as { id: bigint } | undefined;
  assert.ok(stored, "delivered before the suspension");
  clearReceived(r);

  await s.api(staff.mod, "POST", `/api/v1/admin/accounts/${acct.id}/action`, { type: "suspend" });
  await s.drainJobs();
  assert.equal((await s.req(fan, "GET", `/api/v1/statuses/${stored.id}`)).status, 404);
  assert.equal(count("SELECT count(*) AS n FROM follows WHERE account_id = ?", BigInt(acct.id)), 0);
  const [reject] = ofType(r, "Reject");
  assert.ok(reject, "Reject(Follow) sent to the suspended account");
  assert.equal(reject.body.object.actor, troll.id);
  // A later Create is accepted by the inbox (202) and dropped.
  const next = { ...note, id: `${troll.id}/statuses/2/activity`, object: { ...note.object, id: `${troll.id}/statuses/2` } };
  assert.equal((await r.post(`${s.url}/inbox`, next, troll)).status, 202);
  await s.drainJobs();
  assert.equal(s.app.db.prepare("SELECT id FROM statuses WHERE uri = ?").get(`${troll.id}/statuses/2`), undefined);
  // Remote suspensions are ours to lift.
  const lifted = await s.api(staff.mod, "POST", `/api/v1/admin/accounts/${acct.id}/unsuspend`);
  assert.equal(lifted.suspended, false);
});

test("a sensitized account's posts are sensitive to everyone but its author", async () => {
  const pics = await s.user("pics");
  const post = await s.api(pics, "POST", "/api/v1/statuses", { status: "look" });
  assert.equal((await s.api(fan, "GET", `/api/v1/statuses/${post.id}`)).sensitive, false);
  await s.api(staff.mod, "POST", `/api/v1/admin/accounts/${pics.id}/action`, { type: "sensitive" });
  assert.equal((await s.api(fan, "GET", `/api/v1/statuses/${post.id}`)).sensitive, true);
  assert.equal((await s.api(null, "GET", `/api/v1/accounts/${pics.id}/statuses`))[0].sensitive, true, "the cached JSON text path too");
  assert.equal((await s.api(pics, "GET", `/api/v1/statuses/${post.id}`)).sensitive, false, "the author sees the post as posted");
  await s.api(staff.mod, "POST", `/api/v1/admin/accounts/${pics.id}/unsensitive`);
  assert.equal((await s.api(fan, "GET", `/api/v1/statuses/${post.id}`)).sensitive, false);
});
