// POST /api/v1|v2/media with real files made by sharp: what is stored and served (rotated, no
// EXIF, downscaled, small preview, blurhash), and every kind of bad input refused with a clear
// 4xx that leaves no file behind.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import {
  avif,
  fetchImage,
  fileForm,
  mediaOnDisk,
  noisyJpeg,
  phoneJpeg,
  pixel,
  pixelBomb,
  pngWithAlpha,
  svgWithScript,
  upload,
  webp,
  zipFile,
} from "./media-helpers.ts";

let s: TestServer;
let alice: TestUser;
before(async () => {
  // Small limits, so that "too large" files stay small: 400 KB per upload, 200 KB per image.
  s = await startTestServer({ config: { maxMediaBytes: 400_000, maxImageBytes: 200_000 } });
  alice = await s.user("alice");
});
after(() => s.close());

const BLURHASH = /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,}$/;

test("a phone photo: rotated by its EXIF orientation, stored and served without any EXIF or GPS", async () => {
  const input = await phoneJpeg(400, 200);
  const inMeta = await sharp(input).metadata();
  assert.equal(inMeta.orientation, 6);
  assert.ok(inMeta.exif && inMeta.exif.includes(Buffer.from("RoostPhone")), "the input carries EXIF");

  const res = await upload(s, alice, input, { name: "IMG_0001.JPG", type: "image/jpeg", fields: { description: "A red wall", focus: "0.25,-0.5" } });
  assert.equal(res.status, 200, res.text);
  const m = res.body;
  assert.equal(m.type, "image");
  assert.equal(m.description, "A red wall");
  assert.deepEqual(m.meta.original, { width: 200, height: 400, size: "200x400", aspect: 0.5 });
  assert.deepEqual(m.meta.focus, { x: 0.25, y: -0.5 });
  assert.match(m.blurhash, BLURHASH);
  assert.equal(m.remote_url, null);
  assert.equal(m.text_url, null);
  assert.match(m.url, new RegExp(`^${s.app.baseUrl}/system/media_attachments/[\\w-]{16}/original\\.jpg$`));
  assert.doesNotMatch(m.url, new RegExp(m.id), "the file's name does not give away the id");

  const original = await fetchImage(m.url);
  assert.equal(original.res.headers.get("content-type"), "image/jpeg");
  assert.equal(original.meta.format, "jpeg");
  assert.equal(original.meta.width, 200);
  assert.equal(original.meta.height, 400);
  assert.equal(original.meta.orientation, undefined);
  assert.equal(original.meta.exif, undefined, "no EXIF (and so no GPS) in the stored file");
  assert.equal(original.meta.xmp, undefined);
  assert.equal(original.meta.iptc, undefined);
  assert.ok(!original.bytes.includes(Buffer.from("RoostPhone")));
  // The blue quarter that was on the left is on top once rotated.
  const [r1, , b1] = await pixel(original.bytes, 100, 20);
  const [r2, , b2] = await pixel(original.bytes, 100, 380);
  assert.ok(b1 > 200 && r1 < 60, `top is blue (${r1}, ${b1})`);
  assert.ok(r2 > 200 && b2 < 60, `bottom is red (${r2}, ${b2})`);

  const small = await fetchImage(m.preview_url);
  assert.equal(small.meta.exif, undefined);
  assert.deepEqual([small.meta.width, small.meta.height], [m.meta.small.width, m.meta.small.height]);
});

