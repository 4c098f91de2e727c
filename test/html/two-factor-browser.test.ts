// Two-factor sign-in in a real browser (issue 16 part 3): set up from the settings page with a
// code computed from the key shown, then the OAuth consent flow's sign-in asks for the code in
// a second step and lands on the consent page; no CSP violation or script error on the way.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as OTPAuth from "otpauth";
import { hasChromium, openBrowser, signInWithForm } from "../helpers/browser.ts";
import { startTestServer } from "../helpers/server.ts";
import { authorizePath, registerApp } from "../api/oauth-helpers.ts";

test("2FA sign-in through the browser", { skip: !hasChromium() && "no /usr/bin/chromium" }, async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  let clock = Date.now();
  s.app.now = () => clock;
  await s.user("alice");
  const client = await registerApp(s);

  const b = await openBrowser();
  t.after(() => b.close());
  const { page } = b;
  await page.goto(`${s.url}/settings/two_factor_authentication`);
  await signInWithForm(page, "alice", "correct horse battery");
  assert.equal(new URL(page.url()).pathname, "/settings/two_factor_authentication");
  await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Set up" }).click()]);
  const qr = await page.locator("figure.qr svg").boundingBox();
  assert.ok(qr && qr.width > 100, `the QR code is drawn: ${JSON.stringify(qr)}`);
  const secret = (await page.locator("#otp-secret").innerText()).trim();
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
  await page.getByLabel("Enter the six-digit code the app shows").fill(totp.generate({ timestamp: clock }));
  await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Enable" }).click()]);
  assert.equal(await page.locator("#recovery-codes li").count(), 10);

  // A fresh browser context signs in for a client app: password, then code, then consent.
  await b.context.clearCookies();
  clock += 30_000;
  await page.goto(`${s.url}${authorizePath(client, { scope: "read" })}`);
  assert.match(page.url(), /\/auth\/sign_in\?return_to=/);
  await signInWithForm(page, "alice", "correct horse battery");
  assert.equal(new URL(page.url()).pathname, "/auth/sign_in/two_factor");
  const cookies = (await b.context.cookies()).map((c) => c.name);
  assert.ok(!cookies.includes("roost_session"), "no session before the code");
  await page.getByLabel(/code from your authenticator app/).fill(totp.generate({ timestamp: clock }));
  await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Sign in" }).click()]);
  assert.equal(new URL(page.url()).pathname, "/oauth/authorize");
  assert.ok(await page.getByRole("button", { name: "Authorize" }).isVisible());
  assert.deepEqual(b.errors(), [], `console:\n${b.console.join("\n")}`);
});
