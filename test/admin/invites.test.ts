// Invites: created by users whose role may invite (and the admin's settings), used up or
// expired, expired at once by their creator or manage_invites with the record kept, used at
// sign-up (skipping approval while the inviter may invite), GET /invite/:code, the audit log.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { makeActor } from "../../src/admin/actor.ts";
import { createInvite, expireInvite, listInvitesFor, requireInvite } from "../../src/admin/invites.ts";
import { changeSetting } from "../../src/admin/settings.ts";
import { resetRegistrationRate } from "../../src/services/registration.ts";
import { findInviteById } from "../../src/storage/invites.ts";
import { findUserByEmail } from "../../src/storage/users.ts";
import { findFollow } from "../../src/storage/follows.ts";
import { ApiError } from "../../src/errors.ts";
import { appToken } from "../api/accounts-helpers.ts";
import { lastAudit } from "./admin-helpers.ts";
import { Browser, formWithButton, PASSWORD } from "../api/oauth-helpers.ts";

const actorOf = (s: TestServer, u: TestUser) => makeActor(s.app, u.user, u.account, "api");
const signUp = (s: TestServer, token: string, name: string, extra: Record<string, unknown> = {}) => {
  resetRegistrationRate(s.app);
  return s.req(token, "POST", "/api/v1/accounts", { username: name, email: `${name}@mail.example`, password: "long enough pw", agreement: true, locale: "en", ...extra });
};
const rejects422 = (fn: () => unknown, field: string) =>
  assert.throws(fn, (e: unknown) => e instanceof ApiError && e.status === 422 && Object.hasOwn(e.details ?? {}, field), `422 on ${field}`);
const rejects403 = (fn: () => unknown) => assert.throws(fn, (e: unknown) => e instanceof ApiError && e.status === 403);

