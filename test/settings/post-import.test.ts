// Post history import (issue 16 part 7): a Mastodon archive built here in Mastodon's layout
// (yazl), uploaded through the settings form, imported by the job and checked through the REST
// API; our own export imported back; unsafe, oversize and malformed archives refused; nothing
// delivered unless asked.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { zipOf } from "../helpers/zip.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Browser, formWithButton, PASSWORD } from "../api/oauth-helpers.ts";
import { png } from "../api/accounts-helpers.ts";
import { fileForm } from "../api/media-helpers.ts";
import { startFakeRemote } from "../helpers/fake-remote.ts";
import { clearReceived, remoteAccount, remoteFollows } from "../helpers/outbox.ts";

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";
const OLD = "https://old.example";
const ME = `${OLD}/users/alice`;
const FOLLOWERS = `${ME}/followers`;

function create(n: number, o: { published: string; to: string[]; cc: string[]; content: string; extra?: Record<string, unknown> }) {
  const id = `${ME}/statuses/${n}`;
  return {
    id: `${id}/activity`,
    type: "Create",
    actor: ME,
    published: o.published,
    to: o.to,
    cc: o.cc,
    object: {
      id,
      type: "Note",
      summary: null,
      inReplyTo: null,
      published: o.published,
      url: `${OLD}/@alice/${n}`,
      attributedTo: ME,
      to: o.to,
      cc: o.cc,
      sensitive: false,
      content: o.content,
      contentMap: { en: o.content },
      attachment: [],
      tag: [],
      ...o.extra,
    },
  };
}

const IMAGE = "media_attachments/files/110/000/001/original/8d2b3c.png";

