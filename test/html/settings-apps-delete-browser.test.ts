// Settings → Authorized apps and Delete account in a real browser (issue 16, Tests): an app
// authorized over OAuth is revoked from the page and its token stops working; the account
// deletion refuses a wrong password with its message, then deletes: the API token and the
// sign-in stop working. Fields are found through their labels; no CSP violation or script error.
import assert from "node:assert/strict";
import { test } from "node:test";
import { approve, authorizePath, Browser, codeFrom, exchangeCode, PASSWORD, registerApp } from "../api/oauth-helpers.ts";
import { hasChromium, openBrowser, signInWithForm } from "../helpers/browser.ts";
import { startTestServer } from "../helpers/server.ts";

test("authorized apps and account deletion in a browser", { skip: !hasChromium() && "no /usr/bin/chromium" }, async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const post = await s.api(alice, "POST", "/api/v1/statuses", { status: "soon gone" });
  const b = await openBrowser();
  t.after(() => b.close());
  const { page } = b;
  await page.goto(`${s.url}/settings/applications`);
  await signInWithForm(page, "alice", PASSWORD);
  assert.equal(new URL(page.url()).pathname, "/settings/applications");
  const verify = (token: string) => s.req(token, "GET", "/api/v1/accounts/verify_credentials").then((r) => r.status);

  await t.test("authorized apps: revoking one from the page ends its token", async () => {
    const client = await registerApp(s, { client_name: "Tusky", scopes: "read write" });
    const oauth = new Browser(s.url);
    assert.equal((await oauth.signIn("alice")).status, 302);
    const res = await exchangeCode(s, client, codeFrom(await approve(oauth, authorizePath(client, { scope: "read write" }))));
    assert.equal(res.status, 200, res.text);
    const token: string = res.body.access_token;
    assert.equal(await verify(token), 200);

    await page.reload();
    const row = page.locator(`#app-${client.id}`);
    assert.equal(await row.locator(".name").innerText(), "Tusky");
    assert.equal(await row.locator(".scopes").innerText(), "read write");
    await Promise.all([page.waitForURL(/\/settings\/applications\?notice=revoked$/), row.getByRole("button", { name: "Revoke access of Tusky" }).click()]);
    assert.equal(await page.getByRole("status").count(), 1);
    assert.equal(await page.locator(`#app-${client.id}`).count(), 0);
    assert.equal(await verify(token), 401);
    assert.equal(await verify(alice.token), 200, "the other app (the fixture's CLI token) stays");
    assert.deepEqual(b.errors(), []);
  });

  await t.test("delete account: a wrong password is refused, the right one deletes", async () => {
    await Promise.all([page.waitForURL(/\/settings\/delete$/), page.getByRole("link", { name: "Delete account" }).click()]);
    await page.getByLabel("Current password").fill("not my password");
    await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Delete account" }).click()]);
    assert.equal(await page.getByRole("alert").innerText(), "Current password is invalid");
    assert.deepEqual(b.errors(), [`response 422: ${s.url}/settings/delete`]);
    assert.equal(await verify(alice.token), 200, "nothing deleted");
    assert.equal((await s.api(alice, "GET", `/api/v1/statuses/${post.id}`)).id, post.id);

    await page.getByLabel("Current password").fill(PASSWORD);
    await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Delete account" }).click()]);
    assert.equal(await page.locator("h1").innerText(), "Account deleted");
    await s.drainJobs();
    assert.equal(await verify(alice.token), 403, "a deleted account's token is refused");
    assert.equal((await s.req(null, "GET", `/api/v1/statuses/${post.id}`)).status, 404);
    assert.equal((await new Browser(s.url).signIn("alice")).status, 422, "sign-in fails");
    // This browser was signed out: the settings send it to the sign-in form.
    await page.goto(`${s.url}/settings/profile`);
    assert.match(page.url(), /\/auth\/sign_in\?return_to=%2Fsettings%2Fprofile/);
    assert.deepEqual(b.errors(), []);
  });
});
