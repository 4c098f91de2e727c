// `roost emoji add | import | list | remove` (issue 10 part 7), run as an operator would.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { zipSync } from "fflate";
import sharp from "sharp";
import * as tar from "tar";
import { roost, tempDir } from "./cli-helpers.ts";

const png = (r: number) => sharp({ create: { width: 12, height: 12, channels: 4, background: { r, g: 40, b: 40, alpha: 1 } } }).png().toBuffer();

interface Listed {
  shortcode: string;
  url: string;
  static_url: string;
  visible_in_picker: boolean;
  category: string | null;
  size: number;
}

test("roost emoji: add, import a tar.gz and a zip pack, list, remove", async (t) => {
  const dir = tempDir(t);
  const dataDir = join(dir, "data");
  const dd = ["--data-dir", dataDir];
  const init = await roost(["init", ...dd, "--domain", "emoji.example", "--protocol", "http"]);
  assert.equal(init.code, 0, init.stderr);

  const blob = await png(200);
  const gif = await sharp({ create: { width: 12, height: 12, channels: 3, background: "#00ff00" } }).gif().toBuffer();
  const big = await sharp(randomBytes(200 * 200 * 3), { raw: { width: 200, height: 200, channels: 3 } }).png().toBuffer();
  writeFileSync(join(dir, "blob.png"), blob);
  writeFileSync(join(dir, "secret.gif"), gif);
  writeFileSync(join(dir, "big.png"), big);
  writeFileSync(join(dir, "text.png"), "not an image");

  const [add, unlisted, tooBig, notImage, missing, badCode] = await Promise.all([
    roost(["emoji", "add", "blobcat", join(dir, "blob.png"), "--category", "Blobs", ...dd]),
    roost(["emoji", "add", ":secret:", join(dir, "secret.gif"), "--unlisted", ...dd]),
    roost(["emoji", "add", "big", join(dir, "big.png"), ...dd]),
    roost(["emoji", "add", "text", join(dir, "text.png"), ...dd]),
    roost(["emoji", "add", "nofile", join(dir, "nope.png"), ...dd]),
    roost(["emoji", "add", "bad-code", join(dir, "blob.png"), ...dd]),
  ]);
  assert.equal(add.code, 0, add.stderr);
  assert.equal(add.stdout, "blobcat\n");
  assert.equal(unlisted.code, 0, unlisted.stderr);
  assert.equal(unlisted.stdout, "secret\n");
  assert.deepEqual([tooBig.code, tooBig.stderr], [1, "error: image file size must be at most 50 KB\n"]);
  assert.deepEqual([notImage.code, notImage.stderr], [1, "error: image content type is invalid\n"]);
  assert.deepEqual([missing.code, missing.stderr], [1, `error: cannot read ${join(dir, "nope.png")}: ENOENT\n`]);
  assert.deepEqual([badCode.code, badCode.stderr], [1, "error: shortcode is invalid\n"]);

  // A tar.gz pack: files named by shortcode, in folders; macOS shadow files and other files ignored.
  const packDir = join(dir, "pack");
  mkdirSync(join(packDir, "blobs"), { recursive: true });
  writeFileSync(join(packDir, "blobs", "BlobCat.png"), await png(10)); // taken (any case): skipped
  writeFileSync(join(packDir, "blobs", "wave.png"), await png(20));
  writeFileSync(join(packDir, "blobs", "._wave.png"), "mac resource fork");
  writeFileSync(join(packDir, "party.gif"), gif);
  writeFileSync(join(packDir, "huge.png"), big);
  writeFileSync(join(packDir, "README.txt"), "hello");
  const tgz = join(dir, "pack.tar.gz");
  await tar.c({ gzip: true, file: tgz, cwd: packDir }, ["blobs", "party.gif", "huge.png", "README.txt"]);
  const zip = join(dir, "pack.zip");
  writeFileSync(zip, zipSync({ "zz/heart.png": await png(30), "wave.png": await png(40) }));
  writeFileSync(join(dir, "junk.tar.gz"), "neither tar nor zip");

  const imported = await roost(["emoji", "import", tgz, "--category", "Pack", ...dd]);
  assert.equal(imported.code, 1, "one entry failed");
  assert.deepEqual(imported.stdout.split("\n").filter(Boolean).sort(), ["party", "wave"]);
  assert.match(imported.stderr, /^failed: huge\.png: file size must be at most 50 KB$/m);
  assert.match(imported.stderr, /^imported 2, updated 0, skipped 1, failed to import 1$/m);

  const [zipped, overwrite, junk] = await Promise.all([
    roost(["emoji", "import", zip, "--prefix", "z_", "--unlisted", ...dd]),
    roost(["emoji", "import", zip, "--overwrite", ...dd]),
    roost(["emoji", "import", join(dir, "junk.tar.gz"), ...dd]),
  ]);
  assert.equal(zipped.code, 0, zipped.stderr);
  assert.deepEqual(zipped.stdout.split("\n").filter(Boolean).sort(), ["z_heart", "z_wave"]);
  assert.equal(overwrite.code, 0, overwrite.stderr);
  assert.match(overwrite.stderr, /^imported 1, updated 1, skipped 0, failed to import 0$/m);
  assert.equal(junk.code, 1);
  assert.match(junk.stderr, /^error: .*junk\.tar\.gz is not a (readable )?tar\.gz (or|nor) zip archive/);

  const list = await roost(["emoji", "list", "--json", ...dd]);
  assert.equal(list.code, 0, list.stderr);
  const rows = JSON.parse(list.stdout) as Listed[];
  assert.deepEqual(
    rows.map((e) => [e.shortcode, e.category, e.visible_in_picker]),
    [
      ["blobcat", "Blobs", true],
      ["heart", null, true],
      ["party", "Pack", true],
      ["secret", null, false],
      ["wave", "Pack", true],
      ["z_heart", null, false],
      ["z_wave", null, false],
    ],
  );
  const byCode = new Map(rows.map((e) => [e.shortcode, e]));
  assert.equal(byCode.get("blobcat")!.size, blob.length);
  assert.match(byCode.get("secret")!.url, /^http:\/\/emoji\.example\/system\/emojis\/[^/]+\.gif$/);
  assert.match(byCode.get("secret")!.static_url, /_static\.png$/);
  const fileOf = (e: Listed) => join(dataDir, "media", new URL(e.url).pathname.replace(/^\/system\//, ""));
  for (const e of rows) assert.ok(existsSync(fileOf(e)), e.shortcode);

  const text = await roost(["emoji", "list", ...dd]);
  assert.equal(text.code, 0);
  assert.equal(text.stdout.split("\n").filter(Boolean).length, 7);
  assert.match(text.stdout, /^:secret:\t-\tunlisted\t\d+ B\thttp:\/\/emoji\.example\/system\/emojis\/\S+\.gif$/m);

  const [removed, unknown] = await Promise.all([roost(["emoji", "remove", "secret", ...dd]), roost(["emoji", "remove", "nothing", ...dd])]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.deepEqual([unknown.code, unknown.stderr], [1, "error: unknown emoji: nothing\n"]);
  assert.equal(existsSync(fileOf(byCode.get("secret")!)), false);
  assert.equal(existsSync(fileOf(byCode.get("secret")!).replace(/\.gif$/, "_static.png")), false);
  const after = JSON.parse((await roost(["emoji", "list", "--json", ...dd])).stdout) as Listed[];
  assert.deepEqual(after.map((e) => e.shortcode), ["blobcat", "heart", "party", "wave", "z_heart", "z_wave"]);
});
