// Two-factor authentication (issue 16 part 3) over plain HTTP: enabling needs a right code
// (computed here with otpauth from the key the page shows), signing in then needs a code in a
// second step with no session before it, wrong codes are refused and throttled per account,
// a recovery code works once, a used code cannot be replayed, disabling needs a proof, and
// regenerating the recovery codes needs one too and retires the old codes.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as OTPAuth from "otpauth";
import { Browser, PASSWORD, formWithButton } from "../api/oauth-helpers.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { countWebSessions } from "../../src/storage/web-sessions.ts";
import { mailTo } from "../api/mail-helpers.ts";

const SETTINGS = "/settings/two_factor_authentication";

function totpOf(secret: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ algorithm: "SHA1", digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) });
}

/** Sets up 2FA through the pages; returns the key and the recovery codes shown. */
async function enable(s: TestServer, b: Browser): Promise<{ totp: OTPAuth.TOTP; codes: string[] }> {
  const off = await b.fetch(SETTINGS);
  assert.equal(off.status, 200);
  assert.match(off.text, /is <strong>off<\/strong>/);
  const setup = await b.fetch(`${SETTINGS}/setup`, { form: formWithButton(off.text, "Set up").fields });
  assert.equal(setup.status, 200);
  assert.match(setup.text, /<svg[^>]*>[\s\S]*<path/, "an inline SVG QR code");
  const secret = /<code id="otp-secret">([A-Z2-7]+)<\/code>/.exec(setup.text)![1];
  const totp = totpOf(secret);
  const confirm = formWithButton(setup.text, "Enable");

  // A wrong code does not enable it, and the same key is shown again.
  const wrongCode = String((Number(totp.generate({ timestamp: s.app.now() })) + 1) % 1_000_000).padStart(6, "0");
  const wrong = await b.fetch(`${SETTINGS}/confirm`, { form: { ...confirm.fields, code: wrongCode } });
  assert.equal(wrong.status, 422);
  assert.match(wrong.text, /Invalid two-factor code/);
  assert.ok(wrong.text.includes(secret));

  const ok = await b.fetch(`${SETTINGS}/confirm`, { form: { ...confirm.fields, code: totp.generate({ timestamp: s.app.now() }) } });
  assert.equal(ok.status, 200, ok.text);
  const codes = [...ok.text.matchAll(/<li>([0-9a-f]{20})<\/li>/g)].map((m) => m[1]);
  assert.equal(codes.length, 10);
  assert.equal(new Set(codes).size, 10);
  const on = await b.fetch(SETTINGS);
  assert.match(on.text, /is <strong>on<\/strong>/);
  assert.match(on.text, /<strong id="recovery-left">10<\/strong>/);
  return { totp, codes };
}

/** Password step: answers the redirect to the code step, with no session yet. */
async function passwordStep(b: Browser, login = "alice") {
  const res = await b.signIn(login);
  assert.equal(res.status, 302);
  assert.equal(res.location, "/auth/sign_in/two_factor");
  assert.equal(b.cookies.has("roost_session"), false, "no session before the code");
  assert.ok(b.cookies.has("roost_2fa"));
  const page = await b.fetch("/auth/sign_in/two_factor");
  assert.equal(page.status, 200);
  return formWithButton(page.text, "Sign in").fields;
}

