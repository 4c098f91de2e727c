// Post history import in a real browser (issue 16 part 7): from the import/export page to the
// post import page, a Mastodon archive chosen in the file input and uploaded (no script
// involved), then the progress and the report; no CSP violation or script error.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PASSWORD } from "../api/oauth-helpers.ts";
import { hasChromium, openBrowser, signInWithForm } from "../helpers/browser.ts";
import { zipOf } from "../helpers/zip.ts";
import { startTestServer } from "../helpers/server.ts";

test("upload a Mastodon archive from the settings and read the import's report", { skip: !hasChromium() && "no /usr/bin/chromium" }, async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice", { password: PASSWORD });
  const me = "https://old.example/users/alice";
  const note = (n: number, published: string) => ({
    type: "Create",
    object: { id: `${me}/statuses/${n}`, type: "Note", published, to: ["https://www.w3.org/ns/activitystreams#Public"], cc: [], content: `<p>old post ${n}</p>` },
  });
  const outbox = { type: "OrderedCollection", orderedItems: [note(1, "2019-05-01T12:00:00Z"), { type: "Announce", object: "https://elsewhere.example/1" }] };
  const archive = await zipOf({ "outbox.json": JSON.stringify(outbox), "actor.json": JSON.stringify({ id: me, followers: `${me}/followers` }) });

  const b = await openBrowser();
  t.after(() => b.close());
  const { page } = b;
  await page.goto(`${s.url}/settings/import-export`);
  await signInWithForm(page, "alice", PASSWORD);
  await Promise.all([page.waitForNavigation(), page.getByRole("link", { name: "import your posts" }).click()]);
  assert.equal(new URL(page.url()).pathname, "/settings/post_import");
  assert.equal(await page.locator("h1").innerText(), "Import your posts");

  await page.getByLabel("Archive (ZIP)").setInputFiles({ name: "archive-2019.zip", mimeType: "application/zip", buffer: archive });
  await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Import posts" }).click()]);
  assert.equal(new URL(page.url()).pathname, "/settings/post_import");
  assert.match(await page.locator("ul.imports").innerText(), /archive-2019\.zip:\s+Waiting/);

  await s.drainJobs();
  await page.reload();
  const report = await page.locator("ul.imports").innerText();
  assert.match(report, /Finished, 1 of 1 posts processed, 1 imported\./);
  assert.match(report, /1 boost\(s\) skipped/);
  const [post] = await s.api(alice, "GET", `/api/v1/accounts/${alice.id}/statuses`);
  assert.deepEqual([post.content, post.created_at], ["<p>old post 1</p>", "2019-05-01T12:00:00.000Z"]);
  assert.deepEqual(b.errors(), []);
});
