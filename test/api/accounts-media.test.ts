import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { startTestServer } from "../helpers/server.ts";
import { imageForm, png } from "./accounts-helpers.ts";

async function fetchImage(url: string) {
  const res = await fetch(url);
  const data = Buffer.from(await res.arrayBuffer());
  const meta = res.status === 200 ? await sharp(data, { animated: true }).metadata() : undefined;
  return { res, data, meta };
}

test("avatar and header uploads are resized, stored and served", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");

  const up = await s.req(alice, "PATCH", "/api/v1/accounts/update_credentials", imageForm("avatar", await png(800, 600), "me.png", "image/png"));
  assert.equal(up.status, 200);
  const avatarUrl: string = up.body.avatar;
  assert.match(avatarUrl, new RegExp(`^${s.url}/system/accounts/avatars/${alice.id}/[A-Za-z0-9_-]+\\.png$`));
  assert.equal(up.body.avatar_static, avatarUrl);
  const got = await fetchImage(avatarUrl);
  assert.equal(got.res.status, 200);
  assert.equal(got.res.headers.get("content-type"), "image/png");
  assert.equal(got.res.headers.get("cache-control"), "public, max-age=31536000, immutable");
  assert.equal(got.meta?.format, "png");
  assert.equal(got.meta?.width, 400);
  assert.equal(got.meta?.height, 400);

  const jpeg = await sharp({ create: { width: 3000, height: 1000, channels: 3, background: "#336699" } }).jpeg().toBuffer();
  const h = await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", imageForm("header", jpeg, "banner.jpg", "image/jpeg"));
  assert.match(h.header, /\/system\/accounts\/headers\/\d+\/[A-Za-z0-9_-]+\.jpg$/);
  const header = await fetchImage(h.header);
  assert.equal(header.res.headers.get("content-type"), "image/jpeg");
  assert.deepEqual([header.meta?.width, header.meta?.height], [1500, 500]);
  assert.equal(h.avatar, avatarUrl, "the avatar is untouched by a header upload");

  // Replacing the avatar removes the old file.
  const again = await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", imageForm("avatar", await png(50, 50), "x.png", "image/png"));
  assert.notEqual(again.avatar, avatarUrl);
  assert.equal((await fetch(avatarUrl)).status, 404);
  assert.deepEqual([(await fetchImage(again.avatar)).meta?.width], [400]);

  // DELETE /api/v1/profile/avatar goes back to the default image, idempotently.
  const del = await s.api(alice, "DELETE", "/api/v1/profile/avatar");
  assert.equal(del.avatar, `${s.url}/avatars/original/missing.png`);
  assert.equal(del.header, h.header);
  assert.equal(del.source.privacy, "public", "answers with the CredentialAccount");
  assert.equal((await fetch(again.avatar)).status, 404);
  assert.equal((await s.api(alice, "DELETE", "/api/v1/profile/avatar")).avatar, `${s.url}/avatars/original/missing.png`);
  const delHeader = await s.api(alice, "DELETE", "/api/v1/profile/header");
  assert.equal(delHeader.header, `${s.url}/headers/original/missing.png`);
  assert.equal((await s.req(null, "DELETE", "/api/v1/profile/header")).status, 401);
});

test("animated GIF avatars stay animated with a still PNG as avatar_static", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const frames = await Promise.all(["#ff0000", "#0000ff"].map((c) => sharp({ create: { width: 64, height: 64, channels: 3, background: c } }).png().toBuffer()));
  const gif = await sharp(frames, { join: { animated: true } }).gif({ delay: [100, 100] }).toBuffer();
  const res = await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", imageForm("avatar", gif, "a.gif", "image/gif"));
  assert.match(res.avatar, /\.gif$/);
  assert.match(res.avatar_static, /-static\.png$/);
  const anim = await fetchImage(res.avatar);
  assert.equal(anim.meta?.format, "gif");
  assert.equal(anim.meta?.pages, 2);
  assert.equal(anim.meta?.width, 400);
  const still = await fetchImage(res.avatar_static);
  assert.equal(still.meta?.format, "png");
  assert.equal(still.meta?.pages ?? 1, 1);
});

