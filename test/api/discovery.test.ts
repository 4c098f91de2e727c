import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { insertAccount } from "../../src/storage/accounts.ts";

test("webfinger: alice by acct, bare handle, actor URL and profile URL", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("Alice");
  const domain = s.app.config.domain;
  const base = s.app.baseUrl;
  const expected = {
    subject: `acct:Alice@${domain}`,
    aliases: [`${base}/@Alice`, `${base}/users/Alice`],
    links: [
      { rel: "http://webfinger.net/rel/profile-page", type: "text/html", href: `${base}/@Alice` },
      { rel: "self", type: "application/activity+json", href: alice.account.uri },
      { rel: "http://ostatus.org/schema/1.0/subscribe", template: `${base}/authorize_interaction?uri={uri}` },
    ],
  };
  assert.equal(alice.account.uri, `${base}/users/Alice`);
  for (const resource of [
    `acct:alice@${domain}`,
    `acct:ALICE@${domain.toUpperCase()}`,
    `alice@${domain}`,
    `@alice@${domain}`,
    `${base}/users/Alice`,
    `${base}/@alice`,
  ]) {
    const res = await s.req(null, "GET", `/.well-known/webfinger?resource=${encodeURIComponent(resource)}`);
    assert.equal(res.status, 200, resource);
    assert.equal(res.headers.get("content-type"), "application/jrd+json; charset=utf-8");
    assert.equal(res.headers.get("cache-control"), "public, max-age=259200");
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.deepEqual(JSON.parse(res.text), expected, resource);
  }
});

test("webfinger: 404 for unknown, remote and foreign names; 400 without a usable resource", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  await s.user("alice");
  const domain = s.app.config.domain;
  const now = s.app.now();
  insertAccount(s.app.db, {
    id: s.app.ids.next(),
    username: "bob",
    domain: "remote.example",
    uri: "https://remote.example/users/bob",
    createdAt: now,
    updatedAt: now,
  });
  const get = (q: string) => s.req(null, "GET", `/.well-known/webfinger${q}`);
  for (const resource of [
    `acct:nobody@${domain}`,
    "acct:alice@remote.example",
    "acct:bob@remote.example",
    `acct:bob@${domain}`,
    "https://remote.example/users/alice",
    `${s.app.baseUrl}/users/nobody`,
    `${s.app.baseUrl}/tags/alice`,
  ]) {
    const res = await get(`?resource=${encodeURIComponent(resource)}`);
    assert.equal(res.status, 404, resource);
    assert.equal(res.text, "");
    assert.equal(res.headers.get("cache-control"), "public, max-age=180");
  }
  for (const q of ["", "?resource=", "?resource=alice", `?resource=${encodeURIComponent("acct:@" + domain)}`, "?resource=acct%3Aalice%40"]) {
    const res = await get(q);
    assert.equal(res.status, 400, q);
    assert.equal(res.text, "");
  }
});

test("webfinger: the instance actor in all its forms", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const domain = s.app.config.domain;
  const base = s.app.baseUrl;
  for (const resource of [`acct:${domain}@${domain}`, domain, `${base}/actor`, `${base}/`, base]) {
    const res = await s.req(null, "GET", `/.well-known/webfinger?resource=${encodeURIComponent(resource)}`);
    assert.equal(res.status, 200, resource);
    assert.deepEqual(JSON.parse(res.text), {
      subject: `acct:${domain}@${domain}`,
      aliases: [`${base}/actor`],
      links: [
        { rel: "http://webfinger.net/rel/profile-page", type: "text/html", href: `${base}/about/more?instance_actor=true` },
        { rel: "self", type: "application/activity+json", href: `${base}/actor` },
      ],
    });
  }
});

test("host-meta: XRD by default, JSON on request or at host-meta.json", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const template = `${s.app.baseUrl}/.well-known/webfinger?resource={uri}`;
  const xrd = await s.req(null, "GET", "/.well-known/host-meta", undefined, { accept: "application/xrd+xml" });
  assert.equal(xrd.status, 200);
  assert.equal(xrd.headers.get("content-type"), "application/xrd+xml; charset=utf-8");
  assert.equal(xrd.headers.get("cache-control"), "public, max-age=259200");
  assert.equal(xrd.headers.get("access-control-allow-origin"), "*");
  assert.equal(
    xrd.text,
    `<?xml version="1.0" encoding="UTF-8"?>\n<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n  <Link rel="lrdd" template="${template}"/>\n</XRD>\n`,
  );
  const any = await s.req(null, "GET", "/.well-known/host-meta", undefined, { accept: "*/*" });
  assert.equal(any.headers.get("content-type"), "application/xrd+xml; charset=utf-8");
  for (const [path, accept] of [["/.well-known/host-meta", "application/json"], ["/.well-known/host-meta.json", "*/*"]]) {
    const json = await s.req(null, "GET", path, undefined, { accept });
    assert.equal(json.headers.get("content-type"), "application/json; charset=utf-8");
    assert.deepEqual(json.body, { links: [{ rel: "lrdd", template }] });
  }
});
