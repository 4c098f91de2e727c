// Settings → Account in a real browser (issue 16, Tests): the password change refuses a wrong
// current password with its message, then changes it and signs the other session out; the
// e-mail change mails a confirmation link that, followed in the browser, makes the new address
// the sign-in. Fields are found through their labels; no CSP violation or script error.
import assert from "node:assert/strict";
import { test } from "node:test";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { sessionToken } from "../../src/services/web-sessions.ts";
import { findWebSessionByHash } from "../../src/storage/web-sessions.ts";
import { linkIn, mailTo } from "../api/mail-helpers.ts";
import { Browser, PASSWORD } from "../api/oauth-helpers.ts";
import { hasChromium, openBrowser, signInWithForm } from "../helpers/browser.ts";
import { startTestServer } from "../helpers/server.ts";

const NEW = "a much better passphrase";

test("password and e-mail change in a browser", { skip: !hasChromium() && "no /usr/bin/chromium" }, async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const b = await openBrowser();
  t.after(() => b.close());
  const { page } = b;
  await page.goto(`${s.url}/settings/account`);
  await signInWithForm(page, "alice", PASSWORD);
  assert.equal(new URL(page.url()).pathname, "/settings/account");
  // Both forms ask for the current password: each is found inside its own form.
  const passwordForm = page.locator("form", { has: page.getByRole("button", { name: "Change password" }) });
  const emailForm = page.locator("form", { has: page.getByRole("button", { name: "Change e-mail address" }) });
  const verify = (token: string) => s.req(token, "GET", "/api/v1/accounts/verify_credentials").then((r) => r.status);

  await t.test("password: the wrong current password is refused, the right one signs the others out", async () => {
    const other = new Browser(s.url);
    assert.equal((await other.signIn("alice")).status, 302);
    const otherToken = sessionToken(s.app, findWebSessionByHash(s.app.db, sha256Hex(decodeURIComponent(other.cookies.get("roost_session")!)))!)!;
    assert.equal(await verify(otherToken), 200);

    await passwordForm.getByLabel("Current password").fill("not my password");
    await passwordForm.getByLabel("New password", { exact: true }).fill(NEW);
    await passwordForm.getByLabel("Confirm new password").fill(NEW);
    await Promise.all([page.waitForNavigation(), passwordForm.getByRole("button", { name: "Change password" }).click()]);
    assert.match(await page.getByRole("alert").innerText(), /Current password is invalid/);
    assert.deepEqual(b.errors(), [`response 422: ${s.url}/settings/account/password`]);
    assert.equal(await verify(otherToken), 200, "nothing changed");
    assert.equal((await new Browser(s.url).signIn("alice", NEW)).status, 422);

    await passwordForm.getByLabel("Current password").fill(PASSWORD);
    await passwordForm.getByLabel("New password", { exact: true }).fill(NEW);
    await passwordForm.getByLabel("Confirm new password").fill(NEW);
    await Promise.all([page.waitForURL(/\/settings\/account\?notice=password$/), passwordForm.getByRole("button", { name: "Change password" }).click()]);
    assert.match(await page.getByRole("status").innerText(), /Your password was changed\. Other sessions were signed out\./);
    assert.equal(await verify(otherToken), 401, "the other session ended");
    assert.equal((await other.fetch("/settings/account")).status, 302, "the other browser is sent to sign in");
    assert.equal(await verify(alice.token), 200, "an app's token stays");
    assert.equal((await new Browser(s.url).signIn("alice", PASSWORD)).status, 422, "the old password no longer signs in");
    assert.equal((await new Browser(s.url).signIn("alice", NEW)).status, 302);
    assert.deepEqual(b.errors(), []);
  });

  await t.test("e-mail: a confirmation link to the new address makes the change", async () => {
    await emailForm.getByLabel("New e-mail address").fill("new@mail.example");
    await emailForm.getByLabel("Current password").fill(NEW);
    await Promise.all([page.waitForURL(/\/settings\/account\?notice=email$/), emailForm.getByRole("button", { name: "Change e-mail address" }).click()]);
    assert.match(await page.getByRole("status").innerText(), /A confirmation link was mailed to the new address/);
    assert.equal(await page.locator("#current-email").innerText(), "alice@example.test");
    assert.match(await page.locator("#pending-email").innerText(), /Waiting for confirmation of new@mail\.example/);

    await s.drainJobs();
    const [mail, ...more] = mailTo(s, "new@mail.example");
    assert.ok(mail, "a confirmation mail was written");
    assert.deepEqual(more, []);
    assert.equal(mail.subject, "Roost Test: confirm your new e-mail address");
    await page.goto(s.url + linkIn(mail, s, "/auth/confirmation?confirmation_token="));
    assert.match(await page.locator("h1").innerText(), /confirmed/i);
    await page.goto(`${s.url}/settings/account`);
    assert.equal(await page.locator("#current-email").innerText(), "new@mail.example");
    assert.equal(await page.locator("#pending-email").count(), 0);
    assert.equal((await new Browser(s.url).signIn("new@mail.example", NEW)).status, 302);
    assert.equal((await s.api(alice, "GET", "/api/v1/accounts/verify_credentials")).username, "alice");
    assert.deepEqual(b.errors(), []);
  });
});
