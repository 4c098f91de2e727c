import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { loadConfig } from "../../src/config/config.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { createCustomEmoji } from "../../src/services/custom-emojis.ts";
import { initDataDir } from "../../src/services/init.ts";
import { filesUnder } from "../api/media-helpers.ts";
import { S3_KEY_ID, S3_SECRET, startTestS3 } from "../helpers/s3-server.ts";
import { roost, tempDir } from "./cli-helpers.ts";

test("roost media migrate --to s3 moves the files with progress and switches mediaStorage; media prune reports", async (t) => {
  const s3 = await startTestS3();
  t.after(() => s3.close());
  const dataDir = join(tempDir(t), "data");
  initDataDir(dataDir, { domain: "social.example", protocol: "http" });
  const app = createApp(loadConfig(dataDir, { logLevel: "silent", jobsAutorun: false }, {}));
  const png = await sharp({ create: { width: 16, height: 16, channels: 4, background: "#3366ff" } }).png().toBuffer();
  await createCustomEmoji(app, { shortcode: "wave", data: png, contentType: "image/png" });
  await closeApp(app);
  const files = filesUnder(join(dataDir, "media"));
  assert.equal(files.length, 2);

  // The bucket's settings from the environment (ROOST_S3_*), as an operator might set them.
  const env = {
    ROOST_S3_ENDPOINT: s3.endpoint,
    ROOST_S3_BUCKET: s3.bucket,
    ROOST_S3_ACCESS_KEY_ID: S3_KEY_ID,
    ROOST_S3_SECRET_ACCESS_KEY: S3_SECRET,
    ROOST_S3_PATH_STYLE: "true",
  };
  const [bad, moved] = [await roost(["media", "migrate", "--to", "ftp", "--data-dir", dataDir]), await roost(["media", "migrate", "--to", "s3", "--data-dir", dataDir], { env })];
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, 'error: --to must be s3 or local, not "ftp"\n');
  assert.equal(moved.code, 0, moved.stderr);
  assert.deepEqual(JSON.parse(moved.stdout), { copied: 2, present: 0, missing: [] });
  assert.match(moved.stderr, /moving media to s3: 0\/2 files\n/);
  assert.match(moved.stderr, /moving media to s3: 2\/2 files\n/);
  assert.match(moved.stderr, /mediaStorage is now s3: 2 files moved, 0 already there, 0 missing\n$/);
  assert.equal(JSON.parse(readFileSync(join(dataDir, "config.json"), "utf8")).mediaStorage, "s3");
  assert.deepEqual(await s3.keys(), files);
  assert.deepEqual(filesUnder(join(dataDir, "media")), []);

  const prune = await roost(["media", "prune", "--dry-run", "--days", "3", "--data-dir", dataDir], { env });
  assert.equal(prune.code, 0, prune.stderr);
  assert.deepEqual(JSON.parse(prune.stdout), { entries: 0, bytes: 0, orphans: 0, remainingBytes: 0 });
  assert.match(prune.stderr, /^would free 0 bytes in 0 cached remote files; the cache holds 0 bytes\n$/);
});
