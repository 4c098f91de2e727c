// Issue 16 part 8 between roost servers over loopback: alice on A moves to alice2 on B through
// the settings pages (alias on B first, then the move on A); a follower on a third server C and
// one on A follow the new account; A's REST and actor show the move. And self-service deletion:
// the password is checked, Delete(actor) reaches every server that knows the account, the
// content goes, the username stays taken.
import assert from "node:assert/strict";
import { test } from "node:test";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { Browser, formWithButton } from "../api/oauth-helpers.ts";
import { appToken } from "../api/accounts-helpers.ts";
import { MIGRATION_COOLDOWN_MS } from "../../src/services/account-migration.ts";

const settle = async (...servers: TestServer[]) => {
  for (let i = 0; i < 5; i++) for (const s of servers) await s.drainJobs();
};
const domainOf = (s: TestServer) => s.app.config.domain;

async function follow(s: TestServer, who: TestUser, acct: string): Promise<string> {
  const target = await s.api(who, "GET", `/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`);
  await s.api(who, "POST", `/api/v1/accounts/${target.id}/follow`);
  return target.id;
}
const relationship = async (s: TestServer, who: TestUser, id: string) => (await s.api(who, "GET", `/api/v1/accounts/relationships?id[]=${id}`))[0];

/** Signs in on `s` and submits the form of `page` that has `button`, with `fields`. */
async function submit(b: Browser, page: string, button: string, fields: Record<string, string>) {
  const got = await b.fetch(page);
  assert.equal(got.status, 200, got.text);
  const form = formWithButton(got.text, button);
  return b.fetch(form.action, { form: { ...form.fields, ...fields } });
}

test("a move from A to B: alias on B, move on A, followers on A and C follow B, a block on D carries over, `moved` shown, cooldown", async (t) => {
  const [A, B, C, D] = await Promise.all([startTestServer(), startTestServer(), startTestServer(), startTestServer()]);
  t.after(() => Promise.all([A.close(), B.close(), C.close(), D.close()]));
  const alice = await A.user("alice"), dave = await A.user("dave");
  const alice2 = await B.user("alice2");
  const carol = await C.user("carol"), eve = await D.user("eve");
  const aliceAcct = `alice@${domainOf(A)}`, alice2Acct = `alice2@${domainOf(B)}`;

  const aliceOnC = await follow(C, carol, aliceAcct);
  const aliceOnA = await follow(A, dave, "alice");
  // eve on D (no follower there) blocks alice: the Move reaches D too, and the block carries over.
  const aliceOnD = (await D.api(eve, "GET", `/api/v1/accounts/lookup?acct=${aliceAcct}`)).id;
  await D.api(eve, "POST", `/api/v1/accounts/${aliceOnD}/block`);
  await settle(A, C, D);
  assert.equal((await relationship(C, carol, aliceOnC)).following, true);

  // On A: a move to B before B lists alice is refused with the reason.
  const a = new Browser(A.url);
  assert.equal((await a.signIn("alice")).status, 302);
  const early = await submit(a, "/settings/migration", "Move followers", { acct: alice2Acct, current_password: "correct horse battery" });
  assert.equal(early.status, 422);
  assert.match(early.text, /must first list this one as an alias/);

  // On B: alice2 lists alice@A as an alias (resolved over WebFinger); the actor shows it.
  const b = new Browser(B.url);
  assert.equal((await b.signIn("alice2")).status, 302);
  assert.equal((await b.fetch("/settings/aliases", { form: { acct: aliceAcct } })).status, 422, "no CSRF token: refused");
  const added = await submit(b, "/settings/aliases", "Create alias", { acct: `@${aliceAcct}` });
  assert.deepEqual([added.status, added.location], [302, "/settings/aliases"]);
  const aliceUri = `${A.url}/users/alice`;
  const actorB = await (await fetch(`${B.url}/users/alice2`, { headers: { accept: "application/activity+json" } })).json();
  assert.deepEqual(actorB.alsoKnownAs, [aliceUri]);
  assert.match((await b.fetch("/settings/aliases")).text, new RegExp(aliceAcct.replace(/\./g, "\\.")));

  // Wrong password: refused, nothing moved.
  const wrong = await submit(a, "/settings/migration", "Move followers", { acct: alice2Acct, current_password: "not it" });
  assert.equal(wrong.status, 422);
  assert.match(wrong.text, /Current password is invalid/);
  assert.equal((await A.api(alice, "GET", "/api/v1/accounts/verify_credentials")).moved ?? null, null);

  const moved = await submit(a, "/settings/migration", "Move followers", { acct: alice2Acct, current_password: "correct horse battery" });
  assert.deepEqual([moved.status, moved.location], [302, "/settings/migration"]);
  await settle(A, B, C, D);

  // A: the account is marked moved, in REST and in its actor; dave (local) now follows B's alice2.
  const shown = await A.api(dave, "GET", `/api/v1/accounts/${aliceOnA}`);
  assert.equal(shown.moved?.acct, alice2Acct);
  const actorA = await (await fetch(aliceUri, { headers: { accept: "application/activity+json" } })).json();
  assert.equal(actorA.movedTo, `${B.url}/users/alice2`);
  const alice2OnA = (await A.api(dave, "GET", `/api/v1/accounts/lookup?acct=${alice2Acct}`)).id;
  assert.deepEqual([(await relationship(A, dave, alice2OnA)).following, (await relationship(A, dave, aliceOnA)).following], [true, false]);
  // C received the Move: carol follows alice2 on B and no longer alice.
  const alice2OnC = (await C.api(carol, "GET", `/api/v1/accounts/lookup?acct=${alice2Acct}`)).id;
  assert.deepEqual([(await relationship(C, carol, alice2OnC)).following, (await relationship(C, carol, aliceOnC)).following], [true, false]);
  assert.equal((await C.api(carol, "GET", `/api/v1/accounts/${aliceOnC}`)).moved?.acct, alice2Acct);
  const alice2OnD = (await D.api(eve, "GET", `/api/v1/accounts/lookup?acct=${alice2Acct}`)).id;
  assert.equal((await relationship(D, eve, alice2OnD)).blocking, true);
  // B sees both followers.
  const followersOnB = await B.api(alice2, "GET", `/api/v1/accounts/${(await B.api(alice2, "GET", "/api/v1/accounts/verify_credentials")).id}/followers`);
  assert.deepEqual(followersOnB.map((x: any) => x.acct).sort(), [`carol@${domainOf(C)}`, `dave@${domainOf(A)}`].sort());
  assert.match((await a.fetch("/settings/migration")).text, /This account has moved to <strong>@alice2@/);

  // Cooldown: 30 days (AccountMigration::COOLDOWN_PERIOD); the page shows the date instead of the form.
  const page = await a.fetch("/settings/migration");
  assert.match(page.text, /You can move again after/);
  const at = A.app.now() + MIGRATION_COOLDOWN_MS + 1000;
  A.app.now = () => at;
  assert.doesNotMatch((await a.fetch("/settings/migration")).text, /You can move again after/);
});

