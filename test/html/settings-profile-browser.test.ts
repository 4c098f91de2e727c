// Settings → Profile and Preferences in a real browser (issue 16, Tests): the forms are filled
// through their labels (a missing label fails the lookup), the avatar goes up through the file
// input, and the API shows every change; no CSP violation, script error or failed request.
import assert from "node:assert/strict";
import { test } from "node:test";
import sharp from "sharp";
import { PASSWORD } from "../api/oauth-helpers.ts";
import { hasChromium, openBrowser, signInWithForm } from "../helpers/browser.ts";
import { startTestServer } from "../helpers/server.ts";

test("profile and preferences forms in a browser", { skip: !hasChromium() && "no /usr/bin/chromium" }, async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const b = await openBrowser();
  t.after(() => b.close());
  const { page } = b;
  await page.goto(`${s.url}/settings/profile`);
  await signInWithForm(page, "alice", PASSWORD);
  assert.equal(new URL(page.url()).pathname, "/settings/profile");

  await t.test("profile: display name, bio, a field and an avatar", async () => {
    await page.getByLabel("Display name").fill("Alice A.");
    await page.getByLabel("Bio").fill("Hello #world");
    await page.getByLabel("Label 1", { exact: true }).fill("Web");
    await page.getByLabel("Content 1", { exact: true }).fill("example.org");
    await page.getByLabel("Require follow requests").check();
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#c33" } }).png().toBuffer();
    await page.getByLabel("Avatar").setInputFiles({ name: "me.png", mimeType: "image/png", buffer: png });
    await Promise.all([page.waitForURL(/\/settings\/profile\?notice=saved$/), page.getByRole("button", { name: "Save changes" }).click()]);
    assert.match(await page.getByRole("status").innerText(), /Changes successfully saved!/);
    // The page shows the saved values again.
    assert.equal(await page.getByLabel("Display name").inputValue(), "Alice A.");
    assert.equal(await page.getByLabel("Bio").inputValue(), "Hello #world");
    assert.equal(await page.getByLabel("Require follow requests").isChecked(), true);

    const me = await s.api(alice, "GET", "/api/v1/accounts/verify_credentials");
    assert.equal(me.display_name, "Alice A.");
    assert.equal(me.source.note, "Hello #world");
    assert.deepEqual(me.source.fields.map((f: { name: string; value: string }) => [f.name, f.value]), [["Web", "example.org"]]);
    assert.equal(me.locked, true);
    assert.doesNotMatch(me.avatar, /missing/, `avatar stored: ${me.avatar}`);
    // The page's own <img> of the avatar loads (a failed load would show in b.errors()).
    const img = page.getByRole("img", { name: "Current avatar" });
    assert.equal(await img.getAttribute("src"), me.avatar_static);
    assert.ok(await img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0), "the avatar image loads");
    assert.deepEqual(b.errors(), []);
  });

  await t.test("preferences: posting visibility, sensitive media, language", async () => {
    await Promise.all([page.waitForURL(/\/settings\/preferences$/), page.getByRole("link", { name: "Preferences" }).click()]);
    await page.getByLabel("Posting privacy").selectOption("private");
    await page.getByLabel("Posting language").selectOption("de");
    await page.getByLabel("Always mark media as sensitive").check();
    await Promise.all([page.waitForURL(/\/settings\/preferences\?notice=saved$/), page.getByRole("button", { name: "Save changes" }).click()]);
    assert.match(await page.getByRole("status").innerText(), /Changes successfully saved!/);
    assert.equal(await page.getByLabel("Posting privacy").inputValue(), "private");
    assert.equal(await page.getByLabel("Posting language").inputValue(), "de");
    assert.equal(await page.getByLabel("Always mark media as sensitive").isChecked(), true);

    const me = await s.api(alice, "GET", "/api/v1/accounts/verify_credentials");
    assert.deepEqual([me.source.privacy, me.source.sensitive, me.source.language], ["private", true, "de"]);
    const prefs = await s.api(alice, "GET", "/api/v1/preferences");
    assert.deepEqual(
      [prefs["posting:default:visibility"], prefs["posting:default:language"], prefs["posting:default:sensitive"]],
      ["private", "de", true],
    );

    // Unticking the box turns the flag off again (the form's checkbox marker at work in a browser),
    // and "No default" clears the language.
    await page.getByLabel("Always mark media as sensitive").uncheck();
    await page.getByLabel("Posting language").selectOption("");
    await Promise.all([page.waitForURL(/\/settings\/preferences\?notice=saved$/), page.getByRole("button", { name: "Save changes" }).click()]);
    const after = await s.api(alice, "GET", "/api/v1/preferences");
    assert.deepEqual([after["posting:default:sensitive"], after["posting:default:language"], after["posting:default:visibility"]], [false, null, "private"]);
    assert.equal(await page.getByLabel("Posting language").inputValue(), "");
    assert.deepEqual(b.errors(), []);
  });
});
