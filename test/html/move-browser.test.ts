// The aliases and move pages in a real browser (issue 16 part 8): bob lists alice as an alias
// (his own handle refused with a message); alice's move form refuses a wrong password and a
// target without the alias, keeping what was typed, then moves to bob. Every field has its
// label, errors are announced (role=alert), and no CSP violation or script error occurs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PASSWORD } from "../api/oauth-helpers.ts";
import { hasChromium, openBrowser, signInWithForm } from "../helpers/browser.ts";
import { startTestServer } from "../helpers/server.ts";

test("add an alias, then move with the form's checks", { skip: !hasChromium() && "no /usr/bin/chromium" }, async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const d = s.app.config.domain;
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  await s.user("carol");

  const b = await openBrowser();
  t.after(() => b.close());
  const { page } = b;
  const submit = (name: string) => Promise.all([page.waitForNavigation(), page.getByRole("button", { name }).click()]);

  // Bob, the new account, lists alice as an alias.
  await page.goto(`${s.url}/settings/aliases`);
  await signInWithForm(page, "bob", PASSWORD);
  assert.equal(new URL(page.url()).pathname, "/settings/aliases");
  const aliasField = page.getByLabel("Handle of the old account");
  await aliasField.fill(`bob@${d}`);
  await submit("Create alias");
  assert.equal(await page.getByRole("alert").innerText(), "You cannot add your own account as an alias");
  await aliasField.fill(`alice@${d}`);
  await submit("Create alias");
  assert.equal(await page.getByRole("alert").count(), 0);
  assert.match(await page.locator("main li, body li").filter({ hasText: "alice" }).first().innerText(), /alice@/);
  assert.equal(await page.getByRole("button", { name: "Remove alias" }).count(), 1);

  // Alice moves to bob.
  await b.context.clearCookies();
  await page.goto(`${s.url}/settings/migration`);
  await signInWithForm(page, "alice", PASSWORD);
  assert.equal(new URL(page.url()).pathname, "/settings/migration");
  const target = page.getByLabel("Handle of the new account");
  const password = page.getByLabel("Current password");
  await target.fill(`bob@${d}`);
  await password.fill("not the password");
  await submit("Move followers");
  assert.equal(await page.getByRole("alert").innerText(), "Current password is invalid");
  assert.equal(await target.inputValue(), `bob@${d}`, "what was typed is kept");
  assert.equal(await password.inputValue(), "", "the password is not sent back");

  await target.fill(`carol@${d}`);
  await password.fill(PASSWORD);
  await submit("Move followers");
  assert.equal(await page.getByRole("alert").innerText(), "The new account must first list this one as an alias");

  await target.fill(`bob@${d}`);
  await password.fill(PASSWORD);
  await submit("Move followers");
  assert.equal(await page.getByRole("alert").count(), 0);
  assert.match(await page.getByRole("status").innerText(), new RegExp(`This account has moved to .*bob`));
  assert.match(await page.locator("p.muted").last().innerText(), /You can move again after \d{4}-/);
  assert.equal(await target.count(), 0, "no form during the cooldown");
  await s.drainJobs();
  const moved = await s.api(null, "GET", `/api/v1/accounts/${alice.id}`);
  assert.equal(moved.moved?.id, bob.id);
  // The refused forms answer 422 (as Mastodon's re-rendered forms do); nothing else failed.
  const refused = [`${s.url}/settings/aliases`, `${s.url}/settings/migration`, `${s.url}/settings/migration`].map((u) => `response 422: ${u}`);
  assert.deepEqual(b.errors(), refused, `console:\n${b.console.join("\n")}`);
});