test("enable, sign in with a code, throttle wrong codes, recovery codes once, disable", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  let clock = Date.now();
  s.app.now = () => clock;
  const alice = await s.user("alice");
  const userId = alice.user.id;

  // Not signed in: sent to sign in, and back.
  const anon = await new Browser(s.url).fetch(SETTINGS);
  assert.deepEqual([anon.status, anon.location], [302, `/auth/sign_in?return_to=${encodeURIComponent(SETTINGS)}`]);

  const b = new Browser(s.url);
  assert.equal((await b.signIn("alice")).status, 302);
  const { totp, codes } = await enable(s, b);

  // A new sign-in stops after the password.
  const other = new Browser(s.url);
  const before = countWebSessions(s.app.db, userId);
  let form = await passwordStep(other);
  assert.equal(countWebSessions(s.app.db, userId), before);
  // The code step without a half-finished sign-in sends back to the password.
  assert.equal((await new Browser(s.url).fetch("/auth/sign_in/two_factor")).location, "/auth/sign_in");

  // A right code opens the session.
  clock += 30_000; // the next time step: the code used to enable is spent
  const good = await other.fetch("/auth/sign_in/two_factor", { form: { ...form, code: totp.generate({ timestamp: clock }) } });
  assert.deepEqual([good.status, good.location], [302, "/auth/sign_in"]);
  assert.ok(other.cookies.has("roost_session"));
  assert.equal(other.cookies.has("roost_2fa"), false);
  assert.equal(countWebSessions(s.app.db, userId), before + 1);

  // The same code cannot be used again (replay), even within its 30 s.
  const replay = new Browser(s.url);
  form = await passwordStep(replay);
  const again = await replay.fetch("/auth/sign_in/two_factor", { form: { ...form, code: totp.generate({ timestamp: clock }) } });
  assert.equal(again.status, 422);
  assert.equal(replay.cookies.has("roost_session"), false);

  // Wrong codes: refused (422); after 5 in 5 minutes even the right code is refused (429).
  for (let i = 1; i < 5; i++) {
    const r = await replay.fetch("/auth/sign_in/two_factor", { form: { ...form, code: "000000" } });
    assert.equal(r.status, 422, `wrong code ${i + 1}`);
    assert.match(r.text, /Invalid two-factor code/);
  }
  clock += 30_000;
  const locked = await replay.fetch("/auth/sign_in/two_factor", { form: { ...form, code: totp.generate({ timestamp: clock }) } });
  assert.equal(locked.status, 429);
  assert.ok(Number(locked.headers.get("retry-after")) > 0);
  assert.equal(replay.cookies.has("roost_session"), false);
  // The count is the account's: a fresh sign-in from elsewhere is throttled too.
  const elsewhere = new Browser(s.url);
  const form2 = await passwordStep(elsewhere);
  assert.equal((await elsewhere.fetch("/auth/sign_in/two_factor", { form: { ...form2, code: totp.generate({ timestamp: clock }) } })).status, 429);

  // Once the window has passed, a recovery code works, once.
  clock += 5 * 60_000;
  const rec = await replay.fetch("/auth/sign_in/two_factor", { form: { ...form, code: codes[0].toUpperCase() } });
  assert.deepEqual([rec.status, rec.location], [302, "/auth/sign_in"]);
  assert.ok(replay.cookies.has("roost_session"));
  const reuse = new Browser(s.url);
  const form3 = await passwordStep(reuse);
  assert.equal((await reuse.fetch("/auth/sign_in/two_factor", { form: { ...form3, code: codes[0] } })).status, 422);
  assert.match((await b.fetch(SETTINGS)).text, /<strong id="recovery-left">9<\/strong>/);

  // A half-finished sign-in expires.
  clock += 11 * 60_000;
  const late = await reuse.fetch("/auth/sign_in/two_factor", { form: { ...form3, code: codes[1] } });
  assert.equal(late.status, 422);
  assert.match(late.text, /expired/);
  assert.equal(reuse.cookies.has("roost_session"), false);

  // Disabling needs the password or a code.
  const on = await b.fetch(SETTINGS);
  const disable = formWithButton(on.text, "Disable").fields;
  const bad = await b.fetch(`${SETTINGS}/disable`, { form: { ...disable, password: "not it" } });
  assert.equal(bad.status, 422);
  assert.match((await b.fetch(SETTINGS)).text, /is <strong>on<\/strong>/);
  const done = await b.fetch(`${SETTINGS}/disable`, { form: { ...disable, password: PASSWORD } });
  assert.deepEqual([done.status, done.location], [302, SETTINGS]);
  assert.match((await b.fetch(SETTINGS)).text, /is <strong>off<\/strong>/);
  // Signing in is one step again.
  const plain = await new Browser(s.url).signIn("alice");
  assert.deepEqual([plain.status, plain.location], [302, "/auth/sign_in"]);
});

