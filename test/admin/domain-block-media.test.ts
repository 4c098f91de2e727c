// reject_media (issue 13 part 2): a domain block with reject_media, or a suspension, removes the
// copies of the domain's media already in the remote media cache (Mastodon's
// BlockDomainService#clear_media!), and no new copies are made while it stands.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { imageForm, png } from "../api/accounts-helpers.ts";
import { filesUnder, phoneJpeg, upload } from "../api/media-helpers.ts";
import { cacheTotals } from "../../src/storage/remote-media-cache.ts";
import { ADMIN_SCOPES, lastAudit } from "./admin-helpers.ts";

async function settle(...servers: TestServer[]): Promise<void> {
  for (let round = 0; round < 4; round++) for (const s of servers) await s.drainJobs();
}

test("reject_media drops the domain's cached copies and keeps new ones out; lifting it lets copies be made again", async (t) => {
  const a = await startTestServer();
  const b = await startTestServer();
  t.after(() => Promise.all([a.close(), b.close()]));
  const alice = await a.user("alice");
  const bob = await b.user("bob", { role: "admin", scopes: ADMIN_SCOPES });
  const cacheDir = join(b.dataDir, "media", "cache");

  await a.api(alice, "PATCH", "/api/v1/accounts/update_credentials", imageForm("avatar", await png(300, 300), "me.png", "image/png"));
  const found = await b.api(bob, "GET", `/api/v1/accounts/lookup?acct=alice@${a.app.config.domain}`);
  await b.api(bob, "POST", `/api/v1/accounts/${found.id}/follow`);
  await settle(b, a);
  const photo = (await upload(a, alice, await phoneJpeg(300, 200), { version: 1 })).body;
  await a.api(alice, "POST", "/api/v1/statuses", { status: "Look!", media_ids: [photo.id] });
  await settle(a, b);
  assert.equal(filesUnder(cacheDir).length, 3, "the photo (original, small) and the avatar");
  assert.equal(cacheTotals(b.app.db).entries, 2);

  const host = new URL(a.url).hostname;
  const block = await b.api(bob, "POST", "/api/v1/admin/domain_blocks", { domain: host, severity: "noop", reject_media: true });
  assert.deepEqual(lastAudit(b, "create").changes.reject_media, [null, true]);
  await b.drainJobs();
  assert.deepEqual(filesUnder(cacheDir), []);
  assert.equal(cacheTotals(b.app.db).entries, 0);
  const [seen] = await b.api(bob, "GET", "/api/v1/timelines/home");
  assert.equal(seen.media_attachments[0].url, photo.url, "the entity points at the origin again");
  assert.equal((await b.api(bob, "GET", `/api/v1/accounts/${found.id}`)).avatar.startsWith(b.url), false);

  // While the block stands, new posts bring no media here at all.
  const next = (await upload(a, alice, await png(200, 200), { version: 1 })).body;
  await a.api(alice, "POST", "/api/v1/statuses", { status: "More", media_ids: [next.id] });
  await settle(a, b);
  assert.deepEqual(filesUnder(cacheDir), []);

  // Lifted: later posts are copied again.
  await b.api(bob, "DELETE", `/api/v1/admin/domain_blocks/${block.id}`);
  const third = (await upload(a, alice, await png(220, 200), { version: 1 })).body;
  await a.api(alice, "POST", "/api/v1/statuses", { status: "Again", media_ids: [third.id] });
  await settle(a, b);
  assert.ok(filesUnder(cacheDir).length > 0);
});
