// "Request your archive" (issue 16 part 5): the ZIP parsed back with yauzl and compared with
// what the API shows; one request a week; the download is the owner's only; removed after a week.
import { test } from "node:test";
import assert from "node:assert/strict";
import yauzl from "yauzl";
import { startTestServer } from "../helpers/server.ts";
import { Browser, formWithButton, PASSWORD } from "../api/oauth-helpers.ts";
import { png } from "../api/accounts-helpers.ts";
import { fileForm } from "../api/media-helpers.ts";
import { linkIn, mailTo } from "../api/mail-helpers.ts";

function readZip(buf: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buf, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const out = new Map<string, Buffer>();
      zip.on("entry", (e: yauzl.Entry) => {
        zip.openReadStream(e, (err2, rs) => {
          if (err2 || !rs) return reject(err2);
          const chunks: Buffer[] = [];
          rs.on("data", (c: Buffer) => chunks.push(c));
          rs.on("end", () => {
            out.set(e.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on("end", () => resolve(out));
      zip.on("error", reject);
      zip.readEntry();
    });
  });
}

test("an archive holds actor, outbox, likes, bookmarks and media in Mastodon's layout, matching the API", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice", { password: PASSWORD });
  const bob = await s.user("bob", { password: PASSWORD });
  const image = await png(40, 30);
  const media = (await s.req(alice, "POST", "/api/v2/media", fileForm(image, "a.png", "image/png"))).body;
  await s.drainJobs();
  const p1 = await s.api(alice, "POST", "/api/v1/statuses", { status: "first", spoiler_text: "cw" });
  const p2 = await s.api(alice, "POST", "/api/v1/statuses", { status: "with a picture", media_ids: [media.id], visibility: "unlisted" });
  const theirs = await s.api(bob, "POST", "/api/v1/statuses", { status: "bob's" });
  await s.api(alice, "POST", `/api/v1/statuses/${theirs.id}/favourite`);
  await s.api(alice, "POST", `/api/v1/statuses/${theirs.id}/bookmark`);
  await s.api(alice, "POST", `/api/v1/statuses/${theirs.id}/reblog`);
  await s.drainJobs();

  const b = new Browser(s.url);
  await b.signIn("alice");
  const page = await b.fetch("/settings/archive");
  const form = formWithButton(page.text, "Request your archive");
  assert.equal((await b.fetch("/settings/archive", { form: { authenticity_token: "forged" } })).status, 422);
  const asked = await b.fetch("/settings/archive", { form: form.fields });
  assert.deepEqual([asked.status, asked.location], [302, "/settings/archive"]);
  assert.match((await b.fetch("/settings/archive")).text, /Being prepared/);
  // A second request within the week is refused.
  const again = await b.fetch("/settings/archive", { form: form.fields });
  assert.equal(again.status, 422);
  assert.match(again.text, /once every 7 days/);
  await s.drainJobs();

  // The owner is told by e-mail, with a link to the page.
  const [mail] = mailTo(s, "alice@example.test");
  assert.equal(mail.subject, `${s.app.config.title}: your archive is ready to download`);
  assert.equal(linkIn(mail, s, "/settings/archive"), "/settings/archive");
  const ready = await b.fetch("/settings/archive");
  const href = /href="(\/settings\/archives\/\d+\/download)"/.exec(ready.text)?.[1];
  assert.ok(href, ready.text);
  const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const res = await fetch(s.url + href, { headers: { cookie } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/zip");
  const files = await readZip(Buffer.from(await res.arrayBuffer()));

  const actor = JSON.parse(files.get("actor.json")!.toString());
  const apiMe = await s.api(alice, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(actor.preferredUsername, apiMe.username);
  assert.equal(actor.url, apiMe.url);
  assert.deepEqual([actor.outbox, actor.likes, actor.bookmarks], ["outbox.json", "likes.json", "bookmarks.json"]);

  const outbox = JSON.parse(files.get("outbox.json")!.toString());
  assert.equal(outbox.type, "OrderedCollection");
  const apiStatuses = await s.api(alice, "GET", `/api/v1/accounts/${alice.id}/statuses`);
  assert.equal(outbox.orderedItems.length, apiStatuses.length);
  const creates = outbox.orderedItems.filter((i: any) => i.type === "Create");
  assert.deepEqual(creates.map((c: any) => c.object.id), [p1.uri, p2.uri]);
  assert.equal(creates[0].object.summary, "cw");
  assert.equal(creates[0].object.published, p1.created_at.replace(/\.\d{3}Z$/, "Z"));
  const boost = outbox.orderedItems.find((i: any) => i.type === "Announce");
  assert.equal(boost.object, theirs.uri);
  // The attachment points into the archive, and that entry holds the stored file.
  const att = creates[1].object.attachment[0];
  assert.ok(!att.url.startsWith("http"), att.url);
  assert.ok(files.get(att.url)?.length, `no ${att.url} in ${[...files.keys()]}`);
  const stored = await fetch(p2.media_attachments[0].url);
  assert.deepEqual(files.get(att.url), Buffer.from(await stored.arrayBuffer()));

  assert.deepEqual(JSON.parse(files.get("likes.json")!.toString()).orderedItems, [theirs.uri]);
  assert.deepEqual(JSON.parse(files.get("bookmarks.json")!.toString()).orderedItems, [theirs.uri]);

  // Not bob's to download.
  const other = new Browser(s.url);
  await other.signIn("bob");
  assert.equal((await other.fetch(href)).status, 404);

  // A week later the archive is gone and a new one may be asked for.
  const realNow = s.app.now;
  s.app.now = () => realNow() + 8 * 86_400_000;
  t.after(() => (s.app.now = realNow));
  await s.drainJobs();
  assert.equal((await b.fetch(href)).status, 404);
  assert.doesNotMatch((await b.fetch("/settings/archive")).text, /disabled/);
});

test("roost user archive USERNAME writes the archive at once and prints its path", async (t) => {
  const { roost, tempDir } = await import("../cli/cli-helpers.ts");
  const { readFileSync } = await import("node:fs");
  const dir = tempDir(t);
  const dd = ["--data-dir", dir];
  assert.equal((await roost(["init", ...dd, "--domain", "archive.example", "--protocol", "http"])).code, 0);
  assert.equal((await roost(["user", "create", "alice", ...dd, "--email", "alice@example.test"])).code, 0);
  const run = await roost(["user", "archive", "alice", ...dd]);
  assert.equal(run.code, 0, run.stderr);
  const files = await readZip(readFileSync(run.stdout.trim()));
  assert.equal(JSON.parse(files.get("actor.json")!.toString()).preferredUsername, "alice");
  assert.deepEqual(JSON.parse(files.get("outbox.json")!.toString()).orderedItems, []);
  const unknown = await roost(["user", "archive", "nobody", ...dd]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /unknown user: nobody/);
});

test("outbox.json runs over several pages with non-ASCII text and reads back whole", async (t) => {
  const { requestArchive, archivesOf, requireArchiveFile } = await import("../../src/services/account-archives.ts");
  const { readFileSync } = await import("node:fs");
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  // More posts than one outbox page (20), in text whose UTF-8 is longer than its UTF-16.
  const texts = Array.from({ length: 45 }, (_, i) => `post ${i}: café ✨ 日本語`);
  for (const status of texts) await s.api(alice, "POST", "/api/v1/statuses", { status });
  const asked = requestArchive(s.app, alice.account);
  await s.drainJobs();
  const written = archivesOf(s.app, alice.account).find((a) => a.id === asked.id)!;
  const files = await readZip(readFileSync(requireArchiveFile(s.app, alice.account, written.id).path));
  const outbox = JSON.parse(files.get("outbox.json")!.toString());
  assert.equal(outbox.totalItems, 45);
  assert.deepEqual(
    outbox.orderedItems.map((i: any) => i.object.content),
    texts.map((x) => `<p>${x}</p>`),
  );
});

test("with media in S3, the archive holds each stored file (fetched as yazl reaches its entry)", async (t) => {
  const { requestArchive, requireArchiveFile } = await import("../../src/services/account-archives.ts");
  const { startTestS3 } = await import("../helpers/s3-server.ts");
  const { readFileSync } = await import("node:fs");
  const s3 = await startTestS3();
  t.after(() => s3.close());
  const s = await startTestServer({ config: s3.config });
  t.after(() => s.close());
  const alice = await s.user("alice");
  const posts: { media_attachments: { url: string }[] }[] = [];
  for (const [w, h] of [[40, 30], [30, 40], [50, 20]]) {
    const media = (await s.req(alice, "POST", "/api/v2/media", fileForm(await png(w, h), "a.png", "image/png"))).body;
    await s.drainJobs();
    posts.push(await s.api(alice, "POST", "/api/v1/statuses", { status: `${w}x${h}`, media_ids: [media.id] }));
  }
  const asked = requestArchive(s.app, alice.account);
  await s.drainJobs();
  const files = await readZip(readFileSync(requireArchiveFile(s.app, alice.account, asked.id).path));
  const outbox = JSON.parse(files.get("outbox.json")!.toString());
  assert.equal(outbox.orderedItems.length, 3);
  for (const [i, item] of outbox.orderedItems.entries()) {
    const entry = item.object.attachment[0].url;
    assert.ok(!entry.startsWith("http"), entry);
    const stored = Buffer.from(await (await fetch(posts[i].media_attachments[0].url)).arrayBuffer());
    assert.ok(stored.length > 0);
    assert.deepEqual(files.get(entry), stored);
  }
});
