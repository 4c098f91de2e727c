// PAM sign-in through the real PAM stack: a PAM service file written for the test (pam_unix) and
// Unix users made with useradd and chpasswd, removed afterwards. That needs root and the
// optional binding (node-linux-pam, built against libpam0g-dev); elsewhere those tests are
// skipped with the reason printed, except where ROOST_REQUIRE_PAM=1 (.ci/run sets it after
// installing libpam0g-dev), so CI cannot pass them by skipping. The tests of PAM being
// unavailable and of the registration rule need neither.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Browser, PASSWORD } from "../api/oauth-helpers.ts";
import { appToken } from "../api/accounts-helpers.ts";
import { loadPamBinding } from "../../src/services/external-auth/pam.ts";
import { resetRegistrationRate } from "../../src/services/registration.ts";
import { collectStatus } from "../../src/ops/status.ts";
import { findIdentity } from "../../src/storage/identities.ts";
import { SIGN_IN_ERRORS } from "../../src/services/web-sessions.ts";
import { beginTwoFactorSetup, confirmTwoFactorSetup } from "../../src/services/two-factor.ts";
import { findUserById } from "../../src/storage/users.ts";
import * as OTPAuth from "otpauth";

const SERVICE = `roost-test-${process.pid}`;
const PAM_FILE = `/etc/pam.d/${SERVICE}`;
// Unix names that are also valid roost usernames, unique to this run.
const PAM_USER = `rpam${process.pid}`;
const CLASH_USER = `rpamclash${process.pid}`;
const EXPIRED_USER = `rpamexp${process.pid}`;
const PAM_PASSWORD = "unix pass 1234";

async function whyNoRealPam(): Promise<string | null> {
  if (process.platform !== "linux") return "not Linux";
  if (process.getuid?.() !== 0) return "not root (a test PAM service file and Unix users are needed)";
  for (const tool of ["/usr/sbin/useradd", "/usr/sbin/chpasswd", "/usr/sbin/usermod", "/usr/sbin/userdel"]) if (!existsSync(tool)) return `${tool} is missing`;
  const binding = await loadPamBinding("node-linux-pam");
  if ("reason" in binding) return binding.reason;
  return null;
}

const skipReason = await whyNoRealPam();
if (skipReason) {
  if (process.env.ROOST_REQUIRE_PAM === "1") throw new Error(`ROOST_REQUIRE_PAM is set but PAM cannot be tested: ${skipReason}`);
  console.log(`# PAM sign-in against the real PAM stack skipped: ${skipReason}`);
}

function addUnixUser(name: string, password: string): void {
  execFileSync("/usr/sbin/useradd", ["-M", "-s", "/usr/sbin/nologin", name]);
  execFileSync("/usr/sbin/chpasswd", { input: `${name}:${password}\n` });
}

function removeUnixUser(name: string): void {
  try {
    execFileSync("/usr/sbin/userdel", [name], { stdio: "ignore" });
  } catch {
    // not created
  }
}

let s: TestServer;
before(async () => {
  if (skipReason) return;
  // nodelay: pam_unix would otherwise wait 2 s after each wrong password.
  writeFileSync(PAM_FILE, "auth required pam_unix.so nodelay\naccount required pam_unix.so\n");
  addUnixUser(PAM_USER, PAM_PASSWORD);
  addUnixUser(CLASH_USER, PAM_PASSWORD);
  addUnixUser(EXPIRED_USER, PAM_PASSWORD);
  execFileSync("/usr/sbin/usermod", ["-e", "1970-01-02", EXPIRED_USER]);
  s = await startTestServer({ config: { pamEnabled: true, pamService: SERVICE, registrations: "closed" } });
});
after(async () => {
  if (skipReason) return;
  await s?.close();
  rmSync(PAM_FILE, { force: true });
  removeUnixUser(PAM_USER);
  removeUnixUser(CLASH_USER);
  removeUnixUser(EXPIRED_USER);
});

