// E-mail (issue 13 part 6): the file transport's .eml files, the confirmation link and its
// resend (Api::V1::Emails::ConfirmationsController), check_confirmation, password reset pages
// (once, 6 hours, every session ended), mail to staff, warnings, and mail never failing a request.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { resetRegistrationRate } from "../../src/services/registration.ts";
import { findUserByEmail } from "../../src/storage/users.ts";
import { appToken } from "./accounts-helpers.ts";
import { linkIn, mailTo, sentMail } from "./mail-helpers.ts";
import { Browser, formWithButton } from "./oauth-helpers.ts";

const signUp = (s: TestServer, token: string, name: string, extra: Record<string, unknown> = {}) => {
  resetRegistrationRate(s.app);
  return s.req(token, "POST", "/api/v1/accounts", { username: name, email: `${name}@mail.example`, password: "long enough pw", agreement: true, locale: "en", ...extra });
};

test("sign-up confirmation: the mailed link confirms once; check_confirmation; resends by the signing-up app only", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const app = appToken(s, ["read", "write"]);
  const r = await signUp(s, app.token, "newbie");
  assert.equal(r.status, 200, r.text);
  const userToken = r.body.access_token as string;
  await s.drainJobs();
  const [mail, ...more] = mailTo(s, "newbie@mail.example");
  assert.equal(more.length, 0);
  assert.equal(mail.subject, "Roost Test: confirm your e-mail address");
  assert.match(mail.from, /notifications@/);
  const link = linkIn(mail, s, "/auth/confirmation?confirmation_token=");

  // check_confirmation: never an unhandled error, whatever the caller.
  assert.equal((await s.req(userToken, "GET", "/api/v1/emails/check_confirmation")).text, "false");
  const anonymous = await s.req(null, "GET", "/api/v1/emails/check_confirmation");
  assert.equal(anonymous.status, 401);
  assert.deepEqual(anonymous.body, { error: "This method requires an authenticated user" });
  assert.equal((await s.req(app.token, "GET", "/api/v1/emails/check_confirmation")).status, 401);
  assert.equal((await s.req("not-a-token", "GET", "/api/v1/emails/check_confirmation")).status, 401);

  // Resend: only the app the user signed up with.
  const other = appToken(s, ["read", "write"]);
  const foreign = await s.req(other.token, "POST", "/api/v1/emails/confirmations");
  assert.equal(foreign.status, 403);
  assert.deepEqual(foreign.body, { error: "This method is only available to the application the user originally signed-up with" });
  // A corrected address: checked, then stored and mailed; the first link stops working.
  for (const bad of ["not an address", "x".repeat(1_000_000) + "@mail.example"]) {
    const res = await s.req(userToken, "POST", "/api/v1/emails/confirmations", { email: bad });
    assert.equal(res.status, 422, bad.slice(0, 20));
  }
  await s.user("taken", { email: "taken@mail.example" });
  assert.equal((await s.req(userToken, "POST", "/api/v1/emails/confirmations", { email: "taken@mail.example" })).status, 422);
  const resent = await s.req(userToken, "POST", "/api/v1/emails/confirmations", { email: "fixed@mail.example" });
  assert.equal(resent.status, 200);
  assert.deepEqual(resent.body, {});
  assert.equal(findUserByEmail(s.app.db, "fixed@mail.example")?.confirmedAt, null);
  await s.drainJobs();
  const [second] = mailTo(s, "fixed@mail.example");
  const newLink = linkIn(second, s, "/auth/confirmation?confirmation_token=");
  assert.notEqual(newLink, link);
  assert.equal((await s.req(null, "GET", link, undefined, { accept: "text/html" })).status, 422, "the replaced link");

  const confirmed = await s.req(null, "GET", newLink, undefined, { accept: "text/html" });
  assert.equal(confirmed.status, 200);
  assert.match(confirmed.text, /confirmed/);
  assert.notEqual(findUserByEmail(s.app.db, "fixed@mail.example")?.confirmedAt, null);
  assert.equal((await s.req(userToken, "GET", "/api/v1/emails/check_confirmation")).text, "true");
  assert.equal((await s.api(userToken, "GET", "/api/v1/accounts/verify_credentials")).username, "newbie");
  // Used: the link does nothing more; resending is over.
  assert.equal((await s.req(null, "GET", newLink, undefined, { accept: "text/html" })).status, 422);
  const late = await s.req(userToken, "POST", "/api/v1/emails/confirmations");
  assert.equal(late.status, 403);
  assert.deepEqual(late.body, { error: "This method is only available while the e-mail is awaiting confirmation" });
  for (const bad of ["", "nonsense", "x".repeat(5000)]) {
    assert.equal((await s.req(null, "GET", `/auth/confirmation?confirmation_token=${bad}`, undefined, { accept: "text/html" })).status, 422);
  }
});