test("self-service deletion: password checked, Delete(actor) federated, content removed, username kept", async (t) => {
  const [A, B, C] = await Promise.all([startTestServer(), startTestServer(), startTestServer()]);
  t.after(() => Promise.all([A.close(), B.close(), C.close()]));
  const erin = await A.user("erin");
  const bob = await B.user("bob");
  const carol = await C.user("carol");
  await follow(B, bob, `erin@${domainOf(A)}`);
  const erinOnC = await follow(C, carol, `erin@${domainOf(A)}`);
  await settle(A, B, C);
  const post = await A.api(erin, "POST", "/api/v1/statuses", { status: "soon gone" });
  await settle(A, B, C);
  const [seen] = await B.api(bob, "GET", "/api/v1/timelines/home");
  assert.equal(seen.uri, post.uri);
  // carol on C stops following erin: C keeps the post and is no follower, but A knows C.
  const [seenOnC] = await C.api(carol, "GET", `/api/v1/accounts/${erinOnC}/statuses`);
  assert.equal(seenOnC.uri, post.uri);
  await C.api(carol, "POST", `/api/v1/accounts/${erinOnC}/unfollow`);
  await settle(A, C);

  const br = new Browser(A.url);
  assert.equal((await br.signIn("erin")).status, 302);
  const wrong = await submit(br, "/settings/delete", "Delete account", { password: "nope" });
  assert.equal(wrong.status, 422);
  assert.match(wrong.text, /Current password is invalid/);
  assert.equal((await A.api(erin, "GET", `/api/v1/statuses/${post.id}`)).id, post.id, "nothing deleted");
  assert.equal((await br.fetch("/settings/delete", { form: { password: "correct horse battery" } })).status, 422, "no CSRF token: refused");

  const done = await submit(br, "/settings/delete", "Delete account", { password: "correct horse battery" });
  assert.equal(done.status, 200);
  assert.match(done.text, /Account deleted/);
  assert.equal((await br.fetch("/settings/delete")).status, 302, "signed out");
  await settle(A, B, C);

  // A: the posts are gone, the token no longer works.
  const gone = await A.req(null, "GET", `/api/v1/statuses/${post.id}`);
  assert.equal(gone.status, 404);
  assert.equal((await A.req(erin.token, "GET", "/api/v1/accounts/verify_credentials")).status, 403);
  // B received Delete(actor): the post and the follow are gone.
  assert.equal((await B.req(bob.token, "GET", `/api/v1/statuses/${seen.id}`)).status, 404);
  assert.deepEqual(await B.api(bob, "GET", "/api/v1/timelines/home"), []);
  // C, which knows erin but no longer follows her, got the Delete too (every known inbox).
  assert.equal((await C.req(carol.token, "GET", `/api/v1/statuses/${seenOnC.id}`)).status, 404);
  // The username stays taken for sign-up.
  const { token } = appToken(A, ["read", "write"]);
  const signUp = await A.req(token, "POST", "/api/v1/accounts", { username: "erin", email: "erin2@mail.example", password: "long enough pw", agreement: true, locale: "en" });
  assert.equal(signUp.status, 422);
  assert.equal(signUp.body.details.username[0].error, "ERR_TAKEN");
});