test("PNG with alpha, still GIF, WebP and AVIF are accepted; each has an original, a small preview and a blurhash", async () => {
  const cases = [
    { name: "alpha.png", data: await pngWithAlpha(120, 80), format: "png", type: "image/png", size: [120, 80] },
    // A still GIF is stored as PNG (an animated one becomes gifv: media-video.test.ts).
    { name: "still.gif", data: await sharp({ create: { width: 64, height: 48, channels: 3, background: "#336699" } }).gif().toBuffer(), format: "png", type: "image/png", size: [64, 48] },
    { name: "pic.webp", data: await webp(90, 60), format: "webp", type: "image/webp", size: [90, 60] },
    // AVIF is stored as JPEG (many browsers cannot show AVIF), as Mastodon converts it.
    { name: "pic.avif", data: await avif(64, 48), format: "jpeg", type: "image/jpeg", size: [64, 48] },
  ];
  for (const c of cases) {
    // The client's name and type say nothing: the bytes decide.
    const res = await upload(s, alice, c.data, { name: "upload.bin", type: "application/octet-stream" });
    assert.equal(res.status, 200, `${c.name}: ${res.text}`);
    assert.equal(res.body.type, "image", c.name);
    assert.deepEqual([res.body.meta.original.width, res.body.meta.original.height], c.size, c.name);
    assert.match(res.body.blurhash, BLURHASH, c.name);
    const original = await fetchImage(res.body.url);
    assert.equal(original.res.headers.get("content-type"), c.type, c.name);
    assert.equal(original.meta.format, c.format, c.name);
    const small = await fetchImage(res.body.preview_url);
    assert.equal(small.res.status, 200, c.name);
    if (c.name === "alpha.png") {
      assert.equal(original.meta.hasAlpha, true, "transparency is kept");
      assert.equal(small.meta.format, "png");
    }
  }
  assert.deepEqual(mediaOnDisk(s).staged, [], "nothing left in the staging area");
});

test("large photos are downscaled to 3840x2160 in area; the small preview to 640x360", async () => {
  const big = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: "#556677" } }).jpeg().toBuffer();
  const res = await upload(s, alice, big, { type: "image/jpeg" });
  assert.equal(res.status, 200, res.text);
  const { original, small } = res.body.meta;
  assert.ok(original.width * original.height <= 3840 * 2160, `${original.size}`);
  assert.ok(original.width * original.height > 3840 * 2160 * 0.99, `${original.size}`);
  assert.ok(Math.abs(original.aspect - 4 / 3) < 0.01);
  assert.ok(small.width * small.height <= 640 * 360 && small.width * small.height > 640 * 360 * 0.98, small.size);
  const served = await fetchImage(res.body.url);
  assert.deepEqual([served.meta.width, served.meta.height], [original.width, original.height]);
});

test("bad input: each a clear 4xx, and no file is left on disk", async () => {
  const jpeg = await phoneJpeg(400, 200);
  const cases: { what: string; send: (version: 1 | 2) => Promise<{ status: number; body: any; text: string }>; status: number; error: string | RegExp }[] = [
    { what: "text named .png", send: (v) => upload(s, alice, Buffer.from("hello, I am text"), { name: "cat.png", type: "image/png", version: v }), status: 422, error: "Validation failed: File content type is invalid" },
    { what: "a ZIP", send: (v) => upload(s, alice, zipFile(), { name: "photos.zip", type: "image/jpeg", version: v }), status: 422, error: "Validation failed: File content type is invalid" },
    { what: "an SVG with a script", send: (v) => upload(s, alice, svgWithScript(), { name: "x.svg", type: "image/svg+xml", version: v }), status: 422, error: "Validation failed: File content type is invalid" },
    { what: "an empty file", send: (v) => upload(s, alice, Buffer.alloc(0), { name: "empty.jpg", type: "image/jpeg", version: v }), status: 422, error: "Validation failed: File can't be blank" },
    { what: "no file at all", send: (v) => s.req(alice, "POST", `/api/v${v}/media`, { description: "nothing" }), status: 422, error: "Validation failed: File can't be blank" },
    { what: "a truncated JPEG", send: (v) => upload(s, alice, jpeg.subarray(0, Math.floor(jpeg.length / 2)), { type: "image/jpeg", version: v }), status: 422, error: "File type of uploaded media could not be verified" },
    { what: "a pixel bomb (30000x30000 PNG)", send: (v) => upload(s, alice, pixelBomb(), { type: "image/png", version: v }), status: 422, error: "30000x30000 images are not supported" },
    {
      what: "a description over 1,500 characters",
      send: (v) => upload(s, alice, jpeg, { type: "image/jpeg", fields: { description: "é".repeat(1501) }, version: v }),
      status: 422,
      error: "Validation failed: Description is too long (maximum is 1500 characters)",
    },
    {
      what: "an image over the image size limit",
      send: async (v) => upload(s, alice, await noisyJpeg(250_000), { type: "image/jpeg", version: v }),
      status: 422,
      error: "Validation failed: File file size must be less than 0.2 MB",
    },
    {
      what: "a file over the upload limit (413)",
      send: (v) => upload(s, alice, Buffer.alloc(450_000, 1), { type: "video/mp4", version: v }),
      status: 413,
      error: "Payload Too Large",
    },
    {
      what: "a body declared far over the limit (413 before reading it)",
      send: (v) => upload(s, alice, Buffer.alloc(3_000_000, 1), { type: "video/mp4", version: v }),
      status: 413,
      error: "Payload Too Large",
    },
  ];
  const filesBefore = mediaOnDisk(s);
  for (const c of cases) {
    for (const version of [1, 2] as const) {
      const res = await c.send(version);
      assert.equal(res.status, c.status, `${c.what}: ${res.text}`);
      if (typeof c.error === "string") assert.deepEqual(res.body, { error: c.error }, c.what);
      assert.deepEqual(mediaOnDisk(s), filesBefore, `${c.what}: files left behind`);
    }
  }
  // Nothing was kept: no row either.
  const rows = s.app.db.prepare("SELECT count(*) AS n FROM media_attachments WHERE file IS NULL").get() as { n: bigint };
  assert.equal(rows.n, 0n);
});

