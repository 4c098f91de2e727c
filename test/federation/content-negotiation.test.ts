import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { startFakeRemote } from "../helpers/fake-remote.ts";
import { followAccount } from "../../src/services/follows.ts";
import { findAccountByUri } from "../../src/storage/accounts.ts";
import { updateUser } from "../../src/storage/users.ts";
import { AP_TYPE, apGet, post, VARY } from "./ap-test-helpers.ts";

// AP §2 (HTML or AS JSON on the same URLs) and §11 (authorized fetch).

test("Accept matrix: AS types and JSON get the actor; browsers are redirected to /@user", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const st = await post(s, alice, { status: "hello" });
  const base = s.app.baseUrl;

  const asJson = [
    "application/activity+json",
    'application/ld+json; profile="https://www.w3.org/ns/activitystreams"',
    "application/ld+json",
    "application/json",
    "application/activity+json, application/ld+json",
    "text/html, application/activity+json",
    "*/*, application/activity+json",
    "text/html;q=0.9, application/activity+json;q=0.8",
  ];
  for (const accept of asJson) {
    for (const path of ["/users/alice", "/@alice"]) {
      const r = await apGet(s, path, accept);
      assert.equal(r.status, 200, `${path} ${accept}`);
      assert.equal(r.headers.get("content-type"), AP_TYPE, accept);
      assert.equal(r.body.id, `${base}/users/alice`, accept);
    }
    const note = await apGet(s, `/@alice/${st.id}`, accept);
    assert.equal(note.body.id, st.uri, accept);
  }

  for (const accept of ["text/html", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "*/*", "application/json;q=0"]) {
    const r = await apGet(s, "/users/alice", accept);
    assert.equal(r.status, 301, accept);
    assert.equal(r.headers.get("location"), `${base}/@alice`);
    assert.equal(r.headers.get("vary"), "Origin, Accept");
    const n = await apGet(s, `/users/alice/statuses/${st.id}`, accept);
    assert.equal(n.status, 301, accept);
    assert.equal(n.headers.get("location"), `${base}/@alice/${st.id}`);
    assert.equal(n.headers.get("vary"), "Origin, Accept");
  }

  // A `.json` suffix forces JSON whatever the Accept header says.
  for (const path of ["/users/alice.json", "/@alice.json", `/users/alice/statuses/${st.id}.json`, `/@alice/${st.id}.json`]) {
    const r = await apGet(s, path, "text/html");
    assert.equal(r.status, 200, path);
    assert.equal(r.headers.get("content-type"), AP_TYPE, path);
    assert.equal(r.headers.get("vary"), VARY);
  }
  assert.equal((await apGet(s, "/users/bob.json")).status, 404);
});

test("HTML pages: profile and status, escaped, with discovery links; hidden posts are 404", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const base = s.app.baseUrl;
  const alice = await s.user("alice");
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", {
    display_name: `<script>alert("x")</script>`,
    note: "I like <b>bold</b> & birds",
    fields_attributes: [{ name: `<img src=x onerror=alert(1)>`, value: "plain" }],
  });
  const pub = await post(s, alice, { status: "<i>public</i> words", spoiler_text: "<u>cw</u>" });
  const priv = await post(s, alice, { status: "followers words", visibility: "private" });

  const profile = await apGet(s, "/@alice", "text/html");
  assert.equal(profile.status, 200);
  assert.match(profile.headers.get("content-type")!, /^text\/html/);
  assert.match(profile.headers.get("content-security-policy")!, /default-src 'none'/);
  assert.match(profile.headers.get("vary")!, /Accept/);
  assert.equal(
    profile.headers.get("link"),
    `<${base}/.well-known/webfinger?resource=acct%3Aalice%40${encodeURIComponent(s.app.config.domain)}>; rel="lrdd"; type="application/jrd+json", <${base}/users/alice>; rel="alternate"; type="application/activity+json"`,
  );
  const html = profile.text;
  assert.ok(html.includes(`<link rel="alternate" type="application/activity+json" href="${base}/users/alice">`));
  assert.ok(!html.includes("<script>alert"), "the display name is escaped");
  assert.ok(html.includes("&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;"));
  assert.ok(!html.includes("<img src=x"), "field names are escaped");
  assert.ok(!html.includes("<b>bold</b>"), "the bio is the sanitised rendering");
  assert.ok(!html.includes("<i>public</i>") && html.includes("&lt;i&gt;public&lt;/i&gt; words"), "post content as rendered");
  assert.ok(html.includes("&#60;u&#62;cw&#60;/u&#62;"), "the CW is escaped");
  assert.ok(!html.includes("followers words"), "followers-only posts are not shown");
  assert.ok(html.includes(`@alice@${s.app.config.domain}`));

  const page = await apGet(s, `/@alice/${pub.id}`, "text/html");
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("link"), `<${pub.uri}>; rel="alternate"; type="application/activity+json"`);
  assert.ok(page.text.includes("&lt;i&gt;public&lt;/i&gt; words"));
  assert.ok(page.text.includes(`href="${pub.uri}"`));

  assert.equal((await apGet(s, `/@alice/${priv.id}`, "text/html")).status, 404);
  assert.equal((await apGet(s, `/users/alice/statuses/${priv.id}`, "text/html")).status, 404);
  assert.equal((await apGet(s, "/@nobody", "text/html")).status, 404);
});

