import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { loadConfig } from "../../src/config/config.ts";
import { s3Settings } from "../../src/media/s3-store.ts";
import { createCustomEmoji } from "../../src/services/custom-emojis.ts";
import { migrateMedia } from "../../src/services/media-migration.ts";
import { startTestS3 } from "../helpers/s3-server.ts";
import { startTestServer } from "../helpers/server.ts";
import { imageForm, png } from "./accounts-helpers.ts";
import { filesUnder, phoneJpeg, upload } from "./media-helpers.ts";

// Object storage (issue 10 part 5) against s3rver, a real S3 server started by the test.

const keyOf = (url: string, prefix: string) => {
  assert.ok(url.startsWith(prefix + "/"), `${url} is not under ${prefix}`);
  return url.slice(prefix.length + 1);
};

test("with mediaStorage s3, uploads, previews, avatars and emoji are written to the bucket and served from it; deletes remove the objects", async (t) => {
  const s3 = await startTestS3();
  t.after(() => s3.close());
  const s = await startTestServer({ config: s3.config });
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bucketUrl = `${s3.endpoint}/${s3.bucket}`;

  const res = await upload(s, alice, await phoneJpeg(), { version: 1, fields: { description: "in the bucket" } });
  assert.equal(res.status, 200, res.text);
  const media = res.body;
  const originalKey = keyOf(media.url, bucketUrl);
  const smallKey = keyOf(media.preview_url, bucketUrl);
  assert.match(originalKey, /^media_attachments\/[A-Za-z0-9_-]{12,}\/original\.jpg$/);
  assert.match(smallKey, /^media_attachments\/[A-Za-z0-9_-]{12,}\/small\.jpg$/);

  // The objects are the processed files: rotated (400x200 stored sideways becomes 200x400), no EXIF.
  const got = await fetch(media.url);
  assert.equal(got.status, 200);
  assert.equal(got.headers.get("content-type"), "image/jpeg");
  assert.equal(got.headers.get("cache-control"), "public, max-age=31536000, immutable");
  const meta = await sharp(Buffer.from(await got.arrayBuffer())).metadata();
  assert.deepEqual([meta.width, meta.height, meta.exif], [200, 400, undefined]);
  assert.equal((await fetch(media.preview_url)).status, 200);

  // Nothing was kept on local disk: not the files, not the staged upload.
  assert.deepEqual(filesUnder(join(s.dataDir, "media")), []);
  assert.deepEqual(filesUnder(join(s.dataDir, "tmp", "media")), []);

  // A custom thumbnail goes there too.
  const thumbForm = new FormData();
  thumbForm.append("thumbnail", new Blob([new Uint8Array(await png(300, 300))], { type: "image/png" }), "t.png");
  const withThumb = await s.api(alice, "PUT", `/api/v1/media/${media.id}`, thumbForm);
  const thumbKey = keyOf(withThumb.preview_url, bucketUrl);
  assert.match(thumbKey, /\/thumbnail\.jpg$/);

  // Avatars (and their URLs in the Account entity and the actor) are in the bucket.
  const me = await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", imageForm("avatar", await png(600, 600), "me.png", "image/png"));
  const avatarKey = keyOf(me.avatar, bucketUrl);
  assert.match(avatarKey, new RegExp(`^accounts/avatars/${alice.id}/[A-Za-z0-9_-]+\\.png$`));
  assert.equal(me.avatar_static, me.avatar);
  assert.deepEqual((await sharp(Buffer.from(await (await fetch(me.avatar)).arrayBuffer())).metadata()).width, 400);
  const actor = await (await fetch(`${s.url}/users/alice`, { headers: { accept: "application/activity+json" } })).json();
  assert.equal(actor.icon.url, me.avatar);

  // Custom emoji: the image and its static PNG.
  const emoji = await createCustomEmoji(s.app, { shortcode: "blobcat", data: await png(32, 32), contentType: "image/png" });
  const [listed] = await s.api(null, "GET", "/api/v1/custom_emojis");
  assert.equal(listed.shortcode, emoji.shortcode);
  const emojiKey = keyOf(listed.url, bucketUrl);
  const emojiStaticKey = keyOf(listed.static_url, bucketUrl);
  assert.equal((await fetch(listed.static_url)).status, 200);

  assert.deepEqual(await s3.keys(), [avatarKey, emojiKey, emojiStaticKey, originalKey, smallKey, thumbKey].sort());

  // Deleting the upload removes its three objects; replacing the avatar removes the old one.
  await s.api(alice, "DELETE", `/api/v1/media/${media.id}`);
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", imageForm("avatar", await png(100, 100), "me2.png", "image/png"));
  const keys = await s3.keys();
  for (const gone of [originalKey, smallKey, thumbKey, avatarKey]) assert.ok(!keys.includes(gone), `${gone} is still in the bucket`);
  assert.equal(keys.length, 3, "the new avatar and the emoji's two files");
  assert.equal((await fetch(media.url)).status, 404);
});