/** A Mastodon archive of alice@old.example, as Mastodon's BackupService lays it out. */
async function mastodonArchive(bobUri: string, bobAcct: string, link = "https://news.example/article"): Promise<Buffer> {
  const items = [
    // A reply chain listed before its parent: the import goes by `published`.
    create(6, { published: "2020-05-02T08:00:00Z", to: [PUBLIC], cc: [FOLLOWERS], content: "<p>and the end</p>", extra: { inReplyTo: `${ME}/statuses/5` } }),
    create(1, {
      published: "2020-01-01T10:00:00Z",
      to: [PUBLIC],
      cc: [FOLLOWERS],
      content: '<p>Hello <a href="https://old.example/tags/importtest" class="mention hashtag" rel="tag">#<span>importtest</span></a> world</p><p>second paragraph</p>',
      extra: { tag: [{ type: "Hashtag", href: "https://old.example/tags/importtest", name: "#importtest" }] },
    }),
    create(2, { published: "2020-02-01T10:00:00Z", to: [FOLLOWERS], cc: [PUBLIC], content: "<p>behind a warning</p>", extra: { summary: "spoilers", sensitive: true } }),
    create(3, {
      published: "2020-03-01T10:00:00Z",
      to: [FOLLOWERS],
      cc: [],
      content: "<p>for my followers, with a picture</p>",
      extra: {
        contentMap: { de: "<p>for my followers, with a picture</p>" },
        attachment: [{ type: "Document", mediaType: "image/png", url: IMAGE, name: "a red square", focalPoint: [0.5, -0.25], blurhash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj", width: 40, height: 30 }],
      },
    }),
    create(4, {
      published: "2020-04-01T10:00:00Z",
      to: [bobUri],
      cc: [],
      content: `<p><span class="h-card" translate="no"><a href="${bobUri}" class="u-url mention">@<span>bob</span></a></span> just between us</p>`,
      extra: { tag: [{ type: "Mention", href: bobUri, name: `@${bobAcct}` }] },
    }),
    create(5, { published: "2020-05-01T08:00:00Z", to: [PUBLIC], cc: [FOLLOWERS], content: "<p>a reply to myself</p>", extra: { inReplyTo: `${ME}/statuses/1` } }),
    create(7, { published: "2020-06-01T08:00:00Z", to: [PUBLIC], cc: [FOLLOWERS], content: `<p>replying to someone <a href="${link}">${link}</a></p>`, extra: { inReplyTo: "https://elsewhere.example/notes/1" } }),
    { id: `${ME}/statuses/8/activity`, type: "Announce", actor: ME, published: "2020-07-01T08:00:00Z", to: [PUBLIC], cc: [FOLLOWERS], object: "https://elsewhere.example/notes/2" },
  ];
  const outbox = { "@context": "https://www.w3.org/ns/activitystreams", id: "outbox.json", type: "OrderedCollection", totalItems: items.length, orderedItems: items };
  const actor = { id: ME, type: "Person", preferredUsername: "alice", followers: FOLLOWERS, outbox: "outbox.json", likes: "likes.json", bookmarks: "bookmarks.json" };
  const empty = (id: string) => JSON.stringify({ id, type: "OrderedCollection", totalItems: 0, orderedItems: [] });
  return zipOf({
    [IMAGE]: await png(40, 30),
    "outbox.json": JSON.stringify(outbox),
    "likes.json": empty("likes.json"),
    "bookmarks.json": empty("bookmarks.json"),
    "actor.json": JSON.stringify(actor),
  });
}

/** Posts the import form as a browser would: multipart, with the page's CSRF token. */
async function upload(s: TestServer, b: Browser, zip: Buffer, o: { send?: boolean; token?: string; name?: string } = {}) {
  const page = await b.fetch("/settings/post_import");
  const fields = formWithButton(page.text, "Import posts").fields;
  const form = new FormData();
  form.set("authenticity_token", o.token ?? fields.authenticity_token);
  if (o.send) form.set("send_to_followers", "1");
  form.set("archive", new Blob([new Uint8Array(zip)], { type: "application/zip" }), o.name ?? "archive.zip");
  const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const res = await fetch(`${s.url}/settings/post_import`, { method: "POST", body: form, headers: { cookie, accept: "text/html" }, redirect: "manual" });
  return { status: res.status, location: res.headers.get("location"), text: await res.text() };
}

const idMs = (id: string) => Number(BigInt(id) >> 16n);

test("a Mastodon archive becomes the account's posts: dates, ids, visibility, CW, replies, media, mentions; nothing delivered; a second import adds nothing", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const remote = await startFakeRemote();
  t.after(() => remote.close());
  const alice = await s.user("alice", { password: PASSWORD });
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  await s.api(carol, "POST", `/api/v1/accounts/${alice.id}/follow`);
  remoteFollows(s, await remoteAccount(s, remote.actor("dave")), alice);
  await s.drainJobs();
  clearReceived(remote);
  // Which jobs the import starts (passed through to the real queue).
  const enqueued: string[] = [];
  const enqueue = s.app.jobs.enqueue.bind(s.app.jobs);
  s.app.jobs.enqueue = ((name: string, ...rest: any[]) => (enqueued.push(name), (enqueue as any)(name, ...rest))) as typeof s.app.jobs.enqueue;

  const b = new Browser(s.url);
  await b.signIn("alice");
  const page = await b.fetch("/settings/post_import");
  assert.equal(page.status, 200);
  assert.match(page.text, /<label for="post-import-archive">Archive \(ZIP\)<\/label>/);
  assert.match((await b.fetch("/settings/import-export")).text, /href="\/settings\/post_import"/);

  const bobUri = `${s.url}/users/bob`;
  const zip = await mastodonArchive(bobUri, `bob@${s.app.config.domain}`);
  assert.equal((await upload(s, b, zip, { token: "forged" })).status, 422);
  const res = await upload(s, b, zip, { name: "archive-20240101.zip" });
  assert.deepEqual([res.status, res.location], [302, "/settings/post_import"], res.text);
  assert.match((await b.fetch("/settings/post_import")).text, /Waiting: the archive is about to be read/);
  await s.drainJobs();

  const report = (await b.fetch("/settings/post_import")).text;
  assert.match(report, /archive-20240101\.zip/);
  assert.match(report, /Finished, 7 of 7 posts processed, 7 imported/);
  assert.match(report, /1 boost\(s\) skipped/);
  assert.match(report, /statuses\/7<\/code>: a reply to a post outside the archive: imported as a plain post/);

  const list = await s.api(alice, "GET", `/api/v1/accounts/${alice.id}/statuses?limit=40`);
  const byText = (re: RegExp) => list.find((x: any) => re.test(x.content));
  const hello = byText(/Hello/), cw = byText(/behind a warning/), pic = byText(/with a picture/), dm = byText(/just between us/);
  const r5 = byText(/a reply to myself/), r6 = byText(/and the end/), r7 = byText(/replying to someone/);
  for (const [name, x] of Object.entries({ hello, cw, pic, dm, r5, r6, r7 })) assert.ok(x, `${name} missing from ${list.map((y: any) => y.content)}`);

  // Dates kept, ids made from them, newest first like any account's posts.
  assert.equal(hello.created_at, "2020-01-01T10:00:00.000Z");
  assert.equal(idMs(hello.id), Date.parse("2020-01-01T10:00:00Z"));
  assert.equal(r6.created_at, "2020-05-02T08:00:00.000Z");
  assert.deepEqual(list.map((x: any) => x.created_at), [...list.map((x: any) => x.created_at)].sort().reverse());
  assert.deepEqual(list.map((x: any) => x.id), [...list.map((x: any) => x.id)].sort((a: string, c: string) => (BigInt(c) > BigInt(a) ? 1 : -1)));

  assert.deepEqual([hello.visibility, cw.visibility, pic.visibility, dm.visibility], ["public", "unlisted", "private", "direct"]);
  assert.deepEqual([cw.spoiler_text, cw.sensitive, hello.spoiler_text, hello.sensitive], ["spoilers", true, "", false]);
  assert.deepEqual([hello.language, pic.language], ["en", "de"]);
  assert.match(hello.content, /<p>Hello <a [^>]*href="[^"]*\/tags\/importtest"[^>]*>#<span>importtest<\/span><\/a> world<\/p><p>second paragraph<\/p>/);
  assert.deepEqual(hello.tags.map((x: any) => x.name), ["importtest"]);
  assert.deepEqual(dm.mentions.map((m: any) => [m.id, m.acct]), [[bob.id, "bob"]]);

  // Replies within the archive threaded; one outside it is a plain post.
  assert.equal(r5.in_reply_to_id, hello.id);
  assert.equal(r6.in_reply_to_id, r5.id);
  assert.equal(r7.in_reply_to_id, null);
  const ctx = await s.api(alice, "GET", `/api/v1/statuses/${r6.id}/context`);
  assert.deepEqual(ctx.ancestors.map((x: any) => x.id), [hello.id, r5.id]);

  // The picture went through the media pipeline; its description and focus kept.
  const [m] = pic.media_attachments;
  assert.equal(m.type, "image");
  assert.equal(m.description, "a red square");
  assert.deepEqual(m.meta.focus, { x: 0.5, y: -0.25 });
  assert.deepEqual([m.meta.original.width, m.meta.original.height], [40, 30]);
  assert.equal((await fetch(m.url)).status, 200);

  // Searchable like other own posts.
  const found = await s.api(alice, "GET", "/api/v2/search?q=paragraph&type=statuses");
  assert.deepEqual(found.statuses.map((x: any) => x.id), [hello.id]);

  // Not delivered: no follower's home timeline, no notification for bob, nothing to dave's server.
  assert.deepEqual(await s.api(carol, "GET", "/api/v1/timelines/home"), []);
  assert.deepEqual(await s.api(bob, "GET", "/api/v1/notifications"), []);
  assert.deepEqual(remote.received.map((d) => d.body?.type), []);
  // Nor are the archive's links crawled for preview cards (thousands of posts, thousands of sites).
  assert.match(r7.content, /<a href="https:\/\/news\.example\/article"/);
  assert.deepEqual(enqueued.filter((n) => n === "card.fetch"), []);

  // The same archive again adds nothing.
  assert.equal((await upload(s, b, zip)).status, 302);
  await s.drainJobs();
  assert.match((await b.fetch("/settings/post_import")).text, /Finished, 7 of 7 posts processed, 0 imported/);
  assert.equal((await s.api(alice, "GET", `/api/v1/accounts/${alice.id}/statuses?limit=40`)).length, list.length);
  assert.equal((await s.api(alice, "GET", "/api/v1/accounts/verify_credentials")).statuses_count, 6); // direct posts are not counted
});

test("send to followers delivers the imported posts", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const remote = await startFakeRemote();
  t.after(() => remote.close());
  const alice = await s.user("alice", { password: PASSWORD });
  await s.user("bob");
  const carol = await s.user("carol");
  await s.api(carol, "POST", `/api/v1/accounts/${alice.id}/follow`);
  remoteFollows(s, await remoteAccount(s, remote.actor("dave")), alice);
  await s.drainJobs();
  clearReceived(remote);
  const b = new Browser(s.url);
  await b.signIn("alice");
  assert.equal((await upload(s, b, await mastodonArchive(`${s.url}/users/bob`, `bob@${s.app.config.domain}`), { send: true })).status, 302);
  await s.drainJobs();
  assert.match((await b.fetch("/settings/post_import")).text, /\(sent to followers\)/);
  const home = await s.api(carol, "GET", "/api/v1/timelines/home?limit=40");
  assert.ok(home.some((x: any) => /Hello/.test(x.content)), JSON.stringify(home.map((x: any) => x.content)));
  const creates = remote.received.filter((d) => d.body?.type === "Create").map((d) => d.body.object.content);
  assert.ok(creates.some((c: string) => /Hello/.test(c)), JSON.stringify(creates));
});

