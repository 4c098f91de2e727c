// GET /api/v1/timelines/link?url= (Mastodon 4.3's LinkController and LinkFeed): public posts
// carrying the preview card of a link that trends now, by discoverable authors, filtered for
// the viewer like other timelines, paged by id with Link headers; 404 for any other URL.
import { test } from "node:test";
import assert from "node:assert/strict";
import { refreshTrends } from "../../src/trends/refresh.ts";
import { startTestServer } from "../helpers/server.ts";
import { discoverableUser, startTrendingLink } from "../helpers/trend-links.ts";

const ids = (list: { id: string }[]) => list.map((x) => x.id);

test("the link timeline: posts carrying a trending link's card, newest first, paged and filtered", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const { site, url, posts, authors } = await startTrendingLink(s);
  t.after(() => site.close());
  const viewer = await s.user("viewer");

  // More posts with the same card: a reply (kept, as Mastodon's LinkFeed), an unlisted post and
  // one by an account that is not discoverable (both left out), a post with another link.
  const replier = await discoverableUser(s, "replier");
  const reply = await s.api(replier, "POST", "/api/v1/statuses", { status: `@linker0 yes ${url}`, in_reply_to_id: posts[0].id });
  await s.api(replier, "POST", "/api/v1/statuses", { status: `quietly ${url}`, visibility: "unlisted" });
  const shy = await s.user("shy");
  await s.api(shy, "POST", "/api/v1/statuses", { status: `me too ${url}` });
  await s.drainJobs();
  // The same link with a fragment is the same trend.
  const all = [reply, ...posts.slice().reverse()];

  const res = await s.req(null, "GET", `/api/v1/timelines/link?url=${encodeURIComponent(url + "#top")}`);
  assert.equal(res.status, 200);
  assert.deepEqual(ids(res.body), ids(all));
  assert.equal(res.body[1].card.title, "Herons & egrets");
  assert.match(res.headers.get("cache-control") ?? "", /^public/);

  // Paging by id: limit, max_id (next), min_id (prev), since_id; the links keep `url`.
  const first = await s.req(viewer, "GET", `/api/v1/timelines/link?url=${encodeURIComponent(url)}&limit=2`);
  assert.deepEqual(ids(first.body), ids(all.slice(0, 2)));
  const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
  assert.ok(next, "a next link");
  assert.equal(new URL(next).searchParams.get("url"), url);
  assert.equal(new URL(next).searchParams.get("max_id"), all[1].id);
  const second = await s.api(viewer, "GET", next.replace(s.app.baseUrl, ""));
  assert.deepEqual(ids(second), ids(all.slice(2, 4)));
  const newer = await s.api(viewer, "GET", `/api/v1/timelines/link?url=${encodeURIComponent(url)}&min_id=${all[3].id}&limit=2`);
  assert.deepEqual(ids(newer), ids(all.slice(1, 3)));
  const since = await s.api(viewer, "GET", `/api/v1/timelines/link?url=${encodeURIComponent(url)}&since_id=${all[2].id}`);
  assert.deepEqual(ids(since), ids(all.slice(0, 2)));

  // Blocks and mutes apply, as on other timelines.
  await s.api(viewer, "POST", `/api/v1/accounts/${authors[4].id}/block`);
  await s.api(viewer, "POST", `/api/v1/accounts/${replier.id}/mute`);
  assert.deepEqual(ids(await s.api(viewer, "GET", `/api/v1/timelines/link?url=${encodeURIComponent(url)}`)), ids(posts.slice(0, 4).reverse()));

  // Only a trending link: another URL, none, or garbage is 404 "Record not found".
  for (const q of ["?url=https%3A%2F%2Felsewhere.example%2Fpage", "", "?url=%20", "?url=not%20a%20url", "?url[]=x"]) {
    const r = await s.req(viewer, "GET", `/api/v1/timelines/link${q}`);
    assert.deepEqual([q, r.status, r.body], [q, 404, { error: "Record not found" }]);
  }
});

test("the link timeline follows the review: a rejected link has none; with required review only approved ones", async (t) => {
  const s = await startTestServer({ config: { trendsRequireReview: true } });
  t.after(() => s.close());
  const { site, url, posts } = await startTrendingLink(s);
  t.after(() => site.close());
  const mod = await s.user("mod", { role: "moderator", scopes: ["read", "admin:read", "admin:write"] });
  const path = `/api/v1/timelines/link?url=${encodeURIComponent(url)}`;
  assert.equal((await s.req(null, "GET", path)).status, 404);

  const [link] = await s.api(mod, "GET", "/api/v1/admin/trends/links");
  await s.api(mod, "POST", `/api/v1/admin/trends/links/${link.id}/approve`);
  assert.deepEqual(ids(await s.api(null, "GET", path)), ids(posts.slice().reverse()));
  await s.api(mod, "POST", `/api/v1/admin/trends/links/${link.id}/reject`);
  assert.equal((await s.req(null, "GET", path)).status, 404);

  // A link that stopped trending has no timeline either.
  await s.api(mod, "POST", `/api/v1/admin/trends/links/${link.id}/approve`);
  s.app.now = ((now) => () => now + 48 * 3_600_000)(s.app.now());
  refreshTrends(s.app);
  assert.equal((await s.req(null, "GET", path)).status, 404);
});
