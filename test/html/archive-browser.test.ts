// The archive page in a real browser (issue 16 part 5): request the archive, the page says it
// is being prepared and the button is off; once the job ran the download link appears and
// gives the ZIP. No CSP violation or script error.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { PASSWORD } from "../api/oauth-helpers.ts";
import { hasChromium, openBrowser, signInWithForm } from "../helpers/browser.ts";
import { startTestServer } from "../helpers/server.ts";

test("request the archive, then download it once the job ran", { skip: !hasChromium() && "no /usr/bin/chromium" }, async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  await s.api(alice, "POST", "/api/v1/statuses", { status: "something worth keeping" });
  await s.drainJobs();

  const b = await openBrowser();
  t.after(() => b.close());
  const { page } = b;
  await page.goto(`${s.url}/settings/archive`);
  await signInWithForm(page, "alice", PASSWORD);
  assert.equal(new URL(page.url()).pathname, "/settings/archive");
  assert.equal(await page.locator("h1").innerText(), "Request your archive");
  const request = page.getByRole("button", { name: "Request your archive" });
  assert.ok(await request.isEnabled());
  assert.equal(await page.getByRole("table").count(), 0);

  await Promise.all([page.waitForNavigation(), request.click()]);
  assert.equal(new URL(page.url()).pathname, "/settings/archive");
  const row = page.getByRole("table").locator("tbody tr");
  assert.equal(await row.count(), 1);
  assert.equal(await row.locator("td").nth(1).innerText(), "Being prepared…");
  assert.ok(await request.isDisabled(), "one request per 7 days");
  assert.equal(await page.getByRole("columnheader", { name: "Archive" }).count(), 1);

  await s.drainJobs();
  await page.reload();
  const link = row.getByRole("link", { name: /^Download \(\d+ KB\)$/ });
  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  assert.match(download.suggestedFilename(), /^archive-.*\.zip$/);
  const zip = await readFile((await download.path())!);
  assert.equal(zip.subarray(0, 4).toString("latin1"), "PK\x03\x04");
  assert.ok(zip.includes("outbox.json") && zip.includes("actor.json"));
  assert.ok(await request.isDisabled());
  assert.deepEqual(b.errors(), [], `console:\n${b.console.join("\n")}`);
});
