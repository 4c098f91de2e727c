// GET /api/oembed (endpoints-instance.md): oEmbed for our own public and unlisted posts only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";

test("GET /api/oembed: a rich embed of a public post; 404 for private, unknown, remote-looking or malformed URLs", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Alice <3" });
  const pub = await s.api(alice, "POST", "/api/v1/statuses", { status: "hello", visibility: "public" });
  const unlisted = await s.api(alice, "POST", "/api/v1/statuses", { status: "quiet", visibility: "unlisted" });
  const priv = await s.api(alice, "POST", "/api/v1/statuses", { status: "secret", visibility: "private" });
  const q = (url: string, extra = "") => `/api/oembed?url=${encodeURIComponent(url)}${extra}`;

  const res = await s.req(null, "GET", q(pub.url));
  assert.equal(res.status, 200);
  assert.match(res.headers.get("cache-control") ?? "", /^public/);
  const e = res.body;
  const domain = s.app.config.domain;
  assert.deepEqual({ ...e, html: "" }, {
    type: "rich",
    version: "1.0",
    author_name: "Alice <3",
    author_url: `${s.app.baseUrl}/@alice`,
    provider_name: domain,
    provider_url: `${s.app.baseUrl}/`,
    cache_age: 86400,
    html: "",
    width: 400,
    height: null,
  });
  assert.match(e.html, /^<blockquote class="mastodon-embed"/);
  assert.ok(e.html.includes(`<a href="${pub.url}"`));
  assert.ok(e.html.includes(`Post by @alice@${domain}`));
  assert.ok(!e.html.includes("<script"));

  // The id URI works too, and maxwidth / maxheight are passed through.
  const sized = await s.api(null, "GET", q(pub.uri, "&maxwidth=300&maxheight=200"));
  assert.deepEqual([sized.width, sized.height], [300, 200]);
  assert.equal((await s.req(null, "GET", q(unlisted.url))).status, 200);

  for (const url of [
    priv.url,
    `${s.app.baseUrl}/@alice/999999`,
    `${s.app.baseUrl}/@bob/${pub.id}`,
    `https://elsewhere.example/@alice/${pub.id}`,
    "not a url",
    "",
  ]) {
    const r = await s.req(null, "GET", q(url));
    assert.equal(r.status, 404, url);
    assert.deepEqual(r.body, { error: "Record not found" });
  }
  assert.equal((await s.req(null, "GET", "/api/oembed")).status, 404);
});
