// Preview cards of remote posts (issue 10 part 8): crawled as local ones (Mastodon's Create
// handler queues LinkCrawlWorker), never with a content warning, and hashtag and mention links
// of the remote HTML are passed over.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mentionOf, noteDoc, startWorld, stored, view } from "./remote-status-helpers.ts";

test("a remote post's first real link gets a card; a remote post with a CW is not crawled", async (t) => {
  const w = await startWorld(t);
  const { s, remote, rita } = w;
  const bob = await s.user("bob");
  const o = remote.origin;
  remote.serveFile("/blog/post", `<html><head><meta property="og:title" content="Rita's blog"></head></html>`, "text/html");
  const content =
    `<p><span class="h-card"><a href="${bob.account.url}" class="u-url mention">@<span>bob</span></a></span> ` +
    `<a href="${o}/tags/birds" class="mention hashtag" rel="tag">#<span>birds</span></a> ` +
    `<a href="${o}/blog/post">${o}/blog/post</a></p>`;
  const withLink = await stored(w, noteDoc(rita, { content, tag: [mentionOf(w, bob)] }));
  const withCw = await stored(w, noteDoc(rita, { content, summary: "spoilers", tag: [mentionOf(w, bob)] }));
  await s.drainJobs();

  const card = (await view(w, bob, withLink.id)).body.card;
  assert.equal(card.url, `${o}/blog/post`);
  assert.equal(card.title, "Rita's blog");
  assert.equal((await view(w, bob, withCw.id)).body.card, null);
  assert.deepEqual(remote.requests.filter((r) => r.path.startsWith("/blog/") || r.path.startsWith("/tags/")).map((r) => r.path), ["/blog/post"]);

  // An edit that adds a content warning drops the card.
  const update = {
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${rita.id}#updates/1`,
    type: "Update",
    actor: rita.id,
    object: { ...noteDoc(rita, { content, summary: "now hidden", tag: [mentionOf(w, bob)] }), id: withLink.uri, updated: new Date(Date.now() + 1000).toISOString() },
  };
  const res = await remote.post(`${s.url}/inbox`, update, rita);
  assert.equal(res.status, 202, res.text);
  await s.drainJobs();
  const after = (await view(w, bob, withLink.id)).body;
  assert.equal(after.spoiler_text, "now hidden");
  assert.equal(after.card, null);
});
