// An upload's life: processing after a 202 (GET 206 until ready), alt text, focus and custom
// preview while unattached, refused once attached (the seed), deletion, and the clean-up of
// uploads no post took within a day.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { fetchImage, fileForm, mediaOnDisk, phoneJpeg, pngWithAlpha, upload } from "./media-helpers.ts";

const HOUR = 3_600_000;

test("POST /api/v2/media answers 202 when processing goes on; GET /api/v1/media/:id is 206 until it is done", async (t) => {
  // mediaSyncWaitMs 0: the request does not wait at all, the media.process job does the work.
  const s = await startTestServer({ config: { mediaSyncWaitMs: 0 } });
  t.after(() => s.close());
  const alice = await s.user("alice");
  const res = await upload(s, alice, await phoneJpeg(), { type: "image/jpeg", fields: { description: "later" } });
  assert.equal(res.status, 202);
  assert.equal(res.body.url, null);
  assert.equal(res.body.preview_url, null);
  assert.equal(res.body.description, "later");
  const id = res.body.id;

  const pending = await s.req(alice, "GET", `/api/v1/media/${id}`);
  assert.equal(pending.status, 206);
  assert.equal(pending.body.url, null);
  const early = await s.req(alice, "POST", "/api/v1/statuses", { status: "too soon", media_ids: [id] });
  assert.equal(early.status, 422);
  assert.equal(early.body.error, "Cannot attach files that have not finished processing. Try again in a moment!");
  // Alt text can still be set meanwhile (206 while processing).
  const put = await s.req(alice, "PUT", `/api/v1/media/${id}`, { description: "a red wall", focus: "0,1" });
  assert.equal(put.status, 206);

  await s.drainJobs();
  const ready = await s.req(alice, "GET", `/api/v1/media/${id}`);
  assert.equal(ready.status, 200);
  assert.match(ready.body.url, /\/original\.jpg$/);
  assert.equal(ready.body.description, "a red wall");
  assert.deepEqual(ready.body.meta.focus, { x: 0, y: 1 }, "the focus set while processing is kept");
  assert.deepEqual([ready.body.meta.original.width, ready.body.meta.original.height], [200, 400]);
  assert.equal((await fetch(ready.body.url)).status, 200);
  assert.deepEqual(mediaOnDisk(s).staged, []);

  // POST /api/v1/media always waits (200 with the url), whatever mediaSyncWaitMs says.
  const v1 = await upload(s, alice, await pngWithAlpha(), { type: "image/png", version: 1 });
  assert.equal(v1.status, 200);
  assert.match(v1.body.url, /\/original\.png$/);
});

test("a file that fails after the 202 is marked failed: GET answers 422, and it can be deleted", async (t) => {
  const s = await startTestServer({ config: { mediaSyncWaitMs: 0 } });
  t.after(() => s.close());
  const alice = await s.user("alice");
  const jpeg = await phoneJpeg();
  const res = await upload(s, alice, jpeg.subarray(0, jpeg.length >> 1), { type: "image/jpeg" });
  assert.equal(res.status, 202);
  await s.drainJobs();
  const shown = await s.req(alice, "GET", `/api/v1/media/${res.body.id}`);
  assert.equal(shown.status, 422);
  assert.deepEqual(shown.body, { error: "Error processing thumbnail for uploaded media" });
  assert.deepEqual(mediaOnDisk(s), { stored: [], staged: [] });
  const del = await s.req(alice, "DELETE", `/api/v1/media/${res.body.id}`);
  assert.equal(del.status, 200);
  assert.deepEqual(del.body, {});
  assert.equal((await s.req(alice, "GET", `/api/v1/media/${res.body.id}`)).status, 404);
});

