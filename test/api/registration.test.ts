import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { resetRegistrationRate } from "../../src/services/registration.ts";
import { confirmUser } from "../../src/services/users.ts";
import { findUserByEmail } from "../../src/storage/users.ts";
import { appToken } from "./accounts-helpers.ts";

const signUp = (s: TestServer, token: string | null, body: Record<string, unknown>) => s.req(token, "POST", "/api/v1/accounts", body);
const valid = (name: string) => ({ username: name, email: `${name}@mail.example`, password: "long enough pw", agreement: true, locale: "en" });

test("open registrations: the token is refused until the e-mail address is confirmed, then works", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const { token, applicationId } = appToken(s, ["read", "write", "follow"]);
  const before = Math.floor(Date.now() / 1000);
  const r = await signUp(s, token, { ...valid("newbie"), reason: "hi" });
  assert.equal(r.status, 200);
  assert.deepEqual(Object.keys(r.body).sort(), ["access_token", "created_at", "scope", "token_type"]);
  assert.equal(r.body.token_type, "Bearer");
  assert.equal(r.body.scope, "read write follow");
  assert.equal(typeof r.body.created_at, "number");
  assert.ok(r.body.created_at >= before - 1);
  assert.equal(r.headers.get("cache-control"), "private, no-store");
  const user = findUserByEmail(s.app.db, "newbie@mail.example")!;
  assert.equal(user.confirmedAt, null, "anyone can type someone else's address");
  assert.equal(user.approved, true);
  assert.equal(user.locale, "en");
  assert.equal(user.createdByAppId, applicationId);
  assert.equal(user.roleId, null);

  // Mastodon's require_user!: every endpoint that acts or reads as the user answers 403.
  const newbie = r.body.access_token;
  const unconfirmed = { error: "Your login is missing a confirmed e-mail address" };
  for (const [method, path, body] of [
    ["GET", "/api/v1/accounts/verify_credentials"],
    ["PATCH", "/api/v1/accounts/update_credentials", { display_name: "Someone else" }],
    ["POST", "/api/v1/statuses", { status: "hello" }],
    ["GET", "/api/v1/timelines/home"],
    ["GET", "/api/v1/notifications"],
  ] as const) {
    const res = await s.req(newbie, method, path, body);
    assert.equal(res.status, 403, path);
    assert.deepEqual(res.body, unconfirmed, path);
  }
  // The app's own check needs no user (Mastodon: doorkeeper_authorize! only).
  assert.equal((await s.api(newbie, "GET", "/api/v1/apps/verify_credentials")).name, "Test client");
  // Nobody else sees the account yet.
  assert.equal((await s.req(null, "GET", `/api/v1/accounts/${user.accountId}`)).status, 404);
  assert.deepEqual((await s.api((await s.user("alice")).token, "GET", "/api/v2/search?q=newbie&type=accounts")).accounts, []);

  // Once confirmed (`roost user confirm` calls this), the same token works.
  assert.equal(confirmUser(s.app, "newbie")?.changed, true);
  assert.equal(confirmUser(s.app, "newbie")?.changed, false);
  assert.equal(confirmUser(s.app, "nobody"), undefined);
  const me = await s.api(newbie, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(me.username, "newbie");
  assert.equal(me.acct, "newbie");
  assert.equal((await s.api(null, "GET", `/api/v1/accounts/${user.accountId}`)).username, "newbie");

  // agreement accepts "1" and "true" from forms; form encoding works as JSON does.
  const form = new URLSearchParams({ username: "formuser", email: "f@mail.example", password: "long enough pw", agreement: "1" });
  assert.equal((await s.req(token, "POST", "/api/v1/accounts", form)).status, 200);
});