test("disabling with a code; forms need the CSRF token", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  await s.user("bob");
  const b = new Browser(s.url);
  await b.signIn("bob");
  const { codes } = await enable(s, b);
  const on = await b.fetch(SETTINGS);
  const disable = formWithButton(on.text, "Disable").fields;
  const noCsrf = await b.fetch(`${SETTINGS}/disable`, { form: { code: codes[3] } });
  assert.equal(noCsrf.status, 422);
  assert.match(noCsrf.text, /Invalid authenticity token/);
  const done = await b.fetch(`${SETTINGS}/disable`, { form: { ...disable, code: codes[3] } });
  assert.deepEqual([done.status, done.location], [302, SETTINGS]);
  assert.match((await b.fetch(SETTINGS)).text, /is <strong>off<\/strong>/);
});

test("regenerating recovery codes: needs the password or a code, the old codes stop working, a mail tells the owner", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  let clock = Date.now();
  s.app.now = () => clock;
  await s.user("carol");
  const b = new Browser(s.url);
  await b.signIn("carol");
  const { totp, codes: old } = await enable(s, b);
  // One old code used: 9 left before regenerating.
  const first = new Browser(s.url);
  const f1 = await passwordStep(first, "carol");
  assert.equal((await first.fetch("/auth/sign_in/two_factor", { form: { ...f1, code: old[0] } })).status, 302);

  const on = await b.fetch(SETTINGS);
  assert.match(on.text, /<strong id="recovery-left">9<\/strong>/);
  const regen = formWithButton(on.text, "Generate new recovery codes").fields;
  const noCsrf = await b.fetch(`${SETTINGS}/recovery_codes`, { form: { password: PASSWORD } });
  assert.equal(noCsrf.status, 422);
  assert.match(noCsrf.text, /Invalid authenticity token/);
  const bad = await b.fetch(`${SETTINGS}/recovery_codes`, { form: { ...regen, password: "not it" } });
  assert.equal(bad.status, 422);
  assert.match(bad.text, /<p class="error" role="alert" id="recovery-error">Invalid password or two-factor code\.<\/p>/);
  assert.match(bad.text, /id="recovery-password" [^>]*aria-describedby="recovery-error"/);

  const ok = await b.fetch(`${SETTINGS}/recovery_codes`, { form: { ...regen, password: PASSWORD } });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("cache-control"), "no-store");
  assert.match(ok.text, /New recovery codes were generated\. The old ones no longer work\./);
  const fresh = [...ok.text.matchAll(/<li>([0-9a-f]{20})<\/li>/g)].map((m) => m[1]);
  assert.equal(fresh.length, 10);
  assert.equal(new Set([...fresh, ...old]).size, 20, "all new");
  assert.match((await b.fetch(SETTINGS)).text, /<strong id="recovery-left">10<\/strong>/);
  await s.drainJobs();
  const [mail] = mailTo(s, "carol@example.test");
  assert.equal(mail.subject, `${s.app.config.title}: two-factor recovery codes changed`);

  // An old (unused) code is refused; a new one signs in.
  const second = new Browser(s.url);
  const f2 = await passwordStep(second, "carol");
  assert.equal((await second.fetch("/auth/sign_in/two_factor", { form: { ...f2, code: old[1] } })).status, 422);
  const good = await second.fetch("/auth/sign_in/two_factor", { form: { ...f2, code: fresh[0] } });
  assert.deepEqual([good.status, good.location], [302, "/auth/sign_in"]);

  // A current TOTP code is proof enough too (an account without a password); each regeneration replaces the set.
  clock += 30_000;
  const again = await b.fetch(`${SETTINGS}/recovery_codes`, { form: { ...regen, code: totp.generate({ timestamp: clock }) } });
  assert.equal(again.status, 200);
  const third = [...again.text.matchAll(/<li>([0-9a-f]{20})<\/li>/g)].map((m) => m[1]);
  assert.equal(third.length, 10);
  assert.ok(!third.some((c) => fresh.includes(c)));
  const late = new Browser(s.url);
  const f3 = await passwordStep(late, "carol");
  assert.equal((await late.fetch("/auth/sign_in/two_factor", { form: { ...f3, code: fresh[1] } })).status, 422);
});
