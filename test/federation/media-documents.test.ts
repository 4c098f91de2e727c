// Outgoing media (issue 10 part 6): a post with an uploaded photo reaches a second roost as a
// Note whose Document attachment carries the alt text as `name`, the media type, the URL,
// width/height, blurhash and focalPoint; the receiving side shows them as a MediaAttachment.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { phoneJpeg, upload } from "../api/media-helpers.ts";

/** Runs both servers' jobs until neither has any left (each delivery may cause one back). */
async function settle(...servers: TestServer[]): Promise<void> {
  for (let round = 0; round < 4; round++) for (const s of servers) await s.drainJobs();
}

test("a second roost receives the Document fields of a post's photo", async (t) => {
  const a = await startTestServer();
  const b = await startTestServer();
  t.after(() => Promise.all([a.close(), b.close()]));
  const alice = await a.user("alice");
  const bob = await b.user("bob");

  const found = await b.api(bob, "GET", `/api/v1/accounts/lookup?acct=alice@${a.app.config.domain}`);
  await b.api(bob, "POST", `/api/v1/accounts/${found.id}/follow`);
  await settle(b, a);
  const rel = await b.api(bob, "GET", `/api/v1/accounts/relationships?id[]=${found.id}`);
  assert.equal(rel[0].following, true, "bob follows alice across the two servers");

  const media = (await upload(a, alice, await phoneJpeg(400, 200), { type: "image/jpeg", fields: { description: "A heron by the water", focus: "-0.25,0.5" } })).body;
  const post = await a.api(alice, "POST", "/api/v1/statuses", { status: "Look!", media_ids: [media.id] });

  // The Note as alice's server serves it.
  const note = await (await fetch(post.uri, { headers: { accept: "application/activity+json" } })).json();
  assert.deepEqual(note.attachment, [
    {
      type: "Document",
      mediaType: "image/jpeg",
      url: media.url,
      name: "A heron by the water",
      blurhash: media.blurhash,
      focalPoint: [-0.25, 0.5],
      width: 200,
      height: 400,
    },
  ]);
  const ctx = JSON.stringify(note["@context"]);
  assert.match(ctx, /toot:blurhash/);
  assert.match(ctx, /toot:focalPoint/);

  await settle(a, b);
  const [seen] = await b.api(bob, "GET", "/api/v1/timelines/home");
  assert.equal(seen?.uri, post.uri, "the post reached bob's home");
  assert.equal(seen.media_attachments.length, 1);
  const m = seen.media_attachments[0];
  assert.equal(m.type, "image");
  assert.equal(m.description, "A heron by the water");
  assert.equal(m.remote_url, media.url);
  assert.equal(m.url, media.url);
  assert.equal(m.blurhash, media.blurhash);
  assert.deepEqual(m.meta.original, { width: 200, height: 400, size: "200x400", aspect: 0.5 });
  assert.deepEqual(m.meta.focus, { x: -0.25, y: 0.5 });
});