test("the instance advertises exactly the accepted types and the limits", async () => {
  const inst = await s.api(null, "GET", "/api/v2/instance");
  assert.deepEqual(inst.configuration.media_attachments.supported_mime_types, ["image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "image/heic", "image/heif", "video/mp4", "video/quicktime", "video/webm", "audio/webm", "video/3gpp", "audio/3gpp", "audio/mp4", "audio/m4a", "audio/x-m4a", "audio/mpeg", "audio/mp3", "audio/ogg", "audio/vorbis", "video/ogg", "audio/wav", "audio/wave", "audio/x-wav", "audio/x-pn-wave", "audio/vnd.wave", "audio/flac", "audio/aac"]);
  assert.equal(inst.configuration.media_attachments.description_limit, 1500);
  assert.equal(inst.configuration.media_attachments.image_size_limit, 200_000);
  assert.equal(inst.configuration.statuses.max_media_attachments, 4);
});

test("uploads need a user token with write:media", async () => {
  const png = await pngWithAlpha(8, 8);
  assert.equal((await s.req(null, "POST", "/api/v2/media", fileForm(png, "a.png", "image/png"))).status, 401);
  const reader = await s.user("reader", { scopes: ["read"] });
  assert.equal((await s.req(reader, "POST", "/api/v2/media", fileForm(png, "a.png", "image/png"))).status, 403);
  const narrow = await s.user("narrow", { scopes: ["write:media"] });
  assert.equal((await s.req(narrow, "POST", "/api/v2/media", fileForm(png, "a.png", "image/png"))).status, 200);
  assert.deepEqual(mediaOnDisk(s).staged, []);
});

test("stored files are served with immutable caching, nosniff, a sandboxing CSP and byte ranges", async () => {
  const res = await upload(s, alice, await pngWithAlpha(40, 40), { type: "image/png" });
  const url = res.body.url as string;
  const full = await fetch(url);
  const bytes = Buffer.from(await full.arrayBuffer());
  assert.equal(full.headers.get("cache-control"), "public, max-age=31536000, immutable");
  assert.equal(full.headers.get("x-content-type-options"), "nosniff");
  assert.equal(full.headers.get("content-security-policy"), "default-src 'none'; sandbox");
  assert.equal(full.headers.get("content-type"), "image/png");
  const part = await fetch(url, { headers: { range: "bytes=0-9" } });
  assert.equal(part.status, 206);
  assert.equal(part.headers.get("content-range"), `bytes 0-9/${bytes.length}`);
  assert.deepEqual(Buffer.from(await part.arrayBuffer()), bytes.subarray(0, 10));
  // Nothing outside media/ is served (the staging area is beside it).
  assert.equal((await fetch(`${s.url}/system/..%2Ftmp%2Fmedia%2Fx`)).status, 404);
});
