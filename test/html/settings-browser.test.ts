// The settings area in a real browser (issue 16 parts 1-2): sign in through the form, open the
// settings, go to Sessions, revoke the other browser's session; its token stops working, and no
// CSP violation or script error is reported.
import assert from "node:assert/strict";
import { test } from "node:test";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { sessionToken } from "../../src/services/web-sessions.ts";
import { findWebSessionByHash } from "../../src/storage/web-sessions.ts";
import { Browser, PASSWORD, formWithButton } from "../api/oauth-helpers.ts";
import { hasChromium, openBrowser, signInWithForm } from "../helpers/browser.ts";
import { startTestServer } from "../helpers/server.ts";

const PHONE = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36";

test("sign in, open the settings and revoke another session", { skip: !hasChromium() && "no /usr/bin/chromium" }, async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  await s.user("alice");
  // The other session: a phone signed in over plain HTTP.
  const phone = new Browser(s.url);
  const headers = { "user-agent": PHONE };
  const form = formWithButton((await phone.fetch("/auth/sign_in", { headers })).text, "Sign in");
  assert.equal((await phone.fetch("/auth/sign_in", { form: { ...form.fields, login: "alice", password: PASSWORD }, headers })).status, 302);
  const row = findWebSessionByHash(s.app.db, sha256Hex(decodeURIComponent(phone.cookies.get("roost_session")!)))!;
  const phoneToken = sessionToken(s.app, row)!;

  const b = await openBrowser();
  t.after(() => b.close());
  const { page } = b;
  await page.goto(`${s.url}/settings`);
  assert.match(page.url(), /\/auth\/sign_in\?return_to=%2Fsettings/);
  await signInWithForm(page, "alice", PASSWORD);
  assert.equal(new URL(page.url()).pathname, "/settings/profile");
  assert.equal(await page.locator("h1").innerText(), "Profile");

  await Promise.all([page.waitForNavigation(), page.getByRole("link", { name: "Sessions" }).click()]);
  assert.equal(new URL(page.url()).pathname, "/settings/sessions");
  const rows = page.locator("#sessions tbody tr");
  assert.equal(await rows.count(), 2);
  const phoneRow = page.locator(`#session-${row.id}`);
  assert.equal(await phoneRow.locator(".device").innerText(), "Chrome 126 on Android");
  assert.equal(await page.locator("#sessions tbody tr:has-text('This session')").count(), 1);

  await Promise.all([page.waitForNavigation(), phoneRow.getByRole("button", { name: /Revoke the session of Chrome 126 on Android/ }).click()]);
  assert.match(await page.getByRole("status").innerText(), /The session was revoked\./);
  assert.equal(await rows.count(), 1);
  assert.equal((await s.req(phoneToken, "GET", "/api/v1/accounts/verify_credentials")).status, 401);
  assert.deepEqual(b.errors(), []);
});
