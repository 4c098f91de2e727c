// The import/export page in a real browser (issue 16 part 6): the follows CSV downloads as a
// file in Mastodon's format; a CSV with a bad row is uploaded through the form, the page shows
// the import in progress, then (the job run) finished with the bad row reported; the form's
// controls have labels and no CSP violation or script error occurs.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { PASSWORD } from "../api/oauth-helpers.ts";
import { hasChromium, openBrowser, signInWithForm } from "../helpers/browser.ts";
import { startTestServer } from "../helpers/server.ts";

test("export the follows CSV, import a CSV and follow its progress", { skip: !hasChromium() && "no /usr/bin/chromium" }, async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const d = s.app.config.domain;
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`, { notify: true });
  await s.drainJobs();

  const b = await openBrowser();
  t.after(() => b.close());
  const { page } = b;
  await page.goto(`${s.url}/settings/import-export`);
  await signInWithForm(page, "alice", PASSWORD);
  assert.equal(new URL(page.url()).pathname, "/settings/import-export");
  assert.equal(await page.locator("h1").innerText(), "Import and export");

  // Export: the Follows row's link downloads the file.
  const follows = page.locator("tr", { has: page.getByRole("rowheader", { name: "Follows" }) });
  assert.equal(await follows.locator("td").first().innerText(), "1");
  const [download] = await Promise.all([page.waitForEvent("download"), follows.getByRole("link", { name: "Download CSV" }).click()]);
  assert.equal(download.suggestedFilename(), "following_accounts.csv");
  assert.equal(await readFile((await download.path())!, "utf8"), `Account address,Show boosts,Notify on new posts,Languages\nbob@${d},true,true,\n`);

  // Import: every control is reachable by its label.
  await page.getByLabel("Import type").selectOption({ label: "Following list" });
  assert.ok(await page.getByLabel(/Merge: keep/).isChecked());
  await page.getByLabel(/Overwrite: replace/).check();
  await page.getByLabel(/Merge: keep/).check();
  const csv = `Account address,Show boosts,Notify on new posts,Languages\ncarol@${d},false,false,\nnot a handle at all,true,false,\n`;
  await page.getByLabel("CSV file").setInputFiles({ name: "following_accounts.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Upload" }).click()]);
  assert.equal(new URL(page.url()).pathname, "/settings/import-export", await page.content());
  const item = page.locator("ul.imports li").first();
  assert.match(await item.innerText(), /Following list \(merge\) following_accounts\.csv:\s+In progress, 0 of 2 processed, 0 imported/);
  assert.equal(await item.getByRole("progressbar", { name: "Progress" }).getAttribute("value"), "0");

  await s.drainJobs();
  await page.reload();
  assert.match(await item.locator(".progress").innerText(), /^Finished, 2 of 2 processed, 1 imported$/);
  assert.equal(await item.getByRole("progressbar", { name: "Progress" }).getAttribute("value"), "2");
  await item.getByText("1 row(s) not imported").click();
  assert.match(await item.locator("details li").innerText(), /^not a handle at all, true, false: /);
  const [rel] = await s.api(alice, "GET", `/api/v1/accounts/relationships?id[]=${carol.id}`);
  assert.equal(rel.following, true);
  assert.deepEqual(b.errors(), [], `console:\n${b.console.join("\n")}`);
});