const host = () => new URL(`http://${s.app.config.domain}`).hostname;

test("PAM: the right password signs in and makes the account once; a wrong one is refused with the form's message", { skip: skipReason ?? false }, async () => {
  const b = new Browser(s.url);
  const page = await b.fetch("/auth/sign_in");
  assert.match(page.text, /id="pam-sign-in"/);

  const wrong = await b.signIn(PAM_USER, "not the unix password");
  assert.equal(wrong.status, 422);
  assert.match(wrong.text, new RegExp(SIGN_IN_ERRORS.invalid.replace(/\./g, "\\.")));
  assert.equal(b.cookies.get("roost_session"), undefined);
  assert.equal((await s.req(null, "GET", `/api/v1/accounts/lookup?acct=${PAM_USER}`)).status, 404, "no account for a refused sign-in");

  // Registrations are closed: PAM users are let in all the same (Mastodon's external users).
  const first = await b.signIn(PAM_USER, PAM_PASSWORD);
  assert.equal(first.status, 302, first.text);
  assert.match((await b.fetch("/auth/sign_in")).text, new RegExp(`signed in as <strong>@${PAM_USER}@`));
  const account = await s.api(null, "GET", `/api/v1/accounts/lookup?acct=${PAM_USER}`);
  const identity = findIdentity(s.app.db, "pam", PAM_USER);
  assert.ok(identity);

  // Again, by name and by the address made for it: the same account, no second one.
  const b2 = new Browser(s.url);
  assert.equal((await b2.signIn(PAM_USER, PAM_PASSWORD)).status, 302);
  const b3 = new Browser(s.url);
  assert.equal((await b3.signIn(`${PAM_USER}@${host()}`, PAM_PASSWORD)).status, 302);
  assert.match((await b3.fetch("/auth/sign_in")).text, new RegExp(`signed in as <strong>@${PAM_USER}@`));
  assert.equal((await s.api(null, "GET", `/api/v1/accounts/lookup?acct=${PAM_USER}`)).id, account.id);
  assert.equal((await s.req(null, "GET", `/api/v1/accounts/lookup?acct=${PAM_USER}_1`)).status, 404);
  assert.equal(findIdentity(s.app.db, "pam", PAM_USER)?.userId, identity.userId);
  // Another address at another domain is not a PAM login.
  assert.equal((await new Browser(s.url).signIn(`${PAM_USER}@elsewhere.example`, PAM_PASSWORD)).status, 422);

  // With two-factor on, the PAM password is the first step only, as a local one.
  const user = findUserById(s.app.db, identity.userId)!;
  const setup = (await beginTwoFactorSetup(s.app, user, PAM_USER))!;
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(setup.secret) });
  assert.equal(confirmTwoFactorSetup(s.app, user, totp.generate({ timestamp: s.app.now() }))?.length, 10);
  const b4 = new Browser(s.url);
  const step = await b4.signIn(PAM_USER, PAM_PASSWORD);
  assert.equal(step.status, 302);
  assert.equal(step.location, "/auth/sign_in/two_factor");
  assert.equal(b4.cookies.has("roost_session"), false, "no session before the code");
});

test("PAM and local users side by side: local passwords work, a local account is never taken over by PAM", { skip: skipReason ?? false }, async () => {
  await s.user("localalice");
  const alice = new Browser(s.url);
  assert.equal((await alice.signIn("localalice", PASSWORD)).status, 302);
  // A local account named like a Unix user keeps its own password; PAM's is refused for it.
  await s.user(CLASH_USER);
  assert.equal((await new Browser(s.url).signIn(CLASH_USER, PAM_PASSWORD)).status, 422);
  assert.equal((await new Browser(s.url).signIn(CLASH_USER, PASSWORD)).status, 302);
  assert.equal(findIdentity(s.app.db, "pam", CLASH_USER), undefined);
});