test("invite rules: who may create, bad input, settings, expiring keeps the record, the audit log", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const owner = await s.user("owner", { role: "owner" });
  const mod = await s.user("mod", { role: "moderator" });
  const admin = await s.user("admin", { role: "admin" });
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const t0 = s.app.now();
  s.app.now = () => t0;

  // Everyone's role has invite_users (Mastodon's default).
  const inv = createInvite(s.app, actorOf(s, alice), { maxUses: 3, expiresIn: 604800, comment: "  for the book club " });
  assert.match(inv.code, /^[a-km-zA-HJ-NP-Z2-9]{8}$/);
  assert.equal(inv.maxUses, 3);
  assert.equal(inv.expiresAt, s.app.now() + 604800_000);
  assert.equal(inv.comment, "for the book club");
  const created = lastAudit(s, "create");
  assert.equal(created.targetType, "Invite");
  assert.equal(created.targetId, inv.id);
  assert.equal(created.actorName, "alice");
  assert.deepEqual(created.changes.max_uses, [null, 3]);
  assert.deepEqual(created.changes.code, [null, inv.code]);

  // Bad input: each a 422 naming the field, nothing written.
  rejects422(() => createInvite(s.app, actorOf(s, alice), { maxUses: 0 }), "max_uses");
  rejects422(() => createInvite(s.app, actorOf(s, alice), { maxUses: -5 }), "max_uses");
  rejects422(() => createInvite(s.app, actorOf(s, alice), { maxUses: 2.5 }), "max_uses");
  rejects422(() => createInvite(s.app, actorOf(s, alice), { expiresIn: 60 }), "expires_in");
  rejects422(() => createInvite(s.app, actorOf(s, alice), { comment: "x".repeat(1_000_000) }), "comment");
  assert.equal(listInvitesFor(s.app, actorOf(s, alice)).length, 1);

  // Unlimited and never-expiring by default.
  const open = createInvite(s.app, actorOf(s, bob), {});
  assert.equal(open.maxUses, null);
  assert.equal(open.expiresAt, null);

  // Listing: one's own; everyone's only with manage_invites (Admin has it, Moderator not).
  assert.deepEqual(listInvitesFor(s.app, actorOf(s, bob)).map((i) => i.id), [open.id]);
  rejects403(() => listInvitesFor(s.app, actorOf(s, bob), { all: true }));
  rejects403(() => listInvitesFor(s.app, actorOf(s, mod), { all: true }));
  assert.deepEqual(listInvitesFor(s.app, actorOf(s, admin), { all: true }).map((i) => i.id), [open.id, inv.id]);

  // Expiring: not someone else's invite, unless one may manage invites; the row stays.
  rejects403(() => expireInvite(s.app, actorOf(s, bob), inv));
  rejects403(() => expireInvite(s.app, actorOf(s, mod), inv));
  const expired = expireInvite(s.app, actorOf(s, admin), inv);
  assert.equal(expired.expiresAt, s.app.now());
  assert.equal(findInviteById(s.app.db, inv.id)?.expiresAt, s.app.now(), "the record is kept");
  const exp = lastAudit(s, "expire");
  assert.equal(exp.actorName, "admin");
  assert.equal(exp.targetId, inv.id);
  assert.deepEqual(exp.changes.expires_at, [new Date(inv.expiresAt!).toISOString(), new Date(s.app.now()).toISOString()]);
  assert.deepEqual(listInvitesFor(s.app, actorOf(s, admin), { all: true, state: "expired" }).map((i) => i.id), [inv.id]);
  assert.deepEqual(listInvitesFor(s.app, actorOf(s, admin), { all: true, state: "available" }).map((i) => i.id), [open.id]);
  assert.equal(requireInvite(s.app, open.code).id, open.id);
  assert.throws(() => requireInvite(s.app, "nope"), (e: unknown) => e instanceof ApiError && e.status === 404);
  assert.throws(() => requireInvite(s.app, "x".repeat(100_000)), (e: unknown) => e instanceof ApiError && e.status === 404);

  // Settings: invites off refuses everyone; a minimum role refuses those below it.
  const ownerActor = actorOf(s, owner);
  rejects403(() => changeSetting(s.app, actorOf(s, mod), "invites", "off")); // manage_settings: admins only
  changeSetting(s.app, ownerActor, "invites", "off");
  assert.deepEqual(lastAudit(s, "update").changes, { invites: ["on", "off"] });
  rejects403(() => createInvite(s.app, actorOf(s, alice), {}));
  rejects403(() => createInvite(s.app, ownerActor, {}));
  changeSetting(s.app, ownerActor, "invites", "on");
  changeSetting(s.app, ownerActor, "invites-min-role", "Moderator");
  assert.deepEqual(lastAudit(s, "update").changes, { "invites-min-role": ["everyone", "Moderator"] });
  rejects403(() => createInvite(s.app, actorOf(s, alice), {}));
  assert.ok(createInvite(s.app, actorOf(s, mod), {}).code);
  assert.throws(() => changeSetting(s.app, ownerActor, "invites-min-role", "no such role"), (e: unknown) => e instanceof ApiError && e.status === 404);
});

