// HEIC uploads (iPhone photos): decoded by libheif in wasm (src/workers/heic.ts), turned by the
// HEIF rotation, stored as JPEG with no EXIF or GPS. The fixture is an iPhone-like file made by
// test/fixtures/media/make-heic.mjs (nothing the tests run encodes HEVC): 96x48 as stored, left
// half red, right half blue, with `irot` 90° clockwise AND EXIF Orientation 6 + GPS, as an
// iPhone writes both; read right it is 48x96 with red on top.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import sharp from "sharp";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { fetchImage, mediaOnDisk, pixel, upload } from "./media-helpers.ts";

const HEIC = readFileSync(new URL("../fixtures/media/iphone.heic", import.meta.url));

let s: TestServer;
let alice: TestUser;
before(async () => {
  s = await startTestServer();
  alice = await s.user("alice");
});
after(() => s.close());

test("the fixture is what it claims: HEVC in HEIF with irot, EXIF orientation 6 and GPS inside", async () => {
  assert.equal(HEIC.toString("latin1", 4, 12), "ftypheic");
  assert.ok(HEIC.includes(Buffer.from("hvcC")) && HEIC.includes(Buffer.from("irot")));
  const meta = await sharp(HEIC).metadata();
  assert.deepEqual([meta.format, meta.compression], ["heif", "hevc"]);
  const exif = meta.exif!;
  assert.ok(exif.includes(Buffer.from("iPhone 15")), "EXIF with the camera model");
  // Big-endian TIFF (exiftool): Orientation (0x0112, SHORT, 1) = 6, and the GPS IFD pointer (0x8825).
  assert.equal(exif.toString("latin1", 0, 2), "MM");
  assert.ok(exif.includes(Buffer.from([0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06])), "Orientation 6");
  assert.ok(exif.includes(Buffer.from([0x88, 0x25])), "a GPS IFD");
  assert.ok(HEIC.length < 30_000);
});

for (const version of [1, 2] as const) {
  test(`POST /api/v${version}/media: an iPhone HEIC becomes an upright JPEG with no EXIF or GPS`, async () => {
    // The client's name and type say PNG: the bytes decide.
    const res = await upload(s, alice, HEIC, { name: "IMG_0001.png", type: "image/png", version, fields: { description: "Upright" } });
    assert.equal(res.status, 200, res.text);
    const m = res.body;
    assert.equal(m.type, "image");
    assert.equal(m.description, "Upright");
    // irot applied once: portrait. (Applying the EXIF orientation too would make it 96x48 again.)
    assert.deepEqual(m.meta.original, { width: 48, height: 96, size: "48x96", aspect: 0.5 });
    assert.deepEqual([m.meta.small.width, m.meta.small.height], [48, 96]);
    assert.match(m.url, /\/original\.jpg$/);
    assert.match(m.blurhash, /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,}$/);

    const original = await fetchImage(m.url);
    assert.equal(original.res.headers.get("content-type"), "image/jpeg");
    assert.equal(original.meta.format, "jpeg");
    assert.deepEqual([original.meta.width, original.meta.height], [48, 96]);
    assert.equal(original.meta.orientation, undefined);
    assert.equal(original.meta.exif, undefined, "no EXIF, so no GPS");
    assert.equal(original.meta.xmp, undefined);
    assert.ok(!original.bytes.includes(Buffer.from("iPhone")) && !original.bytes.includes(Buffer.from("Apple")));
    const [r1, , b1] = await pixel(original.bytes, 24, 12);
    const [r2, , b2] = await pixel(original.bytes, 24, 84);
    assert.ok(r1 > 170 && b1 < 90, `top is red (${r1}, ${b1})`);
    assert.ok(b2 > 170 && r2 < 90, `bottom is blue (${r2}, ${b2})`);

    const small = await fetchImage(m.preview_url);
    assert.equal(small.meta.format, "jpeg");
    assert.equal(small.meta.exif, undefined);
  });
}

test("a corrupt HEIC is a 422 and leaves no file behind", async () => {
  const before = mediaOnDisk(s);
  // Cut inside the coded image data (iloc points past the end), and a HEIF header over junk.
  const truncated = HEIC.subarray(0, HEIC.length - 300);
  const junk = Buffer.concat([HEIC.subarray(0, 24), Buffer.alloc(2000, 0x5a)]);
  for (const [what, data] of [["truncated", truncated], ["header only", junk]] as const) {
    for (const version of [1, 2] as const) {
      const res = await upload(s, alice, data, { name: "IMG_0002.HEIC", type: "image/heic", version });
      assert.equal(res.status, 422, `${what} v${version}: ${res.text}`);
      assert.deepEqual(res.body, { error: "File type of uploaded media could not be verified" }, what);
    }
  }
  assert.deepEqual(mediaOnDisk(s), before);
});

test("the instance lists image/heic and image/heif", async () => {
  const inst = await s.api(null, "GET", "/api/v2/instance");
  const types: string[] = inst.configuration.media_attachments.supported_mime_types;
  assert.ok(types.includes("image/heic") && types.includes("image/heif"));
});