test("PAM's account rules apply: an expired Unix account is refused though its password is right", { skip: skipReason ?? false }, async () => {
  const r = await new Browser(s.url).signIn(EXPIRED_USER, PAM_PASSWORD);
  assert.equal(r.status, 422);
  assert.equal((await s.req(null, "GET", `/api/v1/accounts/lookup?acct=${EXPIRED_USER}`)).status, 404);
});

test("PAM: wrong passwords are throttled like local ones", { skip: skipReason ?? false }, async (t) => {
  // A server of its own: the throttle counts every sign-in from this address.
  const srv = await startTestServer({ config: { pamEnabled: true, pamService: SERVICE } });
  t.after(() => srv.close());
  const b = new Browser(srv.url);
  for (let i = 0; i < 25; i++) {
    const r = await b.signIn(PAM_USER, `wrong ${i}`);
    assert.equal(r.status, 422, `attempt ${i + 1}`);
  }
  const blocked = await b.signIn(PAM_USER, PAM_PASSWORD);
  assert.equal(blocked.status, 429);
  assert.match(blocked.text, /Too many sign-in attempts/);
});

test("registration refuses a username the system knows when PAM is on, and only then", async (t) => {
  // `nobody` is in every Linux user database; not one of Mastodon's reserved names.
  const system = existsSync("/etc/passwd") && execFileSync("getent", ["passwd", "nobody"]).length > 0 ? "nobody" : null;
  if (!system) return t.skip("no `nobody` in the system's user database");
  const signUp = (srv: TestServer, username: string) => {
    resetRegistrationRate(srv.app);
    const { token } = appToken(srv, ["read", "write"]);
    return srv.req(token, "POST", "/api/v1/accounts", { username, email: `${username}@example.test`, password: "long enough pw", agreement: true, locale: "en" });
  };
  // The binding does not matter here: the rule holds even where PAM sign-in is unavailable.
  const on = await startTestServer({ config: { pamEnabled: true, pamBinding: "roost-no-such-pam-binding" } });
  t.after(() => on.close());
  const refused = await signUp(on, system);
  assert.equal(refused.status, 422, refused.text);
  assert.deepEqual(refused.body.details.username, [{ error: "ERR_RESERVED", description: "is reserved" }]);
  // In any case of letters: roost usernames are case-insensitive.
  assert.equal((await signUp(on, system.toUpperCase())).status, 422);
  assert.equal((await signUp(on, "notasystemuser")).status, 200);

  const off = await startTestServer();
  t.after(() => off.close());
  assert.equal((await signUp(off, system)).status, 200, "PAM off: an ordinary name");
});

test("PAM unavailable (binding missing): no PAM on the sign-in page, local sign-in works, the log and roost status say why once", async (t) => {
  const lines: string[] = [];
  const srv = await startTestServer({ config: { pamEnabled: true, pamBinding: "roost-no-such-pam-binding", logLevel: "warn" }, logTo: (l) => lines.push(l) });
  t.after(() => srv.close());
  await srv.user("carol");
  const b = new Browser(srv.url);
  const page = await b.fetch("/auth/sign_in");
  assert.equal(page.status, 200);
  assert.doesNotMatch(page.text, /pam-sign-in/);
  assert.equal((await new Browser(srv.url).signIn("carol", "wrong password")).status, 422);
  assert.equal((await b.signIn("carol", PASSWORD)).status, 302);
  const warnings = lines.filter((l) => l.includes("PAM sign-in is unavailable"));
  assert.equal(warnings.length, 1, lines.join("\n"));
  assert.match(warnings[0], /roost-no-such-pam-binding/);
  const status = await collectStatus(srv.app.config);
  assert.equal(status.pam.enabled, true);
  assert.equal(status.pam.available, false);
  assert.match(status.pam.reason ?? "", /roost-no-such-pam-binding.*could not be loaded/);
});
