// masto.js uploads a photo with alt text and focus (v2.media.create), updates it, posts it, and
// a follower reads the post: the fields masto.js hands back are checked one by one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRestAPIClient } from "masto";
import sharp from "sharp";
import { startTestServer } from "../helpers/server.ts";
import { phoneJpeg } from "../api/media-helpers.ts";

test("masto.js: v2.media.create, media update and a status with media, end to end", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const aliceUser = await s.user("alice");
  const bobUser = await s.user("bob");
  const alice = createRestAPIClient({ url: s.url, accessToken: aliceUser.token });
  const bob = createRestAPIClient({ url: s.url, accessToken: bobUser.token });
  await bob.v1.accounts.$select(aliceUser.id).follow();

  const photo = new Blob([new Uint8Array(await phoneJpeg(400, 200))], { type: "image/jpeg" });
  const media = await alice.v2.media.create({ file: photo, description: "A red wall, blue on top", focus: "0.0,0.5" });
  assert.match(media.id, /^\d+$/);
  assert.equal(media.type, "image");
  assert.equal(media.description, "A red wall, blue on top");
  assert.ok(media.url?.startsWith(`${s.app.baseUrl}/system/media_attachments/`));
  assert.ok(media.previewUrl?.startsWith(`${s.app.baseUrl}/system/media_attachments/`));
  assert.equal(typeof media.blurhash, "string");
  const meta = media.meta as { original: { width: number; height: number; aspect: number }; small: { width: number }; focus: { x: number; y: number } };
  assert.deepEqual([meta.original.width, meta.original.height, meta.original.aspect], [200, 400, 0.5]);
  assert.deepEqual(meta.focus, { x: 0, y: 0.5 });

  const updated = await alice.v1.media.$select(media.id).update({ description: "Blue above red" });
  assert.equal(updated.description, "Blue above red");

  const status = await alice.v1.statuses.create({ status: "Look at this wall", mediaIds: [media.id], sensitive: true });
  assert.equal(status.mediaAttachments.length, 1);
  assert.equal(status.mediaAttachments[0].id, media.id);
  assert.equal(status.mediaAttachments[0].description, "Blue above red");
  assert.equal(status.sensitive, true);

  await s.drainJobs();
  const [seen] = await bob.v1.timelines.home.list({ limit: 1 });
  assert.equal(seen.id, status.id);
  const [attachment] = seen.mediaAttachments;
  assert.equal(attachment.url, media.url);
  assert.equal(attachment.description, "Blue above red");
  assert.equal(attachment.blurhash, media.blurhash);
  // What the follower downloads is upright and carries no EXIF.
  const file = Buffer.from(await (await fetch(attachment.url!)).arrayBuffer());
  const info = await sharp(file).metadata();
  assert.deepEqual([info.width, info.height, info.exif, info.orientation], [200, 400, undefined, undefined]);

  // Once posted, the upload cannot be edited through the media API any more.
  await assert.rejects(alice.v1.media.$select(media.id).update({ description: "too late" }), (e: { statusCode?: number }) => e.statusCode === 404);
});
