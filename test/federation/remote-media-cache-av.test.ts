// Remote video and audio files in the remote media cache: a second roost copies the files
// themselves (safe fetch to disk, kind checked from the bytes, processed as an upload: remuxed
// or transcoded, poster frame, metadata dropped), serves them from its own URLs with
// remote_url kept, counts them in the cache budget and prunes them back to their origin. Too
// large, or not what the bytes say: the file plays from its origin, its preview is still copied.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import sharp from "sharp";
import { pruneRemoteMedia } from "../../src/services/remote-media-prune.ts";
import { cacheTotals } from "../../src/storage/remote-media-cache.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { fileForm, filesUnder, pngWithAlpha, upload } from "../api/media-helpers.ts";
import { h264Mp4, mp3, probeBytes, silentMp4 } from "../api/media-av-helpers.ts";
import { followRemote, noteDoc, startWorld, stored, view } from "./remote-status-helpers.ts";

async function settle(...servers: TestServer[]): Promise<void> {
  for (let round = 0; round < 4; round++) for (const s of servers) await s.drainJobs();
}

/** An upload on `s`, processed (video and audio are done by the media job). */
async function uploaded(s: TestServer, who: TestUser, data: Uint8Array, fields: Record<string, string> = {}): Promise<any> {
  const res = await upload(s, who, data, { version: 2, fields });
  assert.ok(res.status === 200 || res.status === 202, res.text);
  await s.drainJobs();
  const ready = await s.req(who, "GET", `/api/v1/media/${res.body.id}`);
  assert.equal(ready.status, 200, ready.text);
  return ready.body;
}

/** b's bob follows a's alice. */
async function follow(a: TestServer, b: TestServer, bob: TestUser): Promise<void> {
  const found = await b.api(bob, "GET", `/api/v1/accounts/lookup?acct=alice@${a.app.config.domain}`);
  await b.api(bob, "POST", `/api/v1/accounts/${found.id}/follow`);
  await settle(b, a);
}