test("password reset: request form, mailed link works once within 6 hours, every session and token ended", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice", { email: "alice@mail.example", password: "old password 1" });
  const b = new Browser(s.url);
  const page = await b.fetch("/auth/password/new");
  assert.equal(page.status, 200);
  const form = formWithButton(page.text, "Send the reset link");

  // Without the CSRF token: refused.
  assert.equal((await b.fetch("/auth/password", { form: { email: "alice@mail.example" } })).status, 422);
  // An unknown address gets the same answer and no mail (no probing for accounts).
  const unknown = await b.fetch("/auth/password", { form: { ...form.fields, email: "nobody@mail.example" } });
  const known = await b.fetch("/auth/password", { form: { ...form.fields, email: "alice@mail.example" } });
  assert.equal(unknown.status, 200);
  assert.equal(known.status, 200);
  const shown = (html: string) => /<main>([\s\S]*)<\/main>/.exec(html)?.[1];
  assert.equal(shown(unknown.text), shown(known.text));
  assert.match(shown(known.text) ?? "", /Check your inbox/);
  await s.drainJobs();
  assert.equal(mailTo(s, "nobody@mail.example").length, 0);
  const [mail] = mailTo(s, "alice@mail.example");
  assert.equal(mail.subject, "Roost Test: reset your password");
  const link = linkIn(mail, s, "/auth/password/edit?reset_password_token=");

  const edit = await b.fetch(link);
  assert.equal(edit.status, 200);
  const resetForm = formWithButton(edit.text, "Change my password");
  assert.ok(resetForm.fields.reset_password_token);
  const mismatch = await b.fetch("/auth/password", { form: { ...resetForm.fields, password: "new password 2", password_confirmation: "other" } });
  assert.equal(mismatch.status, 422);
  assert.match(mismatch.text, /doesn&#39;t match|doesn't match/);
  const short = await b.fetch("/auth/password", { form: { ...resetForm.fields, password: "short", password_confirmation: "short" } });
  assert.equal(short.status, 422);
  assert.equal((await s.req(alice.token, "GET", "/api/v1/accounts/verify_credentials")).status, 200, "nothing changed yet");

  const done = await b.fetch("/auth/password", { form: { ...resetForm.fields, password: "new password 2", password_confirmation: "new password 2" } });
  assert.equal(done.status, 200, done.text);
  // Mastodon's revoke_access!: the old token is dead.
  assert.equal((await s.req(alice.token, "GET", "/api/v1/accounts/verify_credentials")).status, 401);
  // The new password signs in, the old one not.
  assert.equal((await new Browser(s.url).signIn("alice", "old password 1")).status, 422);
  assert.equal((await new Browser(s.url).signIn("alice", "new password 2")).status, 302);
  // The link worked once.
  assert.equal((await b.fetch(link)).status, 422);
  const again = await b.fetch("/auth/password", { form: { ...resetForm.fields, password: "third pass 3", password_confirmation: "third pass 3" } });
  assert.equal(again.status, 422);
  assert.equal((await new Browser(s.url).signIn("alice", "third pass 3")).status, 422);

  // A link older than 6 hours no longer works.
  await b.fetch("/auth/password", { form: { ...form.fields, email: "alice@mail.example" } });
  await s.drainJobs();
  const fresh = linkIn(mailTo(s, "alice@mail.example").at(-1)!, s, "/auth/password/edit?reset_password_token=");
  const now = s.app.now();
  s.app.now = () => now + 6 * 3600_000 + 1;
  assert.equal((await b.fetch(fresh)).status, 422);
});