test("PUT /api/v1/media/:id: alt text, focus and a custom preview while unattached; refused once attached", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const up = await upload(s, alice, await phoneJpeg(), { type: "image/jpeg", fields: { description: "first" } });
  const id = up.body.id;

  const changed = await s.req(alice, "PUT", `/api/v1/media/${id}`, { description: "second", focus: "-0.5,0.5" });
  assert.equal(changed.status, 200);
  assert.equal(changed.body.description, "second");
  assert.deepEqual(changed.body.meta.focus, { x: -0.5, y: 0.5 });
  assert.equal(changed.body.url, up.body.url);

  // A custom preview replaces preview_url and the blurhash; the file stays.
  const thumb = await s.req(alice, "PUT", `/api/v1/media/${id}`, fileForm(await pngWithAlpha(300, 100), "t.png", "image/png", {}, "thumbnail"));
  assert.equal(thumb.status, 200, thumb.text);
  assert.match(thumb.body.preview_url, /\/thumbnail\.jpg$/);
  assert.notEqual(thumb.body.blurhash, up.body.blurhash);
  assert.equal(thumb.body.description, "second", "a PUT without description keeps it");
  const preview = await fetchImage(thumb.body.preview_url);
  assert.deepEqual([preview.meta.format, preview.meta.width, preview.meta.height], ["jpeg", 300, 100]);
  const badThumb = await s.req(alice, "PUT", `/api/v1/media/${id}`, fileForm(Buffer.from("nope"), "t.png", "image/png", {}, "thumbnail"));
  assert.equal(badThumb.status, 422);
  assert.equal(badThumb.body.error, "Validation failed: Thumbnail content type is invalid");

  const tooLong = await s.req(alice, "PUT", `/api/v1/media/${id}`, { description: "x".repeat(1501) });
  assert.equal(tooLong.status, 422);
  assert.equal(tooLong.body.error, "Validation failed: Description is too long (maximum is 1500 characters)");
  assert.equal((await s.req(alice, "PUT", `/api/v1/media/${id}`, { description: "x".repeat(1500) })).status, 200);

  // Someone else's upload is not found.
  assert.equal((await s.req(bob, "PUT", `/api/v1/media/${id}`, { description: "mine now" })).status, 404);
  assert.equal((await s.req(bob, "GET", `/api/v1/media/${id}`)).status, 404);
  assert.equal((await s.req(bob, "DELETE", `/api/v1/media/${id}`)).status, 404);

  await s.api(alice, "POST", "/api/v1/statuses", { status: "posted", media_ids: [id] });
  // Attached: the description can no longer be updated (seed); Mastodon answers 404.
  const late = await s.req(alice, "PUT", `/api/v1/media/${id}`, { description: "third" });
  assert.equal(late.status, 404);
  assert.deepEqual(late.body, { error: "Record not found" });
  assert.equal((await s.req(alice, "GET", `/api/v1/media/${id}`)).status, 404);
  const stored = s.app.db.prepare("SELECT description FROM media_attachments WHERE id = ?").get(BigInt(id)) as { description: string };
  assert.equal(stored.description, "x".repeat(1500));
  const del = await s.req(alice, "DELETE", `/api/v1/media/${id}`);
  assert.equal(del.status, 422);
  assert.deepEqual(del.body, { error: "Media attachment is currently used by a status" });
});

test("DELETE /api/v1/media/:id removes an unattached upload and its files", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const up = await upload(s, alice, await phoneJpeg(), { type: "image/jpeg" });
  const thumb = await s.req(alice, "PUT", `/api/v1/media/${up.body.id}`, fileForm(await pngWithAlpha(), "t.png", "image/png", {}, "thumbnail"));
  assert.equal(mediaOnDisk(s).stored.length, 3, "original, small and custom preview");
  assert.equal((await s.req(alice, "DELETE", `/api/v1/media/${up.body.id}`)).status, 200);
  assert.deepEqual(mediaOnDisk(s), { stored: [], staged: [] });
  for (const url of [up.body.url, up.body.preview_url, thumb.body.preview_url]) assert.equal((await fetch(url)).status, 404);
  assert.equal((await s.req(alice, "DELETE", `/api/v1/media/${up.body.id}`)).status, 404);
});

test("uploads that no post took are removed with their files after a day", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const kept = await upload(s, alice, await phoneJpeg(), { type: "image/jpeg" });
  const posted = await upload(s, alice, await pngWithAlpha(), { type: "image/png" });
  await s.api(alice, "POST", "/api/v1/statuses", { status: "with a picture", media_ids: [posted.body.id] });
  const start = s.app.now();
  s.app.now = () => start + 23 * HOUR;
  await s.drainJobs();
  const before = await s.req(alice, "GET", `/api/v1/media/${kept.body.id}`);
  assert.equal(before.status, 200, "still there after 23 hours");
  // Its URL from the finished attachment: on a busy machine the upload may have answered 202 (url null).
  const keptUrl = (before.body as { url: string }).url;
  s.app.now = () => start + 26 * HOUR;
  await s.drainJobs();
  assert.equal((await s.req(alice, "GET", `/api/v1/media/${kept.body.id}`)).status, 404);
  assert.equal((await fetch(keptUrl)).status, 404);
  assert.equal((await fetch(posted.body.url)).status, 200, "an attached upload stays");
  assert.equal(mediaOnDisk(s).stored.length, 2);
});