test("an archive we export imports back into another account", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice", { password: PASSWORD });
  const erin = await s.user("erin", { password: PASSWORD });
  const media = (await s.req(alice, "POST", "/api/v2/media", fileForm(await png(20, 20), "a.png", "image/png"))).body;
  await s.api(alice, "PUT", `/api/v1/media/${media.id}`, { description: "a tiny square" });
  // A minute apart: ActivityPub's `published` keeps whole seconds.
  const realNow = s.app.now;
  t.after(() => (s.app.now = realNow));
  const at = (minutes: number) => (s.app.now = () => Date.parse("2024-03-01T12:00:00Z") + minutes * 60_000);
  at(0);
  const p1 = await s.api(alice, "POST", "/api/v1/statuses", { status: "first post #roundtrip", spoiler_text: "cw", language: "en" });
  at(1);
  const p2 = await s.api(alice, "POST", "/api/v1/statuses", { status: "a reply with a picture", in_reply_to_id: p1.id, media_ids: [media.id], visibility: "unlisted" });
  at(2);
  const p3 = await s.api(alice, "POST", "/api/v1/statuses", { status: "followers only", visibility: "private" });
  s.app.now = realNow;
  await s.drainJobs();

  const a = new Browser(s.url);
  await a.signIn("alice");
  await a.fetch("/settings/archive", { form: formWithButton((await a.fetch("/settings/archive")).text, "Request your archive").fields });
  await s.drainJobs();
  const href = /href="(\/settings\/archives\/\d+\/download)"/.exec((await a.fetch("/settings/archive")).text)![1];
  const cookie = [...a.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const zip = Buffer.from(await (await fetch(s.url + href, { headers: { cookie } })).arrayBuffer());

  // Into alice's own account: every post is already hers.
  assert.equal((await upload(s, a, zip)).status, 302);
  await s.drainJobs();
  assert.match((await a.fetch("/settings/post_import")).text, /Finished, 3 of 3 posts processed, 0 imported/);

  const e = new Browser(s.url);
  await e.signIn("erin");
  assert.equal((await upload(s, e, zip)).status, 302);
  await s.drainJobs();
  assert.match((await e.fetch("/settings/post_import")).text, /Finished, 3 of 3 posts processed, 3 imported/);
  const mine = await s.api(erin, "GET", `/api/v1/accounts/${erin.id}/statuses`);
  const pick = (x: any) => [x.created_at, x.content, x.spoiler_text, x.visibility, x.language, x.tags.map((t: any) => t.name)];
  assert.deepEqual(mine.map(pick), [p3, p2, p1].map(pick));
  assert.equal(mine[1].in_reply_to_id, mine[2].id);
  assert.equal(mine[1].media_attachments[0].description, "a tiny square");
  assert.notEqual(mine[1].media_attachments[0].id, p2.media_attachments[0].id);
});

