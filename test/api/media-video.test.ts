// Video, gifv and audio uploads (issue 10 part 3) with real files made by ffmpeg in the test:
// POST /api/v2/media answers 202 with url null, GET /api/v1/media/:id 206 until the job has
// run, then 200 with Mastodon's meta; the stored file plays (ffprobe and a full decode).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { animatedGif, fetchImage, fileForm, mediaOnDisk, pngWithAlpha, upload } from "./media-helpers.ts";
import { aacAdts, flac, h264Mp4, m4a, mp3, mp3WithCover, mpeg4Mov, oggVorbis, opusWebm, probeBytes, silentMp4, theoraOgg, threeGp, vp8Webm, wav } from "./media-av-helpers.ts";

let s: TestServer;
let alice: TestUser;
before(async () => {
  s = await startTestServer({ config: { maxVideoSeconds: 3 } });
  alice = await s.user("alice");
});
after(() => s.close());

const BLURHASH = /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,}$/;

/** Uploads over v2: 202 with url null, 206 while queued, then the job runs; returns GET's answer. */
async function uploadAndWait(data: Uint8Array, fields: Record<string, string> = {}) {
  const res = await upload(s, alice, data, { fields });
  assert.equal(res.status, 202, res.text);
  assert.equal(res.body.url, null);
  assert.equal(res.body.preview_url, null);
  const pending = await s.req(alice, "GET", `/api/v1/media/${res.body.id}`);
  assert.equal(pending.status, 206);
  assert.equal(pending.body.url, null);
  await s.drainJobs();
  return s.req(alice, "GET", `/api/v1/media/${res.body.id}`);
}

async function served(url: string) {
  const res = await fetch(url);
  assert.equal(res.status, 200, url);
  return { res, probe: await probeBytes(new Uint8Array(await res.arrayBuffer())) };
}

test("an H.264/AAC MP4 is stored as it is (remuxed): video with meta, a poster frame and a blurhash", async () => {
  const ready = await uploadAndWait(await h264Mp4(320, 240, 2), { description: "A test card" });
  assert.equal(ready.status, 200, ready.text);
  const m = ready.body;
  assert.equal(m.type, "video");
  assert.equal(m.description, "A test card");
  assert.match(m.url, new RegExp(`^${s.app.baseUrl}/system/media_attachments/[\\w-]{16}/original\\.mp4$`));
  assert.match(m.preview_url, /\/small\.jpg$/);
  assert.match(m.blurhash, BLURHASH);
  const o = m.meta.original;
  assert.equal(o.width, 320);
  assert.equal(o.height, 240);
  assert.equal(o.frame_rate, "25/1");
  assert.ok(Math.abs(o.duration - 2) < 0.1, `duration ${o.duration}`);
  assert.ok(Number.isInteger(o.bitrate) && o.bitrate > 10_000, `bitrate ${o.bitrate}`);
  assert.deepEqual(m.meta.small, { width: 320, height: 240, size: "320x240", aspect: 320 / 240 });
  // The documented top-level keys (Tusky shows meta.duration).
  assert.equal(m.meta.duration, o.duration);
  assert.equal(m.meta.fps, 25);
  assert.equal(m.meta.length, "0:00:02.00");
  assert.deepEqual([m.meta.width, m.meta.height, m.meta.size, m.meta.aspect], [320, 240, "320x240", 320 / 240]);

  const { res, probe } = await served(m.url);
  assert.equal(res.headers.get("content-type"), "video/mp4");
  assert.match(probe.format, /mp4/);
  assert.deepEqual(probe.video, { codec: "h264", pixFmt: "yuv420p", width: 320, height: 240, frameRate: "25/1" });
  assert.equal(probe.audio?.codec, "aac");
  assert.ok(probe.plays, "the stored file decodes to the end");
  const poster = await fetchImage(m.preview_url);
  assert.equal(poster.meta.format, "jpeg");
  assert.deepEqual([poster.meta.width, poster.meta.height], [320, 240]);
  assert.deepEqual(mediaOnDisk(s).staged, [], "nothing left in the staging area");
});

test("WebM (VP8/Vorbis), MOV (MPEG-4/MP3), 3GP and Ogg (Theora) are transcoded to H.264/AAC MP4 that plays", async () => {
  for (const [name, make, size] of [
    ["webm", () => vp8Webm(320, 180, 2), [320, 180]],
    ["mov", () => mpeg4Mov(176, 144, 1), [176, 144]],
    ["3gp", () => threeGp(1), [176, 144]],
    ["ogv", () => theoraOgg(160, 120, 1), [160, 120]],
  ] as const) {
    const ready = await uploadAndWait(await make());
    assert.equal(ready.status, 200, `${name}: ${ready.text}`);
    assert.equal(ready.body.type, "video", name);
    assert.deepEqual([ready.body.meta.original.width, ready.body.meta.original.height], size, name);
    const { probe } = await served(ready.body.url);
    assert.equal(probe.video?.codec, "h264", name);
    assert.equal(probe.video?.pixFmt, "yuv420p", name);
    assert.equal(probe.audio?.codec, "aac", name);
    assert.ok(probe.plays, `${name} decodes`);
  }
});