test("sign-up with invite_code: approval skipped by invite_bypass_approval, uses counted, used up, expired and unknown codes refused", async (t) => {
  const s = await startTestServer({ init: { registrations: "approval" } });
  t.after(() => s.close());
  const alice = await s.user("alice");
  const mod = await s.user("mod", { role: "moderator" });
  const { token } = appToken(s, ["read", "write"]);
  const twice = createInvite(s.app, actorOf(s, mod), { maxUses: 2, expiresIn: 1800, autofollow: true });

  const r1 = await signUp(s, token, "first", { invite_code: twice.code });
  assert.equal(r1.status, 200, r1.text);
  const first = findUserByEmail(s.app.db, "first@mail.example")!;
  assert.equal(first.approved, true, "an invite from a role with invite_bypass_approval skips approval");
  assert.equal(first.invitedByAccountId, mod.id);
  assert.equal(findInviteById(s.app.db, twice.id)?.uses, 1);
  // autofollow: the newcomer follows the inviter.
  assert.ok(findFollow(s.app.db, first.accountId, mod.id), "first follows mod");

  // Without a code the same server holds the sign-up for approval.
  assert.equal((await signUp(s, token, "plainjoe")).status, 200);
  assert.equal(findUserByEmail(s.app.db, "plainjoe@mail.example")!.approved, false);

  assert.equal((await signUp(s, token, "second", { invite_code: twice.code })).status, 200);
  assert.equal(findInviteById(s.app.db, twice.id)?.uses, 2);
  // Used up.
  const third = await signUp(s, token, "third", { invite_code: twice.code });
  assert.equal(third.status, 403);
  assert.deepEqual(third.body, { error: "Forbidden" });
  assert.equal(findUserByEmail(s.app.db, "third@mail.example"), undefined);
  assert.equal(findInviteById(s.app.db, twice.id)?.uses, 2);

  // Expired by time, expired by its creator, unknown, huge: all refused, nothing created.
  const timed = createInvite(s.app, actorOf(s, alice), { expiresIn: 1800 });
  const deleted = createInvite(s.app, actorOf(s, alice), {});
  expireInvite(s.app, actorOf(s, alice), deleted);
  const now = s.app.now();
  s.app.now = () => now + 1800_000;
  for (const code of [timed.code, deleted.code, "zzzzzzzz", "x".repeat(200_000)]) {
    const r = await signUp(s, token, "late", { invite_code: code });
    assert.equal(r.status, 403, code.slice(0, 20));
  }
  assert.equal(findUserByEmail(s.app.db, "late@mail.example"), undefined);

  // Closed registrations: a valid invite still opens the door, nothing else does.
  s.app.config.registrations = "closed";
  const fresh = createInvite(s.app, actorOf(s, alice), { maxUses: 1 });
  assert.equal((await signUp(s, token, "closedno")).status, 403);
  assert.equal((await signUp(s, token, "closedyes", { invite_code: fresh.code })).status, 200);

  // Mastodon 4.5: invite_users lets a member invite, not admit. An ordinary member's invitee
  // (the everyone role holds invite_users only) waits for approval...
  s.app.config.registrations = "approval";
  const members = createInvite(s.app, actorOf(s, alice), { maxUses: 2 });
  assert.equal((await signUp(s, token, "pending1", { invite_code: members.code })).status, 200);
  assert.equal(findUserByEmail(s.app.db, "pending1@mail.example")!.approved, false);
  // ...until the admin grants everyone "Invite Users without review".
  s.app.db.prepare("UPDATE user_roles SET permissions = permissions | ? WHERE id = -99").run(1 << 21);
  assert.equal((await signUp(s, token, "admitted1", { invite_code: members.code })).status, 200);
  assert.equal(findUserByEmail(s.app.db, "admitted1@mail.example")!.approved, true);
  // The bypass is the inviter's role alone: it holds while invites are switched off.
  const later = createInvite(s.app, actorOf(s, mod), {});
  const owner = await s.user("owner", { role: "owner" });
  changeSetting(s.app, actorOf(s, owner), "invites", "off");
  assert.equal((await signUp(s, token, "admitted2", { invite_code: later.code })).status, 200);
  assert.equal(findUserByEmail(s.app.db, "admitted2@mail.example")!.approved, true);
});

