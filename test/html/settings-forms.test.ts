// Settings → Profile, Preferences and Account (issue 16 part 1): each form's round trip shows
// in the API afterwards; a form without the CSRF token is refused; changing the password needs
// the current one and signs the other sessions out. Also GET /api/v1/accounts/:id/identity_proofs.
import assert from "node:assert/strict";
import { test } from "node:test";
import sharp from "sharp";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { sessionToken } from "../../src/services/web-sessions.ts";
import { findWebSessionByHash } from "../../src/storage/web-sessions.ts";
import { Browser, PASSWORD, formWithButton } from "../api/oauth-helpers.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { linkIn, mailTo } from "../api/mail-helpers.ts";

async function signedIn(s: TestServer, login: string, password = PASSWORD): Promise<Browser> {
  const b = new Browser(s.url);
  const res = await b.signIn(login, password);
  assert.equal(res.status, 302, res.text);
  return b;
}

function tokenOf(s: TestServer, b: Browser): string {
  const session = findWebSessionByHash(s.app.db, sha256Hex(decodeURIComponent(b.cookies.get("roost_session")!)));
  assert.ok(session);
  return sessionToken(s.app, session)!;
}

test("the profile form round trip: text, fields, flags and an avatar show in the API", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const b = await signedIn(s, "alice");
  const index = await b.fetch("/settings");
  assert.deepEqual([index.status, index.location], [302, "/settings/profile"]);
  const page = await b.fetch("/settings/profile");
  assert.equal(page.status, 200, page.text);
  for (const id of ["display_name", "note", "avatar", "header", "field-0-name", "locked", "bot", "discoverable", "indexable", "hide_collections"])
    assert.match(page.text, new RegExp(`<label[^>]* for="${id}"`), `${id} is labelled`);
  assert.match(page.text, /<a href="\/settings\/profile" aria-current="page">Profile<\/a>/);
  const { fields } = formWithButton(page.text, "Save changes");

  // A CSRF-less post changes nothing.
  const forged = await b.fetch("/settings/profile", { form: { display_name: "Mallory" } });
  assert.equal(forged.status, 422);

  const form = new FormData();
  for (const [k, v] of Object.entries({ ...fields, display_name: "Alice A.", note: "Hello #world", "fields_attributes[0][name]": "Web", "fields_attributes[0][value]": "example.org", locked: "1", bot: "1" }))
    form.append(k, v);
  const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#c33" } }).png().toBuffer();
  form.append("avatar", new Blob([png], { type: "image/png" }), "me.png");
  form.append("header", new Blob([], { type: "application/octet-stream" }), "");
  const res = await fetch(`${s.url}/settings/profile`, {
    method: "POST",
    body: form,
    redirect: "manual",
    headers: { cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join("; ") },
  });
  assert.deepEqual([res.status, res.headers.get("location")], [302, "/settings/profile?notice=saved"], await res.text());

  const me = await s.api(alice, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(me.display_name, "Alice A.");
  assert.equal(me.source.note, "Hello #world");
  assert.deepEqual(me.source.fields.map((f: { name: string; value: string }) => [f.name, f.value]), [["Web", "example.org"]]);
  assert.deepEqual([me.locked, me.bot, me.discoverable, me.indexable, me.hide_collections], [true, true, false, false, false]);
  assert.doesNotMatch(me.avatar, /missing/, `avatar stored: ${me.avatar}`);
  assert.equal((await fetch(me.avatar)).status, 200);

  // Unticking a box turns the flag off; a too-long name comes back on the form with the error.
  const again = formWithButton((await b.fetch("/settings/profile?notice=saved")).text, "Save changes");
  const bad = await b.fetch("/settings/profile", { form: { ...again.fields, display_name: "x".repeat(31), locked: "1" } });
  assert.equal(bad.status, 422);
  assert.match(bad.text, /display name is too long \(maximum is 30 characters\)/);
  const ok = await b.fetch("/settings/profile", { form: { ...again.fields, display_name: "Alice" } });
  assert.equal(ok.status, 302);
  const after = await s.api(alice, "GET", "/api/v1/accounts/verify_credentials");
  assert.deepEqual([after.display_name, after.locked, after.bot, after.source.note], ["Alice", false, false, "Hello #world"]);
});

test("the preferences form round trip shows in /api/v1/preferences", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const b = await signedIn(s, "alice");
  const page = await b.fetch("/settings/preferences");
  assert.match(page.text, /<option value="de">German \(de\)<\/option>/);
  const { fields } = formWithButton(page.text, "Save changes");
  assert.equal((await b.fetch("/settings/preferences", { form: { "source[privacy]": "private" } })).status, 422, "no CSRF token");
  const res = await b.fetch("/settings/preferences", { form: { ...fields, "source[privacy]": "private", "source[language]": "de", sensitive: "1" } });
  assert.deepEqual([res.status, res.location], [302, "/settings/preferences?notice=saved"]);
  const prefs = await s.api(alice, "GET", "/api/v1/preferences");
  assert.deepEqual(
    [prefs["posting:default:visibility"], prefs["posting:default:language"], prefs["posting:default:sensitive"]],
    ["private", "de", true],
  );
  const bad = await b.fetch("/settings/preferences", { form: { ...fields, "source[privacy]": "direct" } });
  assert.equal(bad.status, 422);
  assert.equal((await s.api(alice, "GET", "/api/v1/preferences"))["posting:default:visibility"], "private");
});