test("a silent video and an animated GIF become gifv: an MP4 without sound", async () => {
  const silent = await uploadAndWait(await silentMp4(160, 120, 1));
  assert.equal(silent.status, 200, silent.text);
  assert.equal(silent.body.type, "gifv");
  assert.equal(silent.body.meta.original.width, 160);

  // A GIF is waited for like an image (it may be a still one): 200 at once.
  const gif = await upload(s, alice, await animatedGif(64, 48), { type: "image/gif" });
  assert.equal(gif.status, 200, gif.text);
  assert.equal(gif.body.type, "gifv");
  assert.match(gif.body.url, /\/original\.mp4$/);
  assert.deepEqual([gif.body.meta.original.width, gif.body.meta.original.height], [64, 48]);
  assert.ok(gif.body.meta.original.duration > 0.2, `duration ${gif.body.meta.original.duration}`);
  assert.deepEqual(gif.body.meta.small, { width: 64, height: 48, size: "64x48", aspect: 64 / 48 });
  assert.match(gif.body.blurhash, BLURHASH);
  for (const m of [silent.body, gif.body]) {
    const { res, probe } = await served(m.url);
    assert.equal(res.headers.get("content-type"), "video/mp4");
    assert.equal(probe.video?.codec, "h264");
    assert.equal(probe.audio, undefined, "no sound track");
    assert.ok(probe.plays);
  }
});

test("audio: MP3, Ogg and M4A are kept; WAV, FLAC, AAC and Opus in WebM become MP3", async () => {
  const cases = [
    { name: "mp3", make: () => mp3(2), contentType: "audio/mpeg", codec: "mp3", seconds: 2 },
    { name: "ogg", make: () => oggVorbis(1), contentType: "audio/ogg", codec: "vorbis", seconds: 1 },
    { name: "m4a", make: () => m4a(1), contentType: "audio/mp4", codec: "aac", seconds: 1 },
    { name: "wav", make: () => wav(1), contentType: "audio/mpeg", codec: "mp3", seconds: 1 },
    { name: "flac", make: () => flac(1), contentType: "audio/mpeg", codec: "mp3", seconds: 1 },
    { name: "aac", make: () => aacAdts(1), contentType: "audio/mpeg", codec: "mp3", seconds: 1 },
    { name: "opus.webm", make: () => opusWebm(1), contentType: "audio/mpeg", codec: "mp3", seconds: 1 },
  ];
  for (const c of cases) {
    const ready = await uploadAndWait(await c.make());
    assert.equal(ready.status, 200, `${c.name}: ${ready.text}`);
    const m = ready.body;
    assert.equal(m.type, "audio", c.name);
    assert.equal(m.preview_url, null, `${c.name}: no cover art, no preview`);
    assert.equal(m.blurhash, null);
    assert.ok(Math.abs(m.meta.original.duration - c.seconds) < 0.15, `${c.name}: duration ${m.meta.original.duration}`);
    assert.ok(m.meta.original.bitrate > 0, c.name);
    assert.equal(m.meta.original.width, undefined, c.name);
    assert.equal(m.meta.duration, m.meta.original.duration, c.name);
    const { res, probe } = await served(m.url);
    assert.equal(res.headers.get("content-type"), c.contentType, c.name);
    assert.equal(probe.audio?.codec, c.codec, c.name);
    assert.equal(probe.video, undefined, c.name);
    assert.ok(probe.plays, `${c.name} decodes`);
  }
});

test("an MP3's cover art is its preview (small and blurhash); the stored MP3 carries no tags", async () => {
  const ready = await uploadAndWait(await mp3WithCover(1));
  assert.equal(ready.status, 200, ready.text);
  const m = ready.body;
  assert.equal(m.type, "audio");
  assert.match(m.preview_url, /\/small\.jpg$/);
  assert.match(m.blurhash, BLURHASH);
  assert.deepEqual(m.meta.small, { width: 200, height: 100, size: "200x100", aspect: 2 });
  const cover = await fetchImage(m.preview_url);
  assert.deepEqual([cover.meta.width, cover.meta.height], [200, 100]);
  const { probe } = await served(m.url);
  assert.equal(probe.audio?.codec, "mp3");
  assert.equal(probe.streams, 1, "the picture is not in the stored file");
});