async function served(url: string): Promise<{ res: Response; bytes: Buffer }> {
  const res = await fetch(url);
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

test("remote video and audio files are copied, served from here, counted in the budget and pruned back to their origin", async (t) => {
  const a = await startTestServer();
  const b = await startTestServer();
  t.after(() => Promise.all([a.close(), b.close()]));
  const alice = await a.user("alice");
  const bob = await b.user("bob");
  await follow(a, b, bob);

  const video = await uploaded(a, alice, await h264Mp4(320, 240, 2), { description: "waves" });
  const audio = await uploaded(a, alice, await mp3(2));
  // Mastodon allows no video and audio in one post.
  await a.api(alice, "POST", "/api/v1/statuses", { status: "Watch", media_ids: [video.id] });
  await a.api(alice, "POST", "/api/v1/statuses", { status: "Listen", media_ids: [audio.id] });
  await settle(a, b);

  const home = await b.api(bob, "GET", "/api/v1/timelines/home");
  const posts = [home.find((p: any) => p.content.includes("Watch")), home.find((p: any) => p.content.includes("Listen"))];
  const [v, au] = posts.map((p) => p.media_attachments[0]);
  const cached = new RegExp(`^${b.url}/system/cache/media_attachments/[A-Za-z0-9_-]+/`);
  assert.equal(v.type, "video");
  assert.equal(v.remote_url, video.url);
  assert.match(v.url, new RegExp(cached.source + "original\\.mp4$"));
  assert.match(v.preview_url, new RegExp(cached.source + "small\\.jpg$"));
  assert.equal(v.description, "waves");
  assert.equal(v.blurhash, video.blurhash, "the origin's blurhash is kept");
  assert.deepEqual([v.meta.original.width, v.meta.original.height, v.meta.original.frame_rate], [320, 240, "25/1"]);
  assert.ok(Math.abs(v.meta.original.duration - 2) < 0.1, `duration ${v.meta.original.duration}`);
  assert.deepEqual([v.meta.small.width, v.meta.small.height], [320, 240]);
  const vFile = await served(v.url);
  assert.equal(vFile.res.headers.get("content-type"), "video/mp4");
  const vProbe = await probeBytes(vFile.bytes);
  assert.deepEqual([vProbe.video?.codec, vProbe.audio?.codec, vProbe.plays], ["h264", "aac", true]);
  assert.equal((await sharp(Buffer.from(await (await fetch(v.preview_url)).arrayBuffer())).metadata()).width, 320);

  assert.equal(au.type, "audio");
  assert.equal(au.remote_url, audio.url);
  assert.match(au.url, new RegExp(cached.source + "original\\.mp3$"));
  assert.ok(Math.abs(au.meta.original.duration - 2) < 0.15, `duration ${au.meta.original.duration}`);
  const aFile = await served(au.url);
  assert.equal(aFile.res.headers.get("content-type"), "audio/mpeg");
  assert.equal((await probeBytes(aFile.bytes)).audio?.codec, "mp3");

  // Counted in the budget: the two originals and the video's poster.
  const cacheDir = join(b.dataDir, "media", "cache");
  assert.equal(filesUnder(cacheDir).filter((f) => f.startsWith("media_attachments/")).length, 3);
  const totals = cacheTotals(b.app.db);
  assert.ok(totals.bytes >= vFile.bytes.length + aFile.bytes.length, `${totals.bytes} bytes counted`);
  assert.deepEqual(filesUnder(join(b.dataDir, "tmp", "media")), [], "nothing left in the staging area");

  // The budget evicts them: the files play from their origin again.
  const pruned = await pruneRemoteMedia(b.app, { maxBytes: 0 });
  assert.ok(pruned.entries >= 2);
  assert.deepEqual(filesUnder(join(cacheDir, "media_attachments")), []);
  assert.equal((await fetch(v.url)).status, 404);
  const back = await Promise.all(posts.map(async (p) => (await b.api(null, "GET", `/api/v1/statuses/${p.id}`)).media_attachments[0]));
  assert.deepEqual(
    back.map((m: any) => [m.url, m.remote_url, m.preview_url]),
    [
      [video.url, video.url, null],
      [audio.url, audio.url, null],
    ],
  );

  // A reader opens the statuses: the files are copied again.
  for (const p of posts) await b.api(bob, "GET", `/api/v1/statuses/${p.id}`);
  await b.drainJobs();
  for (const p of posts) assert.match((await b.api(bob, "GET", `/api/v1/statuses/${p.id}`)).media_attachments[0].url, cached);
});

test("a remote video over maxRemoteMediaBytes plays from its origin; its custom preview is copied", async (t) => {
  const a = await startTestServer();
  const b = await startTestServer({ config: { maxRemoteMediaBytes: 2048 } });
  t.after(() => Promise.all([a.close(), b.close()]));
  const alice = await a.user("alice");
  const bob = await b.user("bob");
  await follow(a, b, bob);
  const video = await uploaded(a, alice, await h264Mp4(160, 120, 1));
  const put = await a.req(alice, "PUT", `/api/v1/media/${video.id}`, fileForm(await pngWithAlpha(80, 40), "cover.png", "image/png", {}, "thumbnail"));
  assert.equal(put.status, 200, put.text);
  await a.api(alice, "POST", "/api/v1/statuses", { status: "big", media_ids: [video.id] });
  await settle(a, b);
  const [post] = await b.api(bob, "GET", "/api/v1/timelines/home");
  const m = post.media_attachments[0];
  assert.equal(m.url, video.url, "hot-linked: the file was too large to copy");
  assert.equal(m.remote_url, video.url);
  assert.match(m.preview_url, new RegExp(`^${b.url}/system/cache/media_attachments/[A-Za-z0-9_-]+/thumbnail\\.jpg$`));
  assert.equal(m.preview_remote_url, put.body.preview_url);
  assert.deepEqual(filesUnder(join(b.dataDir, "tmp", "media")), []);
  assert.deepEqual(
    filesUnder(join(b.dataDir, "media", "cache")).filter((f) => f.startsWith("media_attachments/")).map((f) => f.split("/").pop()),
    ["thumbnail.jpg"],
  );
});

test("a remote file is judged by its bytes: a 'video' that is a PNG is not copied, a silent MP4 becomes gifv; never from a private address", async (t) => {
  const w = await startWorld(t);
  const { s, remote, rita } = w;
  followRemote(w, await s.user("alice"));
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#123456" } }).png().toBuffer();
  remote.serveFile("/media/not-a-video.mp4", png, "video/mp4");
  remote.serveFile("/media/loop.mp4", await silentMp4(96, 64, 1), "video/mp4");
  const doc = (path: string) => ({ type: "Document", mediaType: "video/mp4", url: `${remote.origin}${path}` });

  const fake = await stored(w, noteDoc(rita, { attachment: [doc("/media/not-a-video.mp4")] }));
  const loop = await stored(w, noteDoc(rita, { attachment: [doc("/media/loop.mp4")] }));
  await s.drainJobs();
  const [f] = (await view(w, null, fake.id)).body.media_attachments;
  assert.equal(f.url, `${remote.origin}/media/not-a-video.mp4`);
  const [l] = (await view(w, null, loop.id)).body.media_attachments;
  assert.equal(l.type, "gifv", "no sound track: gifv, as Mastodon's type corrector");
  assert.match(l.url, new RegExp(`^${s.url}/system/cache/media_attachments/[A-Za-z0-9_-]+/original\\.mp4$`));
  assert.equal(l.remote_url, `${remote.origin}/media/loop.mp4`);

  remote.serveFile("/media/loop2.mp4", await silentMp4(96, 64, 1), "video/mp4");
  const guarded = await stored(w, noteDoc(rita, { attachment: [doc("/media/loop2.mp4")] }));
  s.app.config.allowPrivateAddresses = false;
  await s.drainJobs();
  s.app.config.allowPrivateAddresses = true;
  assert.equal((await view(w, null, guarded.id)).body.media_attachments[0].url, `${remote.origin}/media/loop2.mp4`);
  assert.deepEqual(filesUnder(join(s.dataDir, "tmp", "media")), []);
});