test("staff mail: reports to manage_reports, pending sign-ups to manage_users, warnings to the user; mail never fails a request", async (t) => {
  const s = await startTestServer({ init: { registrations: "approval" } });
  t.after(() => s.close());
  const owner = await s.user("owner", { role: "owner", email: "owner@mail.example", scopes: ["read", "write", "admin:read", "admin:write"] });
  await s.user("mod", { role: "moderator", email: "mod@mail.example" });
  const bob = await s.user("bob", { email: "bob@mail.example" });
  const carol = await s.user("carol", { email: "carol@mail.example" });

  await s.api(bob.token, "POST", "/api/v1/reports", { account_id: carol.id, comment: "spam links" });
  await s.drainJobs();
  for (const who of ["owner", "mod"]) {
    const [m] = mailTo(s, `${who}@mail.example`);
    assert.equal(m?.subject, "Roost Test: new report for @carol", who);
    assert.match(m.text, /@bob reported @carol/);
    assert.match(m.text, /spam links/);
  }
  assert.equal(mailTo(s, "carol@mail.example").length, 0);
  assert.equal(mailTo(s, "bob@mail.example").length, 0);

  // A sign-up awaiting approval: the staff who manage users hear of it once it confirmed.
  const app = appToken(s, ["read", "write"]);
  assert.equal((await signUp(s, app.token, "pending", { reason: "I like birds" })).status, 200);
  await s.drainJobs();
  assert.equal(mailTo(s, "owner@mail.example").length, 1, "not before the address is confirmed");
  const link = linkIn(mailTo(s, "pending@mail.example")[0], s, "/auth/confirmation?confirmation_token=");
  assert.equal((await s.req(null, "GET", link, undefined, { accept: "text/html" })).status, 200);
  await s.drainJobs();
  for (const who of ["owner", "mod"]) {
    const m = mailTo(s, `${who}@mail.example`).find((x) => x.subject.includes("up for review"));
    assert.ok(m, who);
    assert.match(m.text, /I like birds/);
  }

  // A warning, with and without send_email_notification.
  await s.api(owner.token, "POST", `/api/v1/admin/accounts/${carol.id}/action`, { type: "none", text: "Please stop" });
  await s.api(owner.token, "POST", `/api/v1/admin/accounts/${bob.id}/action`, { type: "none", text: "quiet", send_email_notification: false });
  await s.drainJobs();
  const [warn] = mailTo(s, "carol@mail.example");
  assert.equal(warn.subject, "Roost Test: You have received a warning");
  assert.match(warn.text, /Please stop/);
  assert.equal(mailTo(s, "bob@mail.example").length, 0);

  // An SMTP server that cannot be reached: the request succeeds, the message waits for a retry.
  const before = sentMail(s).length;
  s.app.config.smtpUrl = "smtp://127.0.0.1:1";
  s.app.cache.delete("mail:transport");
  assert.equal((await signUp(s, app.token, "smtpdown")).status, 200);
  await s.drainJobs();
  const job = s.app.db.prepare("SELECT attempts FROM jobs WHERE name = 'mail.send'").get() as { attempts: number | bigint } | undefined;
  assert.equal(Number(job?.attempts), 1, "kept for a retry");
  assert.equal(sentMail(s).length, before);
});