test("registration validation: Mastodon's 422 details", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const { token } = appToken(s, ["write:accounts"]);
  await s.user("taken");

  const noAgreement = await signUp(s, token, { ...valid("carl"), agreement: false });
  assert.equal(noAgreement.status, 422);
  assert.deepEqual(noAgreement.body, {
    error: "Validation failed: Agreement must be accepted",
    details: { agreement: [{ error: "ERR_ACCEPTED", description: "must be accepted" }] },
  });
  const many = await signUp(s, token, { username: "taken", email: "not-an-email", password: "short", agreement: "yes" });
  assert.equal(many.status, 422);
  assert.deepEqual(Object.keys(many.body.details).sort(), ["agreement", "email", "password", "username"]);
  assert.equal(many.body.details.username[0].error, "ERR_TAKEN");
  assert.equal(many.body.details.email[0].error, "ERR_INVALID");
  assert.equal(many.body.details.password[0].error, "ERR_TOO_SHORT");
  assert.equal(many.body.details.agreement[0].error, "ERR_ACCEPTED");
  resetRegistrationRate(s.app);
  const reserved = await signUp(s, token, valid("admin"));
  assert.equal(reserved.body.details.username[0].error, "ERR_RESERVED");
  const blank = await signUp(s, token, { agreement: true });
  assert.deepEqual(Object.keys(blank.body.details).sort(), ["email", "password", "username"]);
  assert.equal(blank.body.details.password[0].error, "ERR_BLANK");
  assert.equal(findUserByEmail(s.app.db, "carl@mail.example"), undefined);
});

test("approval mode: created unconfirmed and unapproved; once confirmed, user endpoints answer 403 pending approval", async (t) => {
  const s = await startTestServer({ init: { registrations: "approval" } });
  t.after(() => s.close());
  const { token } = appToken(s);
  const r = await signUp(s, token, { ...valid("waiting"), reason: "I would like to join" });
  assert.equal(r.status, 200);
  const user = findUserByEmail(s.app.db, "waiting@mail.example")!;
  assert.equal(user.approved, false);
  assert.equal(user.reason, "I would like to join");
  // Mastodon checks the confirmation first, then the approval.
  const me = await s.req(r.body.access_token, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(me.status, 403);
  assert.deepEqual(me.body, { error: "Your login is missing a confirmed e-mail address" });
  confirmUser(s.app, "waiting");
  for (const [method, path] of [
    ["GET", "/api/v1/accounts/verify_credentials"],
    ["POST", "/api/v1/statuses"],
    ["GET", "/api/v1/timelines/home"],
  ] as const) {
    const res = await s.req(r.body.access_token, method, path, method === "POST" ? { status: "hi" } : undefined);
    assert.equal(res.status, 403, path);
    assert.deepEqual(res.body, { error: "Your login is currently pending approval" }, path);
  }
  // Not visible to others either.
  assert.equal((await s.req(null, "GET", `/api/v1/accounts/${user.accountId}`)).status, 404);
});

test("closed registrations, token kinds, scopes and the rate limit", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const { token } = appToken(s, ["read", "write"]);
  const alice = await s.user("alice");

  const withUser = await signUp(s, alice.token, valid("viauser"));
  assert.equal(withUser.status, 403);
  assert.deepEqual(withUser.body, { error: "This method requires an client credentials authentication" });
  assert.equal((await signUp(s, null, valid("anon"))).status, 401);
  const readOnly = appToken(s, ["read"]);
  const scopeless = await signUp(s, readOnly.token, valid("readonly"));
  assert.equal(scopeless.status, 403);
  assert.deepEqual(scopeless.body, { error: "This action is outside the authorized scopes" });

  resetRegistrationRate(s.app);
  s.app.config.registrations = "closed";
  const closed = await signUp(s, token, valid("closedout"));
  assert.equal(closed.status, 403);
  assert.deepEqual(closed.body, { error: "Forbidden" });
  s.app.config.registrations = "open";

  // Five attempts per IP per 30 minutes, whatever their outcome; the sixth is refused.
  for (let i = 0; i < 4; i++) assert.equal((await signUp(s, token, valid(`user${i}`))).status, 200);
  const limited = await signUp(s, token, valid("user9"));
  assert.equal(limited.status, 429);
  assert.deepEqual(limited.body, { error: "Too many requests" });
  assert.equal(limited.headers.get("x-ratelimit-limit"), "5");
  assert.equal(limited.headers.get("x-ratelimit-remaining"), "0");
  assert.match(limited.headers.get("x-ratelimit-reset")!, /^\d{4}-\d\d-\d\dT\d\d:[03]0:00\.000000Z$/);
  assert.equal(findUserByEmail(s.app.db, "user9@mail.example"), undefined);
});