test("changing the password needs the current one and signs the other sessions out", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const here = await signedIn(s, "alice");
  const there = await signedIn(s, "alice");
  const [hereToken, thereToken] = [tokenOf(s, here), tokenOf(s, there)];
  const page = await here.fetch("/settings/account");
  assert.equal(page.status, 200);
  const { fields } = formWithButton(page.text, "Change password");
  const NEW = "a much better passphrase";

  assert.equal((await here.fetch("/settings/account/password", { form: { current_password: PASSWORD, password: NEW, password_confirmation: NEW } })).status, 422, "no CSRF token");
  const wrong = await here.fetch("/settings/account/password", { form: { ...fields, current_password: "nope", password: NEW, password_confirmation: NEW } });
  assert.equal(wrong.status, 422);
  assert.match(wrong.text, /Current password is invalid/);
  const mismatch = await here.fetch("/settings/account/password", { form: { ...fields, current_password: PASSWORD, password: NEW, password_confirmation: "other" } });
  assert.match(mismatch.text, /Password confirmation doesn&#39;t match Password/);
  assert.equal((await new Browser(s.url).signIn("alice", NEW)).status, 422, "still the old password");

  const res = await here.fetch("/settings/account/password", { form: { ...fields, current_password: PASSWORD, password: NEW, password_confirmation: NEW } });
  assert.deepEqual([res.status, res.location], [302, "/settings/account?notice=password"]);
  const status = (token: string) => s.req(token, "GET", "/api/v1/accounts/verify_credentials").then((r) => r.status);
  assert.deepEqual([await status(hereToken), await status(thereToken), await status(alice.token)], [200, 401, 200]);
  assert.equal((await new Browser(s.url).signIn("alice", PASSWORD)).status, 422);
  assert.equal((await new Browser(s.url).signIn("alice", NEW)).status, 302);
  assert.match((await here.fetch("/settings/delete")).text, /<form method="post" action="\/settings\/delete">/);
});

test("settings pages send a signed-out browser to sign in and back", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  for (const path of ["/settings", "/settings/profile", "/settings/preferences", "/settings/account", "/settings/sessions", "/settings/applications", "/settings/delete"]) {
    const res = await fetch(`${s.url}${path}`, { redirect: "manual" });
    assert.deepEqual([res.status, res.headers.get("location")], [302, `/auth/sign_in?return_to=${encodeURIComponent(path)}`], path);
  }
});

test("identity proofs: always an empty list, for a signed-in user", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const res = await s.req(alice, "GET", `/api/v1/accounts/${alice.id}/identity_proofs`);
  assert.deepEqual([res.status, res.body], [200, []]);
  assert.equal(res.headers.get("deprecation"), "@1648598400");
  assert.equal((await s.req(null, "GET", `/api/v1/accounts/${alice.id}/identity_proofs`)).status, 401);
});

test("changing the e-mail address: current password required, a link to the new address confirms it", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  await s.user("bob");
  const b = await signedIn(s, "alice");
  const { fields } = formWithButton((await b.fetch("/settings/account")).text, "Change e-mail address");
  assert.equal((await b.fetch("/settings/account/email", { form: { email: "new@mail.example", current_password: PASSWORD } })).status, 422, "no CSRF token");
  const wrong = await b.fetch("/settings/account/email", { form: { ...fields, email: "new@mail.example", current_password: "nope" } });
  assert.match(wrong.text, /Current password is invalid/);
  const taken = await b.fetch("/settings/account/email", { form: { ...fields, email: "bob@example.test", current_password: PASSWORD } });
  assert.match(taken.text, /E-mail has already been taken/);
  await s.drainJobs();
  assert.deepEqual(mailTo(s, "new@mail.example"), []);

  const res = await b.fetch("/settings/account/email", { form: { ...fields, email: "new@mail.example", current_password: PASSWORD } });
  assert.deepEqual([res.status, res.location], [302, "/settings/account?notice=email"]);
  const page = await b.fetch("/settings/account?notice=email");
  assert.match(page.text, /<strong id="current-email">alice@example.test<\/strong>/);
  assert.match(page.text, /Waiting for confirmation of <strong>new@mail.example<\/strong>/);
  await s.drainJobs();
  const [mail, ...more] = mailTo(s, "new@mail.example");
  assert.equal(more.length, 0);
  assert.equal(mail.subject, "Roost Test: confirm your new e-mail address");
  assert.equal((await s.api(alice, "GET", "/api/v1/accounts/verify_credentials")).source?.email ?? null, null);

  const confirmed = await b.fetch(linkIn(mail, s, "/auth/confirmation?confirmation_token="));
  assert.ok(confirmed.status < 400, confirmed.text);
  assert.match((await b.fetch("/settings/account")).text, /<strong id="current-email">new@mail.example<\/strong>/);
  assert.doesNotMatch((await b.fetch("/settings/account")).text, /Waiting for confirmation/);
  // The new address signs in.
  assert.equal((await new Browser(s.url).signIn("new@mail.example")).status, 302);
});