test("non-images, broken images and oversized files are refused with 422", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const patch = (f: FormData) => s.req(alice, "PATCH", "/api/v1/accounts/update_credentials", f);

  const text = await patch(imageForm("avatar", Buffer.from("just some text\n"), "notes.txt", "text/plain"));
  assert.equal(text.status, 422);
  assert.deepEqual(text.body, {
    error: "Validation failed: Avatar content type is invalid",
    details: { avatar: [{ error: "ERR_INVALID", description: "content type is invalid" }] },
  });
  // A lying Content-Type does not help.
  const disguised = await patch(imageForm("header", Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"), "x.png", "image/png"));
  assert.equal(disguised.status, 422);
  assert.equal(disguised.body.details.header[0].error, "ERR_INVALID");
  // PNG magic bytes followed by garbage: sharp cannot decode it.
  const broken = Buffer.concat([(await png(10, 10)).subarray(0, 40), Buffer.alloc(100, 7)]);
  const b = await patch(imageForm("avatar", broken, "b.png", "image/png"));
  assert.equal(b.status, 422);
  assert.equal(b.body.error, "Validation failed: Avatar could not be processed");

  s.app.config.maxImageBytes = 2048;
  const big = await patch(imageForm("avatar", Buffer.concat([await png(10, 10), Buffer.alloc(4096)]), "big.png", "image/png"));
  assert.equal(big.status, 422);
  assert.match(big.body.error, /^Validation failed: Avatar file size must be less than/);

  // Other fields in a refused request are not saved either.
  const mixed = imageForm("avatar", Buffer.from("nope"), "n.txt", "text/plain");
  mixed.append("display_name", "Changed");
  assert.equal((await patch(mixed)).status, 422);
  const me = await s.api(alice, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(me.display_name, "");
  assert.equal(me.avatar, `${s.url}/avatars/original/missing.png`);
});

test("media file route: defaults, ranges, no path traversal", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  for (const [path, w, h] of [["/avatars/original/missing.png", 400, 400], ["/headers/original/missing.png", 1500, 500]] as const) {
    const img = await fetchImage(s.url + path);
    assert.equal(img.res.status, 200, path);
    assert.equal(img.res.headers.get("content-type"), "image/png");
    assert.deepEqual([img.meta?.width, img.meta?.height], [w, h]);
  }
  writeFileSync(join(s.app.mediaDir, "hello.txt"), "0123456789");
  const whole = await fetch(`${s.url}/system/hello.txt`);
  assert.equal(whole.status, 200);
  assert.equal(whole.headers.get("content-type"), "application/octet-stream");
  assert.equal(whole.headers.get("x-content-type-options"), "nosniff");
  assert.equal(await whole.text(), "0123456789");
  const part = await fetch(`${s.url}/system/hello.txt`, { headers: { range: "bytes=2-5" } });
  assert.equal(part.status, 206);
  assert.equal(part.headers.get("content-range"), "bytes 2-5/10");
  assert.equal(await part.text(), "2345");
  assert.equal((await fetch(`${s.url}/system/hello.txt`, { headers: { range: "bytes=50-" } })).status, 416);
  const etag = whole.headers.get("etag")!;
  assert.equal((await fetch(`${s.url}/system/hello.txt`, { headers: { "if-none-match": etag } })).status, 304);

  // The data dir's config.json sits one level above media/.
  for (const evil of ["/system/..%2Fconfig.json", "/system/accounts/%2E%2E%2F%2E%2E%2Fconfig.json", "/system/%2Fetc%2Fpasswd", "/system/.%2Fhello.txt", "/system/hello.txt%00", "/system/", "/system/missing.png"]) {
    const r = await fetch(s.url + evil);
    assert.equal(r.status, 404, evil);
  }
});
