// Preview cards (issue 10 part 8): a job after posting fetches the first link from a real HTTP
// server (loopback, allowed by the test config), reads OpenGraph / oEmbed, stores one card per
// URL with its image through the image worker, and `card` appears on the Status.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { startTestServer } from "../helpers/server.ts";
import { startFakeRemote } from "../helpers/fake-remote.ts";

const HTML = "text/html; charset=utf-8";

function articlePage(origin: string): string {
  return `<!doctype html><html lang="fr-FR"><head>
    <title>Fallback title</title>
    <meta property="og:title" content="Herons &amp; egrets">
    <meta property="og:description" content="All about   wading birds">
    <meta property="og:image" content="/img/heron.png">
    <meta property="og:image:alt" content="A grey heron">
    <meta property="og:site_name" content="Bird News">
    <meta property="article:published_time" content="2026-01-02T03:04:05Z">
    <link rel="canonical" href="${origin}/articles/herons">
    <script>alert("never run")</script>
  </head><body><p>Hello</p></body></html>`;
}

test("a link gets a card: OpenGraph, image with blurhash, shared by statuses, no card with a CW", async (t) => {
  const s = await startTestServer();
  const site = await startFakeRemote();
  t.after(() => Promise.all([s.close(), site.close()]));
  // A host name (the linkifier links no bare IP); *.localhost is loopback (RFC 6761).
  const o = site.origin.replace("127.0.0.1", "site.localhost");
  site.serveFile("/articles/herons", articlePage(o), HTML);
  const heron = await sharp({ create: { width: 1200, height: 800, channels: 3, background: "#557799" } }).png().toBuffer();
  site.serveFile("/img/heron.png", heron, "image/png");
  const alice = await s.user("alice");
  const bob = await s.user("bob");

  const post = await s.api(alice, "POST", "/api/v1/statuses", { status: `@bob read ${o}/articles/herons and #birds` });
  assert.equal(post.card, null, "the card comes from a job, after posting");
  await s.drainJobs();
  const st = await s.api(alice, "GET", `/api/v1/statuses/${post.id}`);
  const card = st.card;
  assert.ok(card, "card attached");
  assert.match(card.image, new RegExp(`^${s.app.baseUrl}/system/cards/[^/]+\\.jpg$`));
  assert.match(card.blurhash, /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{20,}$/);
  assert.deepEqual({ ...card, image: null, blurhash: null }, {
    url: `${o}/articles/herons`,
    title: "Herons & egrets",
    description: "All about wading birds",
    language: "fr",
    type: "link",
    author_name: "",
    author_url: "",
    provider_name: "Bird News",
    provider_url: "",
    html: "",
    // A link card has its image's size: 1200x800 fitted in 640x360 of area.
    width: 587,
    height: 391,
    image: null,
    image_description: "A grey heron",
    embed_url: "",
    blurhash: null,
    published_at: "2026-01-02T03:04:05.000Z",
    authors: [{ name: "", url: "", account: null }],
  });
  // The image was fetched and processed: a JPEG of that size, under the media dir.
  const file = join(s.app.mediaDir, new URL(card.image).pathname.replace(/^\/system\//, ""));
  const meta = await sharp(readFileSync(file)).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height], ["jpeg", 587, 391]);

  // A second post linking the same page shares the card: no second fetch of the page.
  const pageFetches = () => site.requests.filter((r) => r.path === "/articles/herons").length;
  assert.equal(pageFetches(), 1);
  const again = await s.api(bob, "POST", "/api/v1/statuses", { status: `also ${o}/articles/herons` });
  await s.drainJobs();
  assert.deepEqual((await s.api(bob, "GET", `/api/v1/statuses/${again.id}`)).card, card);
  assert.equal(pageFetches(), 1);
  // Timelines carry it too (the page batch), and a boost shows it on the boosted post.
  await s.api(bob, "POST", `/api/v1/statuses/${post.id}/reblog`);
  await s.drainJobs();
  const home = await s.api(bob, "GET", "/api/v1/timelines/home");
  assert.deepEqual(home[0].reblog.card, card);
  assert.equal(home[0].card, null);

  // The seed: no crawl at all for a post with a content warning.
  const before = site.requests.length;
  site.serveFile("/cw-page", articlePage(o), HTML);
  const cw = await s.api(alice, "POST", "/api/v1/statuses", { status: `${o}/cw-page`, spoiler_text: "birds" });
  await s.drainJobs();
  assert.equal((await s.api(alice, "GET", `/api/v1/statuses/${cw.id}`)).card, null);
  assert.equal(site.requests.length, before);

  // GET /api/v1/statuses/:id/card was removed in Mastodon 3.0.
  assert.equal((await s.req(alice, "GET", `/api/v1/statuses/${post.id}/card`)).status, 404);
  assert.ok(existsSync(file));
});