test("a custom thumbnail (PUT) replaces a video's poster as preview and blurhash; meta.original stays", async () => {
  const ready = await uploadAndWait(await h264Mp4(160, 120, 1));
  const form = fileForm(await pngWithAlpha(80, 40), "cover.png", "image/png", {}, "thumbnail");
  const put = await s.req(alice, "PUT", `/api/v1/media/${ready.body.id}`, form);
  assert.equal(put.status, 200, put.text);
  assert.match(put.body.preview_url, /\/thumbnail\.jpg$/);
  assert.notEqual(put.body.blurhash, ready.body.blurhash);
  assert.deepEqual(put.body.meta.original, ready.body.meta.original);
  assert.equal(put.body.url, ready.body.url);
  const thumb = await fetchImage(put.body.preview_url);
  assert.deepEqual([thumb.meta.width, thumb.meta.height], [80, 40]);
});

test("POST /api/v1/media waits for a video: 200 with its url", async () => {
  const res = await upload(s, alice, await silentMp4(96, 64, 1), { version: 1 });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.type, "gifv");
  assert.match(res.body.url, /\/original\.mp4$/);
});

test("refused while processing: GET answers 422 (failed) and no file is left", async () => {
  const before = mediaOnDisk(s).stored;
  const video = await h264Mp4(160, 120, 1);
  const cases = [
    // The MP4 header is there, the rest is cut off (no moov box).
    { what: "a truncated MP4", data: video.subarray(0, 200) },
    // maxVideoSeconds is 3 on this server.
    { what: "a video over maxVideoSeconds", data: await silentMp4(64, 48, 4) },
  ];
  for (const c of cases) {
    const res = await upload(s, alice, c.data);
    assert.equal(res.status, 202, `${c.what}: ${res.text}`);
    await s.drainJobs();
    const shown = await s.req(alice, "GET", `/api/v1/media/${res.body.id}`);
    assert.equal(shown.status, 422, c.what);
    assert.deepEqual(shown.body, { error: "Error processing thumbnail for uploaded media" }, c.what);
    assert.deepEqual(mediaOnDisk(s), { stored: before, staged: [] }, `${c.what}: files left behind`);
  }
  // POST /api/v1/media waits and tells why.
  const v1 = await s.req(alice, "POST", "/api/v1/media", (() => {
    const f = new FormData();
    f.append("file", new Blob([new Uint8Array(video.subarray(0, 200))]), "cut.mp4");
    return f;
  })());
  assert.equal(v1.status, 422);
  assert.deepEqual(v1.body, { error: "File type of uploaded media could not be verified" });
  const long = await upload(s, alice, await silentMp4(64, 48, 4), { version: 1 });
  assert.equal(long.status, 422);
  assert.deepEqual(long.body, { error: "Videos longer than 3 seconds are not supported" });
  assert.deepEqual(mediaOnDisk(s), { stored: before, staged: [] });
});

test("a post with a video: the status shows it, and the Note carries a video/mp4 Document", async () => {
  const ready = await uploadAndWait(await h264Mp4(320, 240, 1), { description: "Waves" });
  const post = await s.api(alice, "POST", "/api/v1/statuses", { status: "Watch", media_ids: [ready.body.id] });
  assert.equal(post.media_attachments[0].type, "video");
  assert.equal(post.media_attachments[0].url, ready.body.url);
  const note = await (await fetch(post.uri, { headers: { accept: "application/activity+json" } })).json();
  assert.deepEqual(note.attachment, [
    { type: "Document", mediaType: "video/mp4", url: ready.body.url, name: "Waves", blurhash: ready.body.blurhash, width: 320, height: 240 },
  ]);
});

test("the instance lists the video and audio types it accepts", async () => {
  const inst = await s.api(null, "GET", "/api/v2/instance");
  const types: string[] = inst.configuration.media_attachments.supported_mime_types;
  for (const t of ["video/mp4", "video/webm", "video/quicktime", "audio/mpeg", "audio/ogg", "audio/wav", "audio/flac", "audio/mp4"]) {
    assert.ok(types.includes(t), t);
  }
});

test("without ffmpeg (ffmpegPath none) video is refused and only images are listed", async (t) => {
  const bare = await startTestServer({ config: { ffmpegPath: "none" } });
  t.after(() => bare.close());
  const bob = await bare.user("bob");
  const res = await upload(bare, bob, await silentMp4(64, 48, 1));
  assert.equal(res.status, 422);
  assert.deepEqual(res.body, { error: "Validation failed: File content type is invalid" });
  const inst = await bare.api(null, "GET", "/api/v2/instance");
  assert.deepEqual(inst.configuration.media_attachments.supported_mime_types, ["image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "image/heic", "image/heif"]);
  // An animated GIF stays an animated image.
  const gif = await upload(bare, bob, await animatedGif(32, 24), { type: "image/gif" });
  assert.equal(gif.status, 200, gif.text);
  assert.equal(gif.body.type, "image");
  assert.deepEqual(mediaOnDisk(bare).staged, []);
});