test("unsafe, malformed and oversize archives are refused with a clear message", async (t) => {
  const s = await startTestServer({ config: { maxArchiveImportBytes: 64 * 1024 } });
  t.after(() => s.close());
  const alice = await s.user("alice", { password: PASSWORD });
  const b = new Browser(s.url);
  await b.signIn("alice");
  const outbox = JSON.stringify({ type: "OrderedCollection", orderedItems: [create(1, { published: "2021-01-01T00:00:00Z", to: [PUBLIC], cc: [], content: "<p>x</p>" })] });

  // `../` in an entry name (yazl refuses to write one: the name is patched in the bytes).
  const evil = await zipOf({ "outbox.json": outbox, "xx/evil.txt": "x" });
  const patched = Buffer.from(evil.toString("latin1").replaceAll("xx/evil.txt", "../evil.txt"), "latin1");
  let res = await upload(s, b, patched);
  assert.equal(res.status, 422);
  assert.match(res.text, /The archive was refused: it holds a file with an unsafe path \(\.\.\/evil\.txt\)/);

  res = await upload(s, b, await zipOf({ "actor.json": "{}" }));
  assert.equal(res.status, 422);
  assert.match(res.text, /it has no outbox\.json/);
  res = await upload(s, b, Buffer.from("not a zip at all"));
  assert.equal(res.status, 422);
  assert.match(res.text, /not a readable ZIP archive/);

  // Malformed outbox.json: accepted at upload (the check is quick), refused by the job.
  assert.equal((await upload(s, b, await zipOf({ "outbox.json": "{not json" }))).status, 302);
  assert.equal((await upload(s, b, await zipOf({ "outbox.json": '{"type":"OrderedCollection"}' }))).status, 302);
  await s.drainJobs();
  const page = (await b.fetch("/settings/post_import")).text;
  assert.match(page, /Refused: The archive was refused: outbox\.json is not valid JSON\./);
  assert.match(page, /Refused: The archive was refused: outbox\.json is not an ActivityStreams collection of posts\./);

  // Over the configured size: refused by the declared length (2 MB), and by the stream (100 KB).
  for (const size of [2 * 1024 * 1024, 100 * 1024]) {
    const big = await zipOf({ "outbox.json": outbox, "media.bin": randomBytes(size) }); // incompressible
    res = await upload(s, b, big);
    assert.equal(res.status, 413, `${size}`);
    assert.match(res.text, /The archive was refused: it is larger than 0\.1 MB/);
  }
  assert.deepEqual(await s.api(alice, "GET", `/api/v1/accounts/${alice.id}/statuses`), []);
});