test("authorized fetch: unsigned JSON GETs are refused with 401, the instance actor and HTML are not", async (t) => {
  const s = await startTestServer({ config: { authorizedFetch: true } });
  const remote = await startFakeRemote();
  t.after(async () => {
    await remote.close();
    await s.close();
  });
  const alice = await s.user("alice");
  const pub = await post(s, alice, { status: "public" });
  const priv = await post(s, alice, { status: "followers only", visibility: "private" });

  for (const path of ["/users/alice", "/@alice", `/users/alice/statuses/${pub.id}`, `/users/alice/statuses/${pub.id}/activity`, "/users/alice/outbox", "/users/alice/followers", "/users/alice/collections/featured"]) {
    const r = await apGet(s, path);
    assert.equal(r.status, 401, path);
  }
  const instance = await apGet(s, "/actor");
  assert.equal(instance.status, 200);
  assert.equal(instance.headers.get("cache-control"), "public, max-age=600");
  assert.equal((await apGet(s, "/@alice", "text/html")).status, 200, "browsers need no signature");

  // Signed by a remote actor: public objects are served privately; followers-only ones only to followers.
  const eve = remote.actor("eve");
  const actor = await remote.get(`${s.url}/users/alice`, eve);
  assert.equal(actor.status, 200);
  assert.equal(actor.headers.get("cache-control"), "private");
  assert.equal(actor.headers.get("vary"), `${VARY}, Signature`);
  assert.equal((await remote.get(`${s.url}/users/alice/statuses/${pub.id}`, eve)).status, 200);
  assert.equal((await remote.get(`${s.url}/users/alice/statuses/${priv.id}`, eve)).status, 404);
  const pageBefore = (await remote.get(`${s.url}/users/alice/outbox?page=true`, eve)).json;
  assert.equal(pageBefore.orderedItems.length, 1);

  const eveAccount = findAccountByUri(s.app.db, eve.id);
  assert.ok(eveAccount, "the signer was resolved while verifying");
  followAccount(s.app, eveAccount, alice.account, {});
  const note = await remote.get(`${s.url}/users/alice/statuses/${priv.id}`, eve);
  assert.equal(note.status, 200);
  assert.equal(note.json.id, priv.uri);
  const pageAfter = (await remote.get(`${s.url}/users/alice/outbox?page=true`, eve)).json;
  assert.deepEqual(pageAfter.orderedItems.map((a: { object: { id: string } }) => a.object.id), [priv.uri, pub.uri]);
});

test("HTML pages of a user who asked not to be indexed carry a robots noindex", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  await s.user("bob");
  const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "hello" });
  updateUser(s.app.db, alice.user.id, { settings: { noindex: true } });
  const html = { accept: "text/html" };
  for (const path of ["/@alice", `/@alice/${st.id}`]) {
    const r = await s.req(null, "GET", path, undefined, html);
    assert.equal(r.status, 200, path);
    assert.match(r.text, /<meta name="robots" content="noindex, noarchive">/, path);
  }
  assert.doesNotMatch((await s.req(null, "GET", "/@bob", undefined, html)).text, /name="robots"/);
});