test("GET /invite/:code: JSON for apps, an HTML page for browsers, 404 unknown, 401 not valid", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const inv = createInvite(s.app, actorOf(s, alice), { maxUses: 1 });
  const json = { accept: "application/json" };

  const ok = await s.req(null, "GET", `/invite/${inv.code}`, undefined, json);
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body, { invite_code: inv.code, instance_api_url: `${s.url}/api/v2/instance` });
  assert.deepEqual((await s.req(null, "GET", `/invite/${inv.code}.json`)).body, ok.body);

  const page = await s.req(null, "GET", `/invite/${inv.code}`, undefined, { accept: "text/html" });
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-type") ?? "", /text\/html/);
  assert.ok(page.text.includes(inv.code) && page.text.includes("@alice"));

  const unknown = await s.req(null, "GET", "/invite/nosuchcode", undefined, json);
  assert.equal(unknown.status, 404);
  assert.deepEqual(unknown.body, { error: "Record not found" });
  assert.equal((await s.req(null, "GET", `/invite/${"y".repeat(5000)}`, undefined, json)).status, 404);

  expireInvite(s.app, actorOf(s, alice), inv);
  const gone = await s.req(null, "GET", `/invite/${inv.code}`, undefined, json);
  assert.equal(gone.status, 401);
  assert.deepEqual(gone.body, { error: "This invite is not valid" });
});

test("the /invites page: a signed-in user creates and expires their own invite links (CSRF, sign-in, refusals)", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice", { password: PASSWORD });
  const b = new Browser(s.url);
  // Not signed in: to the sign-in page, coming back here.
  const anon = await b.fetch("/invites");
  assert.equal(anon.status, 302);
  assert.equal(anon.location, "/auth/sign_in?return_to=%2Finvites");
  assert.equal((await b.signIn("alice")).status, 302);

  const page = await b.fetch("/invites");
  assert.equal(page.status, 200);
  assert.match(page.text, /No invites yet/);
  const form = formWithButton(page.text, "Generate invite link");
  // Without the CSRF token: refused, nothing made.
  assert.equal((await b.fetch("/invites", { form: { "invite[max_uses]": "5" } })).status, 422);
  const bad = await b.fetch("/invites", { form: { ...form.fields, "invite[max_uses]": "-1", "invite[expires_in]": "" } });
  assert.equal(bad.status, 422);
  assert.match(bad.text, /Max uses must be a whole number/);
  const made = await b.fetch("/invites", { form: { ...form.fields, "invite[max_uses]": "5", "invite[expires_in]": "86400", "invite[autofollow]": "1", "invite[comment]": "hi" } });
  assert.deepEqual([made.status, made.location], [302, "/invites"]);
  const [inv] = listInvitesFor(s.app, actorOf(s, alice));
  assert.deepEqual([inv.maxUses, inv.expiresAt! - inv.createdAt, inv.autofollow, inv.comment], [5, 86400_000, true, "hi"]);
  assert.equal(lastAudit(s, "create").targetId, inv.id);

  const listed = await b.fetch("/invites");
  assert.ok(listed.text.includes(`${s.url}/invite/${inv.code}`));
  // Someone else's invite cannot be expired from here; one's own can.
  const bob = await s.user("bob");
  const bobs = createInvite(s.app, actorOf(s, bob), {});
  const expireForm = formWithButton(listed.text, "Expire");
  assert.equal((await b.fetch(`/invites/${bobs.id}/expire`, { form: expireForm.fields })).status, 403);
  assert.equal(findInviteById(s.app.db, bobs.id)?.expiresAt, null);
  assert.equal((await b.fetch(`/invites/${inv.id}/expire`, { form: expireForm.fields })).status, 302);
  assert.ok(findInviteById(s.app.db, inv.id)!.expiresAt! <= s.app.now());
  assert.equal((await b.fetch(`/invites/nosuch/expire`, { form: expireForm.fields })).status, 404);

  // Invites off: the page says so and creating is refused.
  const owner = await s.user("owner", { role: "owner" });
  changeSetting(s.app, actorOf(s, owner), "invites", "off");
  const off = await b.fetch("/invites");
  assert.match(off.text, /not open to your role/);
  assert.equal((await b.fetch("/invites", { form: { ...form.fields, "invite[max_uses]": "" } })).status, 403);
});