test("a public base URL (a CDN in front of the bucket) is used for every media URL", async (t) => {
  const s3 = await startTestS3();
  t.after(() => s3.close());
  const s = await startTestServer({ config: { ...s3.config, s3PublicUrl: "https://cdn.example.test/media/" } });
  t.after(() => s.close());
  const alice = await s.user("alice");
  const res = await upload(s, alice, await phoneJpeg(), { version: 1 });
  assert.match(res.body.url, /^https:\/\/cdn\.example\.test\/media\/media_attachments\/[A-Za-z0-9_-]+\/original\.jpg$/);
  // The object itself is in the bucket under the same key.
  assert.deepEqual(await s3.keys(), [res.body.url, res.body.preview_url].map((u: string) => u.slice("https://cdn.example.test/media/".length)).sort());
});

test("S3 settings are checked when the app starts: a missing bucket or a bad endpoint is a one-line error", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const base = loadConfig(s.dataDir, { logLevel: "silent" }, {});
  assert.throws(() => s3Settings({ ...base, mediaStorage: "s3", s3AccessKeyId: "k", s3SecretAccessKey: "x" }), /S3 media storage needs s3Bucket$/);
  assert.throws(() => s3Settings({ ...base, s3Bucket: "bkt", s3AccessKeyId: "k", s3SecretAccessKey: "x", s3Endpoint: "ftp://x" }), /invalid s3Endpoint/);
  // Virtual-host style by default, AWS's endpoint when none is given.
  const aws = s3Settings({ ...base, s3Bucket: "my-bucket", s3Region: "eu-west-3", s3AccessKeyId: "k", s3SecretAccessKey: "x" });
  assert.equal(aws.publicUrl, "https://my-bucket.s3.eu-west-3.amazonaws.com");
});

test("roost media migrate moves existing files to S3 and back, without changing a row", async (t) => {
  const s3 = await startTestS3();
  t.after(() => s3.close());
  const s = await startTestServer({ config: { ...s3.config, mediaStorage: "local" } });
  t.after(() => s.close());
  const alice = await s.user("alice");
  const up = (await upload(s, alice, await phoneJpeg(), { version: 1 })).body;
  await s.api(alice, "POST", "/api/v1/statuses", { status: "with a picture", media_ids: [up.id] });
  const me = await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", imageForm("header", await png(1600, 600), "h.png", "image/png"));
  await createCustomEmoji(s.app, { shortcode: "party", data: await png(16, 16), contentType: "image/png" });
  const local = filesUnder(join(s.dataDir, "media"));
  assert.equal(local.length, 5, local.join(", "));
  const originalBytes = readFileSync(join(s.dataDir, "media", keyOf(up.url, `${s.url}/system`)));

  const seen: number[] = [];
  const toS3 = await migrateMedia(s.app, "s3", (p) => seen.push(p.done));
  assert.deepEqual(toS3, { copied: 5, present: 0, missing: [] });
  assert.deepEqual(seen, [0, 1, 2, 3, 4, 5], "progress after each file");
  assert.deepEqual(filesUnder(join(s.dataDir, "media")), [], "the local copies are gone");
  assert.deepEqual(await s3.keys(), local);

  // Switched to S3 (the CLI writes mediaStorage to config.json), the same rows show bucket URLs.
  s.app.config.mediaStorage = "s3";
  const status = (await s.api(alice, "GET", `/api/v1/accounts/${alice.id}/statuses`))[0];
  const url = status.media_attachments[0].url as string;
  assert.equal(url, `${s3.endpoint}/${s3.bucket}/${keyOf(up.url, `${s.url}/system`)}`);
  assert.deepEqual(Buffer.from(await (await fetch(url)).arrayBuffer()), originalBytes);
  assert.ok((await s.api(alice, "GET", "/api/v1/accounts/verify_credentials")).header.startsWith(`${s3.endpoint}/${s3.bucket}/accounts/headers/`));

  // A second run finds nothing left to copy; then everything comes back.
  assert.deepEqual(await migrateMedia(s.app, "s3"), { copied: 0, present: 5, missing: [] });
  assert.deepEqual(await migrateMedia(s.app, "local"), { copied: 5, present: 0, missing: [] });
  s.app.config.mediaStorage = "local";
  assert.deepEqual(await s3.keys(), []);
  assert.deepEqual(filesUnder(join(s.dataDir, "media")), local);
  assert.equal((await fetch((await s.api(alice, "GET", "/api/v1/accounts/verify_credentials")).header)).status, 200);
  assert.equal(me.header.startsWith(`${s.url}/system/`), true);
});