test("no card for mentions, hashtags, local links, non-HTML pages or pages without a title", async (t) => {
  const s = await startTestServer();
  const site = await startFakeRemote();
  t.after(() => Promise.all([s.close(), site.close()]));
  const o = site.origin.replace("127.0.0.1", "site.localhost");
  site.serveFile("/notes.txt", "<title>not html</title>", "text/plain");
  site.serveFile("/untitled", "<html><body>nothing here</body></html>", HTML);
  site.serveFile("/real", `<html><head><title>  The  real one </title></head></html>`, HTML);
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const own = await s.api(bob, "POST", "/api/v1/statuses", { status: "hello" });

  const texts = [`${o}/notes.txt`, `${o}/untitled`, `see ${own.url} #tag @bob`, `${o}/missing`];
  const ids: string[] = [];
  for (const status of texts) ids.push((await s.api(alice, "POST", "/api/v1/statuses", { status })).id);
  await s.drainJobs();
  for (const id of ids) assert.equal((await s.api(alice, "GET", `/api/v1/statuses/${id}`)).card, null, id);
  assert.deepEqual(site.requests.map((r) => r.path).sort(), ["/missing", "/notes.txt", "/untitled"]);

  // Mentions and hashtags before a link are passed over: the first real link gets the card.
  const mixed = await s.api(alice, "POST", "/api/v1/statuses", { status: `@bob #tag ${own.url} ${o}/real ${o}/untitled` });
  await s.drainJobs();
  const card = (await s.api(alice, "GET", `/api/v1/statuses/${mixed.id}`)).card;
  assert.equal(card.url, `${o}/real`);
  assert.equal(card.title, "The real one");
  assert.equal(card.image, null);
  assert.equal(card.width, 0);

  // An edit that changes the text drops the card and crawls the new link; a CW removes it.
  const edited = await s.api(alice, "PUT", `/api/v1/statuses/${mixed.id}`, { status: `now ${o}/untitled then ${o}/real` });
  assert.equal(edited.card, null);
  await s.drainJobs();
  assert.equal((await s.api(alice, "GET", `/api/v1/statuses/${mixed.id}`)).card, null, "the first link has no card");
  await s.api(alice, "PUT", `/api/v1/statuses/${mixed.id}`, { status: `${o}/real` });
  await s.drainJobs();
  assert.equal((await s.api(alice, "GET", `/api/v1/statuses/${mixed.id}`)).card.url, `${o}/real`);
  await s.api(alice, "PUT", `/api/v1/statuses/${mixed.id}`, { status: `${o}/real`, spoiler_text: "cw" });
  await s.drainJobs();
  assert.equal((await s.api(alice, "GET", `/api/v1/statuses/${mixed.id}`)).card, null);
});

test("oEmbed: a video from an allowed provider embeds a sanitised iframe; others become link cards", async (t) => {
  const s = await startTestServer();
  const site = await startFakeRemote();
  t.after(() => Promise.all([s.close(), site.close()]));
  const o = site.origin.replace("127.0.0.1", "site.localhost");
  const discover = (path: string) =>
    `<html><head><title>Page title</title><meta name="description" content="Page text">
      <link rel="alternate" type="application/json+oembed" href="${o}${path}"></head></html>`;
  site.serveFile("/watch", discover("/oembed/good.json"), HTML);
  site.serveFile(
    "/oembed/good.json",
    JSON.stringify({
      type: "video",
      version: "1.0",
      title: "A heron video",
      author_name: "Birder",
      author_url: "/@birder",
      provider_name: "YouTube",
      provider_url: "https://www.youtube.com/",
      width: 480,
      height: 270,
      html: `<iframe width="480" height="270" src="https://www.youtube.com/embed/abc" onload="alert(1)" allow="autoplay"></iframe><script>alert(2)</script>`,
    }),
    "application/json",
  );
  site.serveFile("/elsewhere", discover("/oembed/evil.json"), HTML);
  site.serveFile(
    "/oembed/evil.json",
    JSON.stringify({ type: "video", version: "1.0", title: "Evil", width: 100, height: 100, html: `<iframe src="https://evil.example/x"></iframe>` }),
    "application/json",
  );
  site.serveFile("/twitter", `<html><head><meta name="twitter:title" content="x"><title>Player page</title>
    <meta name="twitter:player" content="https://player.vimeo.com/video/42"><meta name="twitter:player:width" content="640">
    <meta name="twitter:player:height" content="360"></head></html>`, HTML);
  const alice = await s.user("alice");
  const post = async (path: string) => (await s.api(alice, "POST", "/api/v1/statuses", { status: `${o}${path}` })).id as string;
  const ids = [await post("/watch"), await post("/elsewhere"), await post("/twitter")];
  await s.drainJobs();
  const [good, evil, player] = await Promise.all(ids.map(async (id) => (await s.api(alice, "GET", `/api/v1/statuses/${id}`)).card));

  assert.equal(good.type, "video");
  assert.equal(good.title, "A heron video");
  assert.equal(good.description, "Page text");
  assert.equal(good.author_name, "Birder");
  assert.equal(good.author_url, `${o}/@birder`);
  assert.equal(good.provider_name, "YouTube");
  assert.deepEqual([good.width, good.height], [480, 270]);
  assert.equal(good.html, `<iframe width="480" height="270" src="https://www.youtube.com/embed/abc"></iframe>`);

  assert.equal(evil.type, "link");
  assert.equal(evil.html, "");
  assert.equal(evil.title, "Evil");

  assert.equal(player.type, "video");
  assert.equal(player.title, "Player page");
  assert.equal(player.html, `<iframe src="https://player.vimeo.com/video/42" width="640" height="360" allowfullscreen="true" frameborder="0" scrolling="no"></iframe>`);
});
